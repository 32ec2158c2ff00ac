import { constants as C, type Stats } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { CREATE_FLAGS } from '../fs/shared/held.js';
import { makeDirectories } from '../fs/make-directories.js';

/**
 * Which folders the index trusts, and which of their entries it may remove. The index deletes and
 * overwrites files in a tree's folder, so that folder is never taken by its name alone: it must be
 * a directory (never a link), owned by this user and writable by no one else, in an index directory
 * of that kind too (the user's setting: a link there is followed), and either hold the marker the
 * index writes when it makes the folder or hold nothing but entries the index makes. Otherwise the
 * index refuses the folder and searches take the scan path.
 */

/** The file that says the index made its folder. */
const MARKER = '.llm-chat-file-index';

/** The names the index gives its entries (store.ts, build.ts, reopen.ts), by kind. */
export const GEN_NAME = /^gen-[0-9a-z]+-[0-9a-f]{8}$/;
export const SEGMENT_NAME = /^(seg|merged)-\d{4,}\.bin$/;
export const SNAPSHOT_NAME = /^snap-[0-9a-z]+-[0-9a-f]{8}-\d+\.bin$/;
export const TMP_NAME = /^(manifest|closed|build)\.\d+\.[0-9a-f]{8}(\.claim|\.stale)?\.tmp$/;
const FILE_NAMES = new Set(['manifest.json', 'closed.json', 'build.lock', MARKER]);

const uid = process.getuid?.();
/** Windows has no owner ids or group and other bits to check. */
const POSIX = process.platform !== 'win32';

/** Whether `st` (from lstat) is owned by this process's user. */
function owned(st: Stats): boolean {
    return uid === undefined || st.uid === uid;
}

/** Whether the entry `name` of a tree's folder (lstat `st`) is one the index makes: its name, its kind, this user's. */
export function madeByIndex(name: string, st: Stats): boolean {
    if (!owned(st)) return false;
    if (GEN_NAME.test(name)) return st.isDirectory();
    return st.isFile() && (FILE_NAMES.has(name) || SNAPSHOT_NAME.test(name) || TMP_NAME.test(name));
}

/** Whether `name` (lstat `st`) is an index entry that outlives its writer and is removed once old: a generation, a snapshot, a temporary file. */
export function removable(name: string, st: Stats): boolean {
    return madeByIndex(name, st) && !FILE_NAMES.has(name);
}

function refuse(what: string, p: string, why: string): never {
    throw new Error(`${what} ${p} ${why}: not used, searches take the scan path`);
}

/** Refuses `p` (lstat or stat `st`) unless it is a directory of this user that no one else may write. */
function checkDir(what: string, p: string, st: Stats): void {
    if (st.isSymbolicLink()) refuse(what, p, 'is a symbolic link');
    if (!st.isDirectory()) refuse(what, p, 'is not a directory');
    if (!owned(st)) refuse(what, p, `is owned by another user (uid ${st.uid})`);
    if (POSIX && (st.mode & 0o022) !== 0) refuse(what, p, `is writable by other users (mode ${(st.mode & 0o777).toString(8)})`);
}

/**
 * Makes or checks the tree's folder `dir` and its index directory (its parent), both mode 0700
 * when made. @throws Error naming the folder and why it is refused, or a failure to make it.
 */
export async function openIndexFolder(dir: string): Promise<void> {
    const parent = path.dirname(dir);
    await makeDirectories(parent, 0o700);
    checkDir('index directory', parent, await fsp.stat(parent));
    let made = true;
    try {
        await fsp.mkdir(dir, { mode: 0o700 });
    } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        made = false;
    }
    checkDir('index folder', dir, await fsp.lstat(dir));
    const marker = await fsp.lstat(path.join(dir, MARKER)).catch(() => null);
    if (marker !== null) {
        if (!madeByIndex(MARKER, marker)) refuse('index folder', dir, `holds a ${MARKER} the index did not write`);
        return;
    }
    // A folder without the marker (made before there was one, or by another process right now) is
    // the index's when everything in it is.
    if (!made) {
        for (const name of await fsp.readdir(dir)) {
            const st = await fsp.lstat(path.join(dir, name)).catch(() => null);
            if (st !== null && !madeByIndex(name, st)) refuse('index folder', dir, `holds entries the index did not make (${JSON.stringify(name)})`);
        }
    }
    await fsp.writeFile(path.join(dir, MARKER), 'made by the llm-chat-file search index\n', { flag: CREATE_FLAGS, mode: 0o600 }).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
    });
}

/**
 * Gives `file` mode 0600, created (or emptied) when `create`: for files a writer of another
 * library makes with its own mode (the watcher's snapshot). Never through a link.
 */
export async function makePrivate(file: string, create: boolean): Promise<void> {
    const fh = await fsp.open(file, create ? C.O_WRONLY | C.O_CREAT | C.O_TRUNC | C.O_NOFOLLOW : C.O_RDONLY | C.O_NOFOLLOW, 0o600);
    try {
        await fh.chmod(0o600);
    } finally {
        await fh.close();
    }
}
