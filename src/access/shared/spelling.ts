import { decodeName, unquotePath } from '../../print/shared/byte-names.js';

/**
 * Path spellings of other systems, which models and clients send (Windows separators and drive
 * letters, `file:` URIs, a whole path in quotes). Pure: the caller decides whether the path is
 * foreign at all (a name that exists as written is taken as written) and does the I/O.
 *
 * Translated: a `file:` URI (to its decoded path), a path in quotes (to what is inside, the
 * escaped form tools print for odd names decoded), `\` separators (to `/`). Refused: drive
 * letters and UNC paths (this host has no drives), `file:` URIs of another host or without a
 * path. A path starting with `./` is never foreign: that is how a literal name is written.
 */
export interface ForeignSpelling {
    /** What the spelling is, as messages name it. */
    what: string;
    /** The path it stands for; `undefined` when refused. */
    path?: string;
    /** Why it is refused and what to write instead (when refused). */
    fix?: string;
}

const DRIVE = /^[A-Za-z]:(?:[\\/]|$)/;
const QUOTES = new Set(['"', "'", '`']);

/** The foreign spelling `input` uses, `null` for a plain path. Perf: a few character tests for a plain path. */
export function foreignSpelling(input: string): ForeignSpelling | null {
    if (input.startsWith('./')) return null;
    const first = input[0]!;
    if (input.length >= 2 && QUOTES.has(first) && input[input.length - 1] === first) return quoted(input);
    if (/^file:/i.test(input)) return fileUri(input);
    if (DRIVE.test(input)) return { what: `a Windows path with a drive letter (${input.slice(0, 2)})`, fix: 'this host has no drive letters: pass the path relative to the workspace (such as "src/main.ts") or an absolute path starting with "/"' };
    if (input.startsWith('\\\\')) return { what: 'a Windows network (UNC) path', fix: 'pass a path on this host, relative to the workspace or absolute from "/"' };
    if (input.includes('\\')) return { what: 'a path with Windows separators (\\)', path: input.replaceAll('\\', '/') };
    return null;
}

function quoted(input: string): ForeignSpelling {
    // The escaped form tools print for names with control characters or bytes that are not UTF-8.
    const inner = (input[0] === '"' ? unquotePath(input) : undefined) ?? input.slice(1, -1);
    const what = 'a path wrapped in quotes';
    if (inner === '') return { what, fix: 'pass the path without the quotes' };
    const nested = foreignSpelling(inner);
    if (nested === null) return { what, path: inner };
    if (nested.path === undefined) return { what: `${what}, holding ${nested.what}`, fix: nested.fix! };
    return { what: `${what}, holding ${nested.what}`, path: nested.path };
}

/** A `file:` URI (RFC 8089): `file:///abs/path` or `file://localhost/abs/path`, percent-decoded as bytes. */
function fileUri(input: string): ForeignSpelling {
    const what = 'a file: URI';
    let rest = input.slice(5);
    if (rest.startsWith('//')) {
        const slash = rest.indexOf('/', 2);
        const host = rest.slice(2, slash === -1 ? undefined : slash);
        if (host !== '' && host.toLowerCase() !== 'localhost') return { what: `${what} of the host "${host}"`, fix: 'only files of this host can be reached: pass a path on it, relative to the workspace or absolute from "/"' };
        rest = slash === -1 ? '' : rest.slice(slash);
    }
    // Query and fragment are not part of the path (a "#" or "?" in a name is percent-encoded).
    rest = rest.replace(/[?#].*$/s, '');
    if (!rest.startsWith('/')) return { what: `${what} without an absolute path`, fix: 'write it as file:///absolute/path, or pass the path itself' };
    if (/^\/[A-Za-z](?::|%3a)/i.test(rest)) return { what: `${what} with a Windows drive letter`, fix: 'this host has no drive letters: pass a path relative to the workspace or absolute from "/"' };
    const decoded = percentDecode(rest);
    if (decoded === undefined) return { what: `${what} with a broken percent escape`, fix: 'escape "%" as %25, or pass the path itself' };
    return { what, path: decoded };
}

function percentDecode(s: string): string | undefined {
    if (!s.includes('%')) return s;
    const bytes: number[] = [];
    const utf8 = Buffer.from(s, 'utf8');
    for (let i = 0; i < utf8.length; i++) {
        if (utf8[i] !== 0x25) {
            bytes.push(utf8[i]!);
            continue;
        }
        const hex = utf8.toString('latin1', i + 1, i + 3);
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) return undefined;
        bytes.push(parseInt(hex, 16));
        i += 2;
    }
    // Bytes that are not UTF-8 stay bytes (see print/shared/byte-names.ts).
    return decodeName(Buffer.from(bytes));
}
