/** access/contain.ts: the pure containment predicates access control is built on. */
import fc from 'fast-check';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { accessFor, allows, isInside } from '../../../src/access/shared/contain.js';
import { AccessType, type Access } from '../../../src/config/shared/configuration.js';

describe('isInside', () => {
    it('holds for the directory itself and anything below it', () => {
        expect(isInside('/a/b', '/a/b')).toBe(true);
        expect(isInside('/a/b/c', '/a/b')).toBe(true);
        expect(isInside('/a/b/c/d.txt', '/a/b')).toBe(true);
        expect(isInside('/a/b/..c', '/a/b')).toBe(true); // a name starting with two dots is a child
        expect(isInside('/anything', '/')).toBe(true);
    });

    it('compares whole components: a sibling sharing a name prefix, the parent and other trees are outside', () => {
        expect(isInside('/a/bc', '/a/b')).toBe(false);
        expect(isInside('/a/b.txt', '/a/b')).toBe(false);
        expect(isInside('/a', '/a/b')).toBe(false);
        expect(isInside('/', '/a/b')).toBe(false);
        expect(isInside('/x/a/b', '/a/b')).toBe(false);
    });

    it('agrees with a component-wise prefix test on random normalized paths', () => {
        const segment = fc.constantFrom('a', 'b', 'ab', '..a', 'a.', '.b');
        const abs = fc.array(segment, { maxLength: 4 }).map((s) => path.posix.join('/', ...s));
        fc.assert(
            fc.property(abs, abs, (child, parent) => {
                const c = child.split('/').filter(Boolean);
                const p = parent.split('/').filter(Boolean);
                const expected = p.length <= c.length && p.every((s, i) => s === c[i]);
                expect(isInside(child, parent)).toBe(expected);
            }),
            { seed: 9, numRuns: 2000 },
        );
    });
});

describe('isInside on any spelling', () => {
    /** The component-wise answer on the paths as the kernel reads them (`.`, `..` and repeated `/` resolved). */
    const byRelative = (child: string, parent: string): boolean => {
        const rel = path.relative(parent, child);
        return rel === '' || (rel !== '..' && !rel.startsWith('../') && !path.isAbsolute(rel));
    };

    it('gives what path.relative gives for normal and other spellings alike (`.`, `..`, `//`, trailing `/`)', () => {
        const segment = fc.constantFrom('a', 'b', 'ab', '..a', 'a.', '.b', '.', '..', '', 'a/', '/');
        const spelled = fc.array(segment, { maxLength: 5 }).map((s) => `/${s.join('/')}`);
        fc.assert(
            fc.property(spelled, spelled, (child, parent) => {
                expect(isInside(child, parent)).toBe(byRelative(child, parent));
            }),
            { seed: 21, numRuns: 5000 },
        );
        for (const [child, parent] of [
            ['/a/b/../c', '/a/b'],
            ['/a/b/./c', '/a/b'],
            ['/a//b/c', '/a/b'],
            ['/a/b/', '/a/b'],
            ['/a/b', '/a/b/'],
            ['/a/b/..', '/a/b'],
            ['/a/bc/', '/a/b'],
            ['/', '/'],
            ['//', '/'],
            ['/a', '/a/..'],
        ]) {
            expect(isInside(child!, parent!), `${child} in ${parent}`).toBe(byRelative(child!, parent!));
        }
    });
});

describe('accessFor', () => {
    const roots: Access[] = [
        { type: AccessType.Read, path: '/repo' },
        { type: AccessType.Write, path: '/repo/out' },
        { type: AccessType.Read, path: '/docs' },
    ];

    it('gives the strongest access of the roots that contain the path, in any order', () => {
        expect(accessFor('/repo/src/a.ts', roots)).toBe(AccessType.Read);
        expect(accessFor('/repo/out/x', roots)).toBe(AccessType.Write);
        expect(accessFor('/repo/out/x', [...roots].reverse())).toBe(AccessType.Write);
        expect(accessFor('/docs', roots)).toBe(AccessType.Read);
    });

    it('gives undefined outside every root, and for no roots', () => {
        expect(accessFor('/repository', roots)).toBeUndefined();
        expect(accessFor('/', roots)).toBeUndefined();
        expect(accessFor('/repo', [])).toBeUndefined();
    });
});

describe('allows', () => {
    it('write grants both, read grants read only, nothing grants nothing', () => {
        expect(allows(AccessType.Write, AccessType.Write)).toBe(true);
        expect(allows(AccessType.Write, AccessType.Read)).toBe(true);
        expect(allows(AccessType.Read, AccessType.Read)).toBe(true);
        expect(allows(AccessType.Read, AccessType.Write)).toBe(false);
        expect(allows(undefined, AccessType.Read)).toBe(false);
        expect(allows(undefined, AccessType.Write)).toBe(false);
    });
});
