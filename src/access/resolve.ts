import fs from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from '../errors/shared/errors.js';

/**
 * The I/O half of access control: turning a path into the real path the kernel would use.
 */

/**
 * Real path of `abs`: symlinks resolved in every existing component; for a path that does not
 * exist yet, the nearest existing ancestor's real path plus the missing components.
 * With `followFinal: false` the last component is not resolved (to act on a link itself).
 */
export async function realPathOf(abs: string, followFinal = true, depth = 0): Promise<string> {
    if (!followFinal) {
        const parent = path.dirname(abs);
        if (parent === abs) return abs;
        return path.join(await realPathOf(parent, true), path.basename(abs));
    }
    const missing: string[] = [];
    let current = abs;
    for (;;) {
        try {
            const real = await fs.realpath(current);
            return missing.length === 0 ? real : path.join(real, ...missing.reverse());
        } catch (err) {
            const code = errorCode(err);
            // A dangling symlink or a missing component: walk up to the nearest existing ancestor.
            if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
            const parent = path.dirname(current);
            if (parent === current) return abs;
            // Security: a dangling symlink's target must decide, not its own location. readlink it.
            const linkTarget = await fs.readlink(current).catch(() => undefined);
            if (linkTarget !== undefined) {
                // Security: a relative target is relative to the directory the link really sits in,
                // not to the (possibly linked) path used to reach it.
                const linkDir = await fs.realpath(parent).catch(() => parent);
                const resolved = path.resolve(linkDir, linkTarget);
                if (depth >= 40) throw Object.assign(new Error(`Too many levels of symbolic links: ${abs}`), { code: 'ELOOP' });
                if (resolved !== current) {
                    const rest = [...missing].reverse();
                    return realPathOf(rest.length === 0 ? resolved : path.join(resolved, ...rest), true, depth + 1);
                }
            }
            missing.push(path.basename(current));
            current = parent;
        }
    }
}
