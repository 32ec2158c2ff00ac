/**
 * The small, named set of failures a tool can report. Every tool turns a failure into an error
 * result through these builders, so the same failure reads the same in every tool.
 */

/** The kinds of failure a tool reports. */
export type ToolErrorKind =
    | 'invalid_argument'
    | 'not_found'
    | 'outside_access'
    | 'not_writable'
    | 'binary'
    | 'too_large'
    | 'not_read'
    | 'changed_since_read'
    | 'timeout'
    | 'wrong_type'
    | 'exists'
    | 'io';

/** A failure that becomes an error result; `message` is shown to the model as is. */
export class ToolError extends Error {
    constructor(
        readonly kind: ToolErrorKind,
        message: string,
    ) {
        super(message);
        this.name = 'ToolError';
    }
}

/** Message builders, one per kind. Paths are shown as the caller should pass them back. */
export const errors = {
    invalidArgument: (tool: string, detail: string): ToolError =>
        new ToolError('invalid_argument', `Invalid arguments for ${tool}: ${detail}`),
    notFound: (kind: 'File' | 'Path' | 'Directory', cause: string): ToolError =>
        new ToolError('not_found', `${kind} not found: ${cause}`),
    /** not_found for a failed stat of `actualPath` (a real or held-directory path), naming `shownPath` in its place. */
    statFailed: (kind: 'File' | 'Path' | 'Directory', err: unknown, actualPath: string, shownPath: string): ToolError =>
        errors.notFound(kind, err instanceof Error ? err.message.replace(actualPath, shownPath) : String(err)),
    outsideAccess: (path: string, mode: 'read' | 'write', hint: string): ToolError =>
        new ToolError(
            'outside_access',
            `Access denied: ${path} is outside the configured ${mode === 'write' ? 'writable' : 'readable'} directories.${hint} Call file_access_info to see what is accessible.`,
        ),
    notWritable: (path: string): ToolError =>
        new ToolError(
            'not_writable',
            `Access denied: ${path} is in a read-only directory; writes need a write access. Call file_access_info to see which directories are writable.`,
        ),
    binary: (path: string, size: number): ToolError =>
        new ToolError('binary', `Binary file refused: ${path} (${size} bytes) is not a text file.`),
    tooLarge: (path: string, size: number, limit: number, setting: string): ToolError =>
        new ToolError(
            'too_large',
            `File too large: ${path} is ${size} bytes, above the limit of ${limit} bytes. Raise ${setting} to open it.`,
        ),
    notRead: (path: string): ToolError =>
        new ToolError(
            'not_read',
            `File has not been read: call read_file on ${path} before modifying it, so that the edit is based on its current content.`,
        ),
    changedSinceRead: (path: string): ToolError =>
        new ToolError(
            'changed_since_read',
            `File changed since it was last read: ${path} was modified after your last read_file. Call read_file again and redo the edit on the current content.`,
        ),
    wrongType: (path: string, expected: string, actual: string): ToolError =>
        new ToolError('wrong_type', `Not a ${expected}: ${path} is a ${actual}.`),
    exists: (path: string, what: string): ToolError => new ToolError('exists', `${what}: ${path} already exists.`),
    io: (path: string, err: unknown): ToolError =>
        new ToolError('io', `Filesystem error${path ? ` on ${path}` : ''}: ${err instanceof Error ? err.message : String(err)}`),
};

/** Node's error code (`ENOENT`, `EACCES`, ...) of a thrown value, if it has one. */
export function errorCode(err: unknown): string | undefined {
    return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

/** Turns any thrown value into a ToolError, mapping common filesystem codes to their kinds. */
export function toToolError(err: unknown, path: string): ToolError {
    if (err instanceof ToolError) return err;
    const code = errorCode(err);
    const message = err instanceof Error ? err.message : String(err);
    if (code === 'ENOENT') return errors.notFound('Path', message);
    if (code === 'EACCES' || code === 'EPERM') {
        return new ToolError('io', `Permission denied by the operating system on ${path}: ${message}`);
    }
    if (code === 'ENOTDIR') return new ToolError('wrong_type', `Not a directory: a parent of ${path} is a file (${message}).`);
    if (code === 'EISDIR') return errors.wrongType(path, 'file', 'directory');
    return errors.io(path, err);
}
