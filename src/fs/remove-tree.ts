import fs from 'node:fs/promises';
import { toToolError, ToolError } from '../errors/shared/errors.js';
import { quotePath } from '../print/shared/display.js';
import { isHeldPath } from './shared/held.js';
import { holdSubdirectory, type HeldDirectory } from './held-directory.js';
import { DirectoryCursor } from './directory-cursor.js';
import { decodeName, osPath } from '../print/shared/byte-names.js';

/** A recursive delete that never follows a link, through held directories. */

/** A recursive delete that stopped part way; `entry` is the failure on the entry it stopped at. */
export class PartialRemoval extends ToolError {
    constructor(
        readonly entry: ToolError,
        message: string,
    ) {
        super(entry.kind, message);
    }
}

/**
 * Removes the entry `name` of the held directory `dir`, recursively for a directory, never
 * following a link: each subdirectory is opened without following links and emptied through its
 * own descriptor, so a subdirectory swapped for a link meanwhile cannot redirect the removal.
 * Open descriptors stay bounded whatever the depth ({@link DirectoryCursor}).
 * @throws ToolError naming the first entry that could not be removed (relative to `shownPath`)
 *   and its cause; what was removed before stays removed.
 */
export async function removeTree(dir: HeldDirectory, name: string, shownPath = name): Promise<void> {
    const target = dir.join(name);
    const st = await fs.lstat(osPath(target));
    if (!st.isDirectory()) return fs.unlink(osPath(target));
    let removed = 0;
    let where = shownPath;
    const fail = (err: unknown): never => {
        if (err instanceof ToolError) throw err;
        const cause = toToolError(err, where);
        throw new PartialRemoval(cause, `Could not delete all of ${quotePath(shownPath)}: ${cause.message} ${removed} entries inside it were removed before that; the rest is still there.`);
    };
    // Security: opened with O_NOFOLLOW: a link put in its place is refused, not followed.
    const start = await holdSubdirectory(dir, name).catch(fail);
    const cursor = DirectoryCursor.at(start);
    try {
        if (!isHeldPath(start.path)) {
            await fs.rm(osPath(target), { recursive: true }).catch(fail);
            return;
        }
        const empty = async (rel: string): Promise<void> => {
            for (const entry of (await fs.readdir(osPath(cursor.path), { encoding: 'buffer' })).map(decodeName)) {
                where = `${rel}/${entry}`;
                const at = cursor.join(entry);
                const est = await fs.lstat(osPath(at));
                if (est.isDirectory()) {
                    await cursor.descend(entry, est);
                    try {
                        await empty(`${rel}/${entry}`);
                    } finally {
                        await cursor.ascend();
                    }
                    where = `${rel}/${entry}`;
                    await fs.rmdir(osPath(cursor.join(entry)));
                } else {
                    await fs.unlink(osPath(at));
                }
                removed++;
            }
        };
        await empty(shownPath).catch(fail);
    } finally {
        await cursor.close();
    }
    where = shownPath;
    await fs.rmdir(osPath(target)).catch(fail);
}
