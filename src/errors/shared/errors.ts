import { quotePath } from '../../print/shared/display.js';

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
    | 'cancelled'
    | 'io';

/**
 * The `llm-chat-file` command's exit code for a call whose results failed, by the kind of the
 * first failed result: distinct per kind, so scripts can tell them apart. 0 is success and 2 a
 * usage error (src/hosts/cli/main.ts); 1 is a filesystem error (`io`) and any failure without a kind.
 */
export const EXIT_CODES: Readonly<Record<ToolErrorKind, number>> = Object.freeze({
    io: 1,
    invalid_argument: 3,
    not_found: 4,
    outside_access: 5,
    not_writable: 6,
    binary: 7,
    too_large: 8,
    not_read: 9,
    changed_since_read: 10,
    timeout: 11,
    cancelled: 12,
    wrong_type: 13,
    exists: 14,
});

/**
 * The codes a worker task fails with (`{ ok: false, code, message }`: thrown errors lose their
 * class crossing threads), each mapped onto the kind the tools report it as.
 */
export const WORKER_FAILURE_KINDS = Object.freeze({
    /** The task threw (a bug, or the worker died). */
    worker_failed: 'io',
    /** A task of an unknown `op`. */
    unknown_op: 'invalid_argument',
    /** A search or index walk failed at its root. */
    walk_failed: 'io',
    /** The tree to index is not a directory. */
    not_a_directory: 'wrong_type',
    /** The tree to index has more entries than allowed. */
    too_many_entries: 'too_large',
    /** Checking an index against the disk failed. */
    check_failed: 'io',
    /** Building an index segment failed. */
    index_failed: 'io',
} as const satisfies Record<string, ToolErrorKind>);

/** A code of {@link WORKER_FAILURE_KINDS}. */
export type WorkerFailureCode = keyof typeof WORKER_FAILURE_KINDS;

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

/** How a path appears in a message: {@link quotePath} (JSON-quoted when it holds a control character). */
const q = quotePath;

/** read_file tells media by extension: a PDF under another name is binary text to it. */
const PDF_HINT = ' It starts with %PDF-: a PDF, which read_file reads as one (pages) only under a name ending in .pdf.';
const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d];

function isPdfHead(head: Uint8Array | undefined): boolean {
    return head !== undefined && head.length >= PDF_MAGIC.length && PDF_MAGIC.every((b, i) => head[i] === b);
}

/** Message builders, one per kind. Paths are shown as the caller should pass them back, quoted as listings quote them. */
export const errors = {
    invalidArgument: (tool: string, detail: string): ToolError =>
        new ToolError('invalid_argument', `Invalid arguments for ${tool}: ${detail}`),
    notFound: (kind: 'File' | 'Path' | 'Directory', cause: string): ToolError =>
        new ToolError('not_found', `${kind} not found: ${cause}`),
    /** not_found for a failed stat of `actualPath` (a real or held-directory path), naming `shownPath` in its place. */
    statFailed: (kind: 'File' | 'Path' | 'Directory', err: unknown, actualPath: string, shownPath: string): ToolError =>
        errors.notFound(kind, systemMessage(err, shownPath, actualPath)),
    outsideAccess: (path: string, mode: 'read' | 'write', hint: string): ToolError =>
        new ToolError(
            'outside_access',
            `Access denied: ${q(path)} is outside the configured ${mode === 'write' ? 'writable' : 'readable'} directories.${hint} Call file_access_info to see what is accessible.`,
        ),
    notWritable: (path: string): ToolError =>
        new ToolError(
            'not_writable',
            `Access denied: ${q(path)} is in a read-only directory; writes need a write access. Call file_access_info to see which directories are writable.`,
        ),
    /** `head`: the file's first bytes, when known; a PDF under another name is then said to be one. */
    binary: (path: string, size: number, head?: Uint8Array): ToolError =>
        new ToolError('binary', `Binary file refused: ${q(path)} (${size} bytes) is not a text file.${isPdfHead(head) ? PDF_HINT : ''}`),
    tooLarge: (path: string, size: number, limit: number, setting: string): ToolError =>
        new ToolError(
            'too_large',
            `File too large: ${q(path)} is ${size} bytes, above the limit of ${limit} bytes. Raise ${setting} to open it.`,
        ),
    notRead: (path: string): ToolError =>
        new ToolError(
            'not_read',
            `File has not been read: call read_file on ${q(path)} before modifying it, so that the edit is based on its current content.`,
        ),
    changedSinceRead: (path: string): ToolError =>
        new ToolError(
            'changed_since_read',
            `File changed since it was last read: ${q(path)} was modified after your last read_file. Call read_file again and redo the edit on the current content.`,
        ),
    wrongType: (path: string, expected: string, actual: string): ToolError =>
        new ToolError('wrong_type', `Not a ${expected}: ${q(path)} is a ${actual}.`),
    exists: (path: string, what: string): ToolError => new ToolError('exists', `${what}: ${q(path)} already exists.`),
    io: (path: string, err: unknown): ToolError =>
        new ToolError('io', `Filesystem error${path ? ` on ${q(path)}` : ''}: ${systemMessage(err, path)}`),
    /** A media file (image, PDF, notebook) that cannot be shown: `what` names it, `detail` says why and what to do. */
    unreadableMedia: (path: string, what: string, detail: string): ToolError =>
        new ToolError('binary', `Cannot read ${what}: ${q(path)} ${detail}`),
    /** An image with more pixels than `images.maxInputPixels`; refused from its header alone. */
    tooManyPixels: (path: string, width: number, height: number, limit: number): ToolError =>
        new ToolError(
            'too_large',
            `Image too large: ${q(path)} is ${width}x${height} = ${(width * height).toLocaleString('en-US')} pixels, above the limit of ${limit.toLocaleString('en-US')} pixels; nothing was decoded. Raise images.maxInputPixels (LLM_CHAT_FS_IMAGE_MAX_INPUT_PIXELS) to read it.`,
        ),
    /** A file without any write permission bit (mode 0444 and the like): never written, by root either. */
    readOnlyFile: (path: string, mode: number): ToolError =>
        new ToolError(
            'not_writable',
            `File is read-only: ${q(path)} has no write permission (mode ${(mode & 0o777).toString(8).padStart(3, '0')}); nothing was changed. Make it writable first (chmod u+w) if it should be edited.`,
        ),
};

