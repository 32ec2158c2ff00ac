import path from 'node:path';
import { AccessType, type Access } from '../../config/shared/configuration.js';

/**
 * Pure containment predicates on absolute, normalized paths. No I/O: the caller resolves real
 * paths first (see `resolve.ts`).
 */

/** True when `child` is `parent` or lies below it. `/a/bc` is not inside `/a/b`. */
export function isInside(child: string, parent: string): boolean {
    // Perf: paths in normal form (real paths, nearly every call) are compared as strings; a search
    // answered from the index asks this several times per link in the tree (56 in the Linux tree's).
    if (isNormal(child) && isNormal(parent)) {
        // Security: compare whole path components, so a sibling sharing a name prefix is outside.
        return parent === '/' || child === parent || (child.startsWith(parent) && child.charCodeAt(parent.length) === SLASH);
    }
    const rel = path.relative(parent, child);
    return rel === '' || (rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel));
}

const SLASH = 0x2f;

/** An absolute POSIX path in normal form: no empty, `.` or `..` component, no trailing `/` (but `/` itself). */
function isNormal(p: string): boolean {
    if (path.sep !== '/' || p.charCodeAt(0) !== SLASH) return false;
    if (p.charCodeAt(p.length - 1) === SLASH) return p.length === 1;
    if (p.includes('//')) return false;
    // Perf: most paths hold no component starting with a dot: two scans decide them.
    return !p.includes('/.') || (!p.includes('/./') && !p.includes('/../') && !p.endsWith('/.') && !p.endsWith('/..'));
}

/** The strongest access any root grants to `target`, or `undefined` when no root contains it. */
export function accessFor(target: string, roots: readonly Access[]): AccessType | undefined {
    let found: AccessType | undefined;
    for (const root of roots) {
        if (!isInside(target, root.path)) continue;
        if (root.type === AccessType.Write) return AccessType.Write;
        found = AccessType.Read;
    }
    return found;
}

/** True when `granted` allows an operation that needs `needed`. */
export function allows(granted: AccessType | undefined, needed: AccessType): boolean {
    return granted === AccessType.Write || (granted === AccessType.Read && needed === AccessType.Read);
}
