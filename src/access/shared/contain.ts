import path from 'node:path';
import { AccessType, type Access } from '../../config/shared/configuration.js';

/**
 * Pure containment predicates on absolute, normalized paths. No I/O: the caller resolves real
 * paths first (see `resolve.ts`).
 */

/** True when `child` is `parent` or lies below it. `/a/bc` is not inside `/a/b`. */
export function isInside(child: string, parent: string): boolean {
    // Security: compare whole path components, so a sibling sharing a name prefix is outside.
    const rel = path.relative(parent, child);
    return rel === '' || (rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel));
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