/**
 * The cause of a failed system call in words, by its error code: what the user can act on
 * (read-only, permission denied, no space left, read-only filesystem, busy).
 */
export function causeOf(code: string | undefined): string | undefined {
    switch (code) {
        case 'EACCES':
            return 'permission denied';
        case 'EPERM':
            return 'operation not permitted (the file or its directory may be immutable or append-only: lsattr shows it)';
        case 'EROFS':
            return 'read-only filesystem';
        case 'ENOSPC':
            return 'no space left on device';
        case 'EDQUOT':
            return 'disk quota exceeded';
        case 'EBUSY':
            return 'resource busy (a mount point, or in use)';
        case 'ETXTBSY':
            return 'text file busy (a running program)';
        case 'EMFILE':
        case 'ENFILE':
            return 'too many open files (see ulimit -n)';
        case 'ENAMETOOLONG':
            return 'file name too long';
        case 'ELOOP':
            return 'too many levels of symbolic links';
        case 'EXDEV':
            return 'on another filesystem';
        case 'EIO':
            return 'input/output error';
        default:
            return undefined;
    }
}

/**
 * The message of a failed system call naming the user's path: `CODE: cause, syscall 'path'` as
 * Node writes it, but with `shownPath` (quoted) in place of the path the call used, which may be
 * an internal one (`/proc/self/fd/18/name` of a held directory). Other errors: their message.
 */
export function systemMessage(err: unknown, shownPath: string, actualPath?: string): string {
    if (!(err instanceof Error)) return String(err);
    const code = errorCode(err);
    const syscall = (err as { syscall?: unknown }).syscall;
    if (code === undefined || typeof syscall !== 'string') {
        return actualPath ? err.message.split(actualPath).join(q(shownPath)) : err.message;
    }
    // Node's text: "CODE: description, syscall 'path'"; the description alone is kept.
    const head = err.message.startsWith(`${code}: `) ? err.message.slice(code.length + 2) : err.message;
    const comma = head.indexOf(`, ${syscall}`);
    const description = causeOf(code) ?? (comma > 0 ? head.slice(0, comma) : code.toLowerCase());
    return `${code}: ${description}, ${syscall}${shownPath ? ` '${q(shownPath)}'` : ''}`;
}

/** Node's error code (`ENOENT`, `EACCES`, ...) of a thrown value, if it has one. */
export function errorCode(err: unknown): string | undefined {
    return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

/** Turns any thrown value into a ToolError, mapping common filesystem codes to their kinds. */
export function toToolError(err: unknown, path: string): ToolError {
    if (err instanceof ToolError) return err;
    const code = errorCode(err);
    const message = systemMessage(err, path);
    const where = path ? q(path) : 'the path';
    if (code === 'ENOENT') return errors.notFound('Path', message);
    if (code === 'EACCES' || code === 'EPERM') {
        return new ToolError('io', `Permission denied by the operating system on ${where}: ${message}`);
    }
    if (code === 'EROFS') return new ToolError('io', `Read-only filesystem: ${where} is on a filesystem mounted read-only (${message}).`);
    if (code === 'ENOSPC' || code === 'EDQUOT') return new ToolError('io', `No space left: ${where} could not be written (${message}).`);
    if (code === 'EBUSY') return new ToolError('io', `Busy: ${where} is a mount point or in use (${message}).`);
    if (code === 'ENOTDIR') return new ToolError('wrong_type', `Not a directory: a parent of ${where} is a file (${message}).`);
    if (code === 'EISDIR') return errors.wrongType(path, 'file', 'directory');
    return errors.io(path, err);
}

/**
 * Control characters but the line feed: escaped in every error message, whatever put them there.
 * Line feeds separate the lines of messages built that way (candidates of a failed edit); paths
 * in messages are quoted by the builders ({@link quotePath}), so none of them holds a raw one.
 */
const CONTROL_CHARS = /[\x00-\x09\x0b-\x1f\x7f]/g;

/** `message` with each control character but the line feed written as a `\\uXXXX` escape. */
export function escapeControls(message: string): string {
    return message.replace(CONTROL_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
