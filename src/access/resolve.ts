import fs from 'node:fs/promises';
import path from 'node:path';
import { errorCode, errors } from '../errors/shared/errors.js';
import { decodeName, hasEscapedBytes, osPath } from '../print/shared/byte-names.js';
import { quotePath } from '../print/shared/display.js';

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
            const real = await realpath(current);
            return missing.length === 0 ? real : path.join(real, ...missing.reverse());
        } catch (err) {
            const code = errorCode(err);
            // A dangling symlink or a missing component: walk up to the nearest existing ancestor.
            if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
            const parent = path.dirname(current);
            if (parent === current) return abs;
            // Security: a dangling symlink's target must decide, not its own location. readlink it.
            const linkTarget = await fs.readlink(osPath(current), { encoding: 'buffer' }).then(decodeName, () => undefined);
            if (linkTarget !== undefined) {
                // Security: a relative target is relative to the directory the link really sits in,
                // not to the (possibly linked) path used to reach it.
                const linkDir = await realpath(parent).catch(() => parent);
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

/** fs.realpath for paths that may hold bytes that are not UTF-8 (print/shared/byte-names.ts). */
export async function realpath(p: string): Promise<string> {
    const real = await fs.realpath(osPath(p));
    // Perf: the byte form only when a name on the way may not be UTF-8 (Node showed U+FFFD).
    return hasEscapedBytes(p) || real.includes('\uFFFD') ? decodeName(await fs.realpath(osPath(p), { encoding: 'buffer' })) : real;
}

/** True when an entry exists at `abs` (a link counts, whatever it points to). */
export function entryExists(abs: string): Promise<boolean> {
    return fs.lstat(osPath(abs)).then(() => true, () => false);
}

/**
 * `abs`, or the one existing path that differs from it only in Unicode normalization (a name
 * written composed, NFC, stored decomposed, NFD, as macOS stores names; or the other way round),
 * component by component. When no entry matches, `abs` as given (a new name keeps its spelling).
 * Perf: nothing but a character scan for a path of ASCII only; directories are listed only for
 * a missing component with a non-ASCII character.
 * @throws ToolError (invalid_argument) when two entries of one directory match a component.
 */
export async function matchNormalization(abs: string, tool: string): Promise<string> {
    if (!/[^\x00-\x7f]/.test(abs) || (await entryExists(abs))) return abs;
    const parts = abs.split('/');
    let here = '';
    for (let i = 1; i < parts.length; i++) {
        const part = parts[i]!;
        const next = `${here}/${part}`;
        if (!/[^\x00-\x7f]/.test(part) || (await entryExists(next))) {
            here = next;
            continue;
        }
        const names = await fs.readdir(osPath(here === '' ? '/' : here), { encoding: 'buffer' }).then((l) => l.map(decodeName), () => [] as string[]);
        const want = part.normalize('NFC');
        const found = names.filter((n) => n.normalize('NFC') === want);
        if (found.length === 0) return abs;
        if (found.length > 1) {
            throw errors.invalidArgument(tool, `${quotePath(next)} matches ${found.length} entries whose names differ only in Unicode normalization (${found.map(codePoints).join(', ')}); pass one of them exactly as written here, quotes included.`);
        }
        here = `${here}/${found[0]}`;
    }
    return here;
}

/** A name quoted with every non-ASCII character as `\uXXXX`, so forms that look alike read apart. */
function codePoints(name: string): string {
    return JSON.stringify(name).replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
