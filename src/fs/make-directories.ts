import fsp from 'node:fs/promises';
import path from 'node:path';
import { osPath } from '../print/shared/byte-names.js';

/**
 * Makes `abs` (a name whose invalid bytes are held as by byte-names.ts) and its missing parents with `mode`, one level at a time, as `mkdir -p` does.
 * Not `mkdir`'s `recursive` option: on Node 20 it loops without end where a parent refuses new
 * entries with ENOENT (anywhere under /proc), which would hang the call and hold one of libuv's
 * threads for good.
 * @returns false when `abs` exists and is not a directory.
 * @throws the system error of the first level that cannot be made (ENOTDIR when a parent is a file).
 */
export async function makeDirectories(abs: string, mode = 0o777): Promise<boolean> {
    const missing: string[] = [];
    for (let p = abs; ; p = path.dirname(p)) {
        let isDir: boolean;
        try {
            isDir = (await fsp.stat(osPath(p))).isDirectory();
        } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(p) === p) throw err;
            missing.push(p);
            continue;
        }
        if (p === abs) return isDir;
        if (!isDir) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${abs}'`), { code: 'ENOTDIR', path: p });
        break;
    }
    for (const dir of missing.reverse()) {
        await fsp.mkdir(osPath(dir), { mode }).catch((err: NodeJS.ErrnoException) => {
            if (err.code !== 'EEXIST') throw err;
        });
    }
    return (await fsp.stat(osPath(abs))).isDirectory();
}
