import { READ_NOFOLLOW_FLAGS, WRITE_NOFOLLOW_FLAGS } from './shared/held.js';
import fs from 'node:fs/promises';
import { errorCode } from '../errors/shared/errors.js';
import { debrisKind, isDebrisName, isStaleDebris, BACKUP_MAGIC } from './shared/debris.js';
import type { HeldDirectory } from './held-directory.js';
import { overwrite } from './overwrite.js';
import { osPath } from '../print/shared/byte-names.js';

/** Cleaning the stale temporary and backup files interrupted writes left next to a file (see debris.ts). */

/**
 * Removes the stale temporary files of the held directory (see `fs/debris.ts`): a stale `.tmp`
 * is deleted; a stale `.bak` is first written back onto the file it names (in place, synced),
 * undoing a write that was interrupted part way. Best effort: what cannot be cleaned stays.
 * @returns the names of the files restored from a backup.
 */
export async function cleanStaleDebris(dir: HeldDirectory): Promise<Set<string>> {
    const restored = new Set<string>();
    let names: string[];
    try {
        names = await fs.readdir(osPath(dir.path));
    } catch {
        return restored;
    }
    for (const entry of names) {
        if (!isDebrisName(entry) || !isStaleDebris(entry)) continue;
        const at = dir.join(entry);
        if (debrisKind(entry) === 'bak') {
            const target = await restoreBackup(dir, at);
            if (target === null) continue;
            if (target !== '') restored.add(target);
        }
        await fs.unlink(osPath(at)).catch(() => undefined);
    }
    return restored;
}

/**
 * Writes the old content kept in the backup `at` back onto its file. Returns the file's name,
 * `''` when there is nothing to restore (no such file any more, not a backup), or `null` when
 * the restore failed (the backup is then kept).
 */
async function restoreBackup(dir: HeldDirectory, at: string): Promise<string | null> {
    let bytes: Buffer;
    try {
        const fh = await fs.open(osPath(at), READ_NOFOLLOW_FLAGS);
        try {
            if (!(await fh.stat()).isFile()) return '';
            bytes = await fh.readFile();
        } finally {
            await fh.close();
        }
    } catch {
        return null;
    }
    const eol = bytes.indexOf(0x0a);
    const head = eol < 0 ? '' : bytes.subarray(0, eol).toString('utf8');
    if (!head.startsWith(BACKUP_MAGIC)) return '';
    let name: unknown;
    try {
        name = JSON.parse(head.slice(BACKUP_MAGIC.length));
    } catch {
        return '';
    }
    if (typeof name !== 'string' || name === '' || name.includes('/') || name === '.' || name === '..') return '';
    try {
        const fh = await fs.open(osPath(dir.join(name)), WRITE_NOFOLLOW_FLAGS);
        try {
            if (!(await fh.stat()).isFile()) return '';
            await overwrite(fh, bytes.subarray(eol + 1));
        } finally {
            await fh.close();
        }
    } catch (err) {
        return errorCode(err) === 'ENOENT' || errorCode(err) === 'ELOOP' ? '' : null;
    }
    return name;
}
