import fs, { type Dirent } from 'node:fs';
import { EntryKind } from '../../src/search/shared/protocol.js';
import { heldPath } from '../../src/fs/shared/held.js';
import { decodeName, osPath } from '../../src/print/shared/byte-names.js';

/**
 * A directory's entries as Node's readdir gives them: names sorted, each with its kind. The
 * native layer of held-at.ts reads raw getdents64 records and must give exactly what the
 * held-path layer's `fs.readdirSync` gives (order, decoding, type-less entries), so that the walk
 * and scan behave the same on either.
 */

/** A directory's entries (`.` and `..` left out), sorted by name in UTF-16 code units, with their kinds ({@link EntryKind}). */
export interface Listing {
    names: string[];
    kinds: number[];
}

/** The entries `fs.readdirSync(dirPath, { withFileTypes: true })` gives, as a {@link Listing}; throws its errors. */
export function listPath(dirPath: string): Listing {
    let dirents: Dirent[] = fs.readdirSync(osPath(dirPath), { withFileTypes: true });
    // A name that is not UTF-8 came out with U+FFFD: the listing again as bytes (byte-names.ts).
    if (dirents.some((d) => d.name.includes('\uFFFD'))) {
        dirents = fs.readdirSync(osPath(dirPath), { withFileTypes: true, encoding: 'buffer' }).map((d) => Object.assign(d, { name: decodeName(d.name) }) as unknown as Dirent);
    }
    // Stable: names that decode alike (invalid UTF-8 shown as U+FFFD) keep readdir's byte order.
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const names = new Array<string>(dirents.length);
    const kinds = new Array<number>(dirents.length);
    for (let i = 0; i < dirents.length; i++) {
        const d = dirents[i]!;
        names[i] = d.name;
        kinds[i] = kindOf(d);
    }
    return { names, kinds };
}

function kindOf(d: Pick<Dirent, 'isDirectory' | 'isFile' | 'isSymbolicLink'>): number {
    return d.isDirectory() ? EntryKind.Dir : d.isFile() ? EntryKind.File : d.isSymbolicLink() ? EntryKind.Link : EntryKind.Other;
}

// linux_dirent64: d_ino u64, d_off s64, d_reclen u16, d_type u8, d_name (NUL-terminated, padded to 8 bytes).
const RECLEN = 16;
const TYPE = 18;
const NAME = 19;
const DT_FIFO = 1;
const DT_CHR = 2;
const DT_DIR = 4;
const DT_BLK = 6;
const DT_REG = 8;
const DT_LNK = 10;
const DT_SOCK = 12;

/** An entry being listed: its kind (-1: to be lstat'ed) and, when needed, the bytes of its name. */
interface Entry {
    name: string;
    kind: number;
    raw: Buffer | null;
}

const byName = (a: Entry, b: Entry): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const byBytes = (a: Entry, b: Entry): number => Buffer.compare(a.raw!, b.raw!);
/** Equal names both contain U+FFFD, so both kept their bytes. */
const byNameThenBytes = (a: Entry, b: Entry): number => byName(a, b) || byBytes(a, b);

/**
 * The records of a directory's getdents64 calls (`struct linux_dirent64`) made into its
 * {@link Listing} as Node's readdir gives it (held-at.ts's native layer; the tests also give it
 * records without a type).
 */
export class DirentRecords {
    readonly #entries: Entry[] = [];
    #unknown: Entry[] | null = null;
    /** Some name holds U+FFFD (perhaps invalid UTF-8): names may decode alike. */
    #lossy = false;

    /** Adds the records in the first `got` bytes of `buf` (`.` and `..` left out); `buf` may be reused after. */
    add(buf: Buffer, got: number): void {
        for (let o = 0; o < got; ) {
            const reclen = buf.readUInt16LE(o + RECLEN);
            // The name's NUL is within the record's last 8 bytes (records are padded to 8; the
            // padding after the NUL is not cleared).
            let end = Math.max(o + NAME, o + reclen - 8);
            while (buf[end] !== 0) end++;
            const type = buf[o + TYPE]!;
            const start = o + NAME;
            o += reclen;
            const len = end - start;
            if (buf[start] === 0x2e && (len === 1 || (len === 2 && buf[start + 1] === 0x2e))) continue;
            // UTF-8; a name that is not valid UTF-8 with each invalid byte escaped, as the library
            // holds such names (print/shared/byte-names.ts), so it can be opened and printed back.
            let name = buf.toString('utf8', start, end);
            const lossy = name.includes('\uFFFD');
            if (lossy) name = decodeName(buf.subarray(start, end));
            const e: Entry = { name, kind: kindOfType(type), raw: null };
            // Names that decode alike are ordered by their bytes, as readdir (libuv's scandir,
            // sorted by strcmp) leaves them; an entry without a type is lstat'ed in that order too.
            if (e.kind < 0 || lossy) {
                e.raw = Buffer.from(buf.subarray(start, end));
                if (e.kind < 0) (this.#unknown ??= []).push(e);
                if (lossy) this.#lossy = true;
            }
            this.#entries.push(e);
        }
    }

    /**
     * The listing of the held directory `dirFd` the records came from: an entry without a type
     * (DT_UNKNOWN, or one libuv does not map) is lstat'ed through the held path as Node's readdir
     * does, whose error fails the listing as it fails that readdir.
     */
    listing(dirFd: number): Listing {
        const entries = this.#entries;
        if (this.#unknown !== null) {
            this.#unknown.sort(byBytes);
            for (const e of this.#unknown) e.kind = kindOf(fs.lstatSync(osPath(`${heldPath(dirFd)}/${e.name}`)));
        }
        entries.sort(this.#lossy ? byNameThenBytes : byName);
        const names = new Array<string>(entries.length);
        const kinds = new Array<number>(entries.length);
        for (let i = 0; i < entries.length; i++) {
            names[i] = entries[i]!.name;
            kinds[i] = entries[i]!.kind;
        }
        return { names, kinds };
    }
}

/** The entry kind of a d_type as libuv maps it (FIFOs, devices and sockets are Other); -1 when it must be lstat'ed. */
function kindOfType(type: number): number {
    switch (type) {
        case DT_DIR:
            return EntryKind.Dir;
        case DT_REG:
            return EntryKind.File;
        case DT_LNK:
            return EntryKind.Link;
        case DT_FIFO:
        case DT_CHR:
        case DT_BLK:
        case DT_SOCK:
            return EntryKind.Other;
        default:
            return -1;
    }
}
