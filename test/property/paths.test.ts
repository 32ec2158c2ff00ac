/**
 * Property tests of path containment: the pure predicate against a reference model, and the
 * I/O check (WorkspaceView.check) on a real tree full of symlinks, which must never grant a path
 * whose real location is outside the accesses.
 */
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { accessFor, allows, isInside } from '../../src/access/shared/contain.js';
import { AccessType, type Access } from '../../src/config/shared/configuration.js';
import { ToolError } from '../../src/errors/shared/errors.js';
import { WorkspaceView } from '../../src/access/workspace.js';
import { makePackage, snapshot, tempDir } from '../support/helpers.js';

const SEED = 20250417;
let triedInputs = 0;

afterAll(() => {
    console.log(`[property-paths] inputs tried: ${triedInputs}`);
});

/** Reference model: components of an absolute POSIX path after `.`/`..`/empty segments are applied. */
function components(p: string): string[] {
    const out: string[] = [];
    for (const seg of p.split('/')) {
        if (seg === '' || seg === '.') continue;
        if (seg === '..') out.pop();
        else out.push(seg);
    }
    return out;
}

/** Reference model of "child is parent or below it": whole components, never string prefixes. */
function modelInside(child: string, parent: string): boolean {
    const c = components(child);
    const p = components(parent);
    return p.length <= c.length && p.every((seg, i) => c[i] === seg);
}

// Segments chosen to collide: prefixes of each other, dots, Unicode that differs only by normalization.
const segment = fc.constantFrom('a', 'ab', 'a-b', 'a.b', 'b', '..', '.', '', 'caf\u00e9', 'cafe\u0301', 'A', ' a', 'a ', '...');
const absPath = fc
    .tuple(fc.array(segment, { maxLength: 7 }), fc.constantFrom('', '/', '//', '/.', '/..'))
    .map(([segs, tail]) => '/' + segs.join('/') + tail);

describe('isInside (pure containment predicate)', () => {
    it('agrees with a component-wise reference model on random paths with .., ., prefixes and trailing slashes', () => {
        fc.assert(
            fc.property(absPath, absPath, (child, parent) => {
                triedInputs++;
                expect(isInside(child, parent)).toBe(modelInside(child, parent));
            }),
            { seed: SEED, numRuns: 4000 },
        );
    });

    it('agrees with the model when the child is built below the parent', () => {
        fc.assert(
            fc.property(absPath, fc.array(segment, { maxLength: 5 }), fc.constantFrom('', '/'), (parent, below, tail) => {
                triedInputs++;
                const child = parent + '/' + below.join('/') + tail;
                expect(isInside(child, parent)).toBe(modelInside(child, parent));
            }),
            { seed: SEED, numRuns: 4000 },
        );
    });

    it('keeps a sibling that shares a name prefix outside', () => {
        expect(isInside('/w/project-secret/x', '/w/project')).toBe(false);
        expect(isInside('/w/projectx', '/w/project')).toBe(false);
        expect(isInside('/w/project/../project-secret', '/w/project')).toBe(false);
        expect(isInside('/w/project/', '/w/project')).toBe(true);
        expect(isInside('/w/project', '/w/project/')).toBe(true);
        expect(isInside('/w/cafe\u0301/x', '/w/caf\u00e9')).toBe(false);
    });

    it('grants the strongest access of the roots that contain a path, and nothing outside them', () => {
        const access = fc.record({ type: fc.constantFrom(AccessType.Read, AccessType.Write), path: absPath.map((p) => path.resolve(p)) });
        fc.assert(
            fc.property(fc.array(access, { maxLength: 4 }), absPath, fc.constantFrom(AccessType.Read, AccessType.Write), (roots, target, needed) => {
                triedInputs++;
                const resolved = path.resolve(target);
                const containing = roots.filter((r) => modelInside(resolved, r.path));
                const expected = containing.some((r) => r.type === AccessType.Write)
                    ? AccessType.Write
                    : containing.length > 0
                      ? AccessType.Read
                      : undefined;
                expect(accessFor(resolved, roots)).toBe(expected);
                expect(allows(accessFor(resolved, roots), needed)).toBe(
                    expected === AccessType.Write || (expected === AccessType.Read && needed === AccessType.Read),
                );
            }),
            { seed: SEED, numRuns: 3000 },
        );
    });
});

describe('WorkspaceView.check on a tree with symlinks to outside', () => {
    let base: string;
    let work: string;
    let ro: string;
    let outside: string;
    let accesses: Access[];

    // A fresh tree per test: helpers.tempDir directories are removed after each test.
    beforeEach(() => {
        base = tempDir('lcf-proppaths-');
        work = path.join(base, 'work');
        ro = path.join(base, 'ro');
        outside = path.join(base, 'outside');
        for (const d of [work, ro, outside, path.join(work, 'sub', 'deep'), path.join(outside, 'inner'), path.join(base, 'work-secret')]) {
            fs.mkdirSync(d, { recursive: true });
        }
        fs.writeFileSync(path.join(outside, 'canary.txt'), 'secret');
        fs.writeFileSync(path.join(base, 'work-secret', 'canary.txt'), 'secret');
        fs.writeFileSync(path.join(work, 'a.txt'), 'a');
        fs.writeFileSync(path.join(ro, 'r.txt'), 'r');
        const link = (target: string, at: string): void => fs.symlinkSync(target, path.join(base, at));
        link(outside, 'work/link-dir');
        link(path.join(outside, 'canary.txt'), 'work/link-file');
        link('../outside/canary.txt', 'work/rel-link-file');
        link(path.join(outside, 'missing', 'new.txt'), 'work/dangling-out');
        link('../../outside/inner', 'work/sub/up-out');
        link('.', 'work/loop');
        link('..', 'work/sub/parent');
        link(path.join(work, 'sub'), 'work/link-sub');
        link(ro, 'work/link-ro');
        link(work, 'ro/link-work');
        link(path.join(base, 'work-secret'), 'work/link-sibling');
        link('chain-b', 'work/chain-a');
        link('link-dir', 'work/chain-b');
        link('self-loop-b', 'work/self-loop-a');
        link('self-loop-a', 'work/self-loop-b');
        accesses = [
            { type: AccessType.Write, path: work },
            { type: AccessType.Read, path: ro },
        ];
    });

    /** Independent model of where a path really lands: realpath of the nearest existing entry plus the rest. */
    function landing(abs: string, followFinal: boolean): string | undefined {
        if (!followFinal) {
            const parent = landing(path.dirname(abs), true);
            return parent === undefined ? undefined : path.join(parent, path.basename(abs));
        }
        try {
            return fs.realpathSync(abs);
        } catch {
            // Missing or dangling: whatever the real path is, it is decided by entries that exist.
            return undefined;
        }
    }

    const realRoots = (): Access[] => accesses.map((a) => ({ type: a.type, path: fs.realpathSync(a.path) }));

    const names = ['a.txt', 'sub', 'deep', 'link-dir', 'link-file', 'rel-link-file', 'dangling-out', 'up-out', 'loop', 'parent', 'link-sub', 'link-ro', 'link-work', 'link-sibling', 'chain-a', 'self-loop-a', 'canary.txt', 'inner', 'new.txt', '..', '.', '', 'work', 'work-secret', 'outside', 'ro'];
    const relPath = fc
        .tuple(fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 6 }), fc.constantFrom('', '/'))
        .map(([segs, tail]) => segs.join('/') + tail);

    it('never grants a path whose real location is outside the accesses (random relative and absolute paths)', async () => {
        await fc.assert(
            fc.asyncProperty(
                relPath,
                fc.constantFrom('work', 'ro', 'base'),
                fc.boolean(),
                fc.constantFrom(AccessType.Read, AccessType.Write),
                fc.boolean(),
                async (rel, rootName, absolute, needed, followFinal) => {
                    triedInputs++;
                    const viewRoot = rootName === 'work' ? work : rootName === 'ro' ? ro : work;
                    const input = absolute ? path.join(rootName === 'base' ? base : viewRoot, rel) + (rel.endsWith('/') ? '/' : '') : rel;
                    if (input === '') return;
                    const view = new WorkspaceView(viewRoot, accesses, [], true);
                    let checked;
                    try {
                        checked = await view.check(input, needed, 'test', { followFinal });
                    } catch (err) {
                        // Refusals are errors with a message, never crashes of another kind.
                        if (!(err instanceof ToolError)) expect(String((err as { code?: string }).code)).toMatch(/ELOOP|ENAMETOOLONG/);
                        return;
                    }
                    const roots = realRoots();
                    // The path the operation acts on is inside an access that allows it...
                    expect(allows(accessFor(checked.real, roots), needed)).toBe(true);
                    // ...and really lands there: for existing entries, the kernel agrees.
                    const real = landing(checked.abs, followFinal);
                    if (real !== undefined) {
                        expect(real).toBe(checked.real);
                        expect(allows(accessFor(real, roots), needed)).toBe(true);
                    } else {
                        // Not existing: its nearest existing ancestor has no symlink left in it.
                        let p = checked.real;
                        while (!fs.existsSync(p)) p = path.dirname(p);
                        expect(fs.realpathSync(p)).toBe(p);
                    }
                },
            ),
            { seed: SEED, numRuns: 1500 },
        );
    });

    it('decides missing paths by the nearest existing ancestor, and refuses through dangling links', async () => {
        const view = new WorkspaceView(work, accesses, [], true);
        await expect(view.check('link-dir/a/b/c.txt', AccessType.Write, 'test')).rejects.toThrow(/outside/);
        await expect(view.check('dangling-out', AccessType.Write, 'test')).rejects.toThrow(/outside/);
        await expect(view.check('dangling-out/x/y', AccessType.Write, 'test')).rejects.toThrow(/outside/);
        await expect(view.check('sub/up-out/x.txt', AccessType.Write, 'test')).rejects.toThrow(/outside/);
        await expect(view.check('link-ro/new.txt', AccessType.Write, 'test')).rejects.toThrow(/read-only/);
        const fresh = await view.check('new/a/b.txt', AccessType.Write, 'test');
        expect(fresh.real).toBe(path.join(work, 'new', 'a', 'b.txt'));
        const viaLink = await view.check('link-sub/deep/n.txt', AccessType.Write, 'test');
        expect(viaLink.real).toBe(path.join(work, 'sub', 'deep', 'n.txt'));
    });
});

describe('hostile path strings through the tools', () => {
    const SECRET = 'SIBLING-SECRET-91c2';

    function setupTree(): { base: string; work: string; fx: ReturnType<typeof makePackage> } {
        const base = tempDir('lcf-hostile-paths-');
        const work = path.join(base, 'work');
        fs.mkdirSync(path.join(work, 'sub'), { recursive: true });
        fs.writeFileSync(path.join(work, 'sub', 'a.txt'), 'a\n');
        fs.mkdirSync(path.join(base, 'work-secret'));
        fs.writeFileSync(path.join(base, 'work-secret', 's.txt'), `${SECRET}\n`);
        fs.mkdirSync(path.join(base, 'workx'));
        fs.writeFileSync(path.join(base, 'workx', 's.txt'), `${SECRET}\n`);
        return { base, work, fx: makePackage(work) };
    }

    const pathCalls = (p: string): [string, Record<string, unknown>][] => [
        ['read_file', { paths: [p] }],
        ['write_file', { path: p, content: 'x' }],
        ['replace_file_lines', { path: p, content: 'x', start_line: 1 }],
        ['insert_file_content', { path: p, content: 'x' }],
        ['replace_file_content', { path: p, old_content: 'a', new_content: 'b' }],
        ['list_directory', { path: p }],
        ['search_entries', { path: p }],
        ['entry_info', { path: p }],
        ['delete_file', { path: p, recursive: true }],
        ['create_folder', { path: p }],
        ['move_file', { source: p, destination: 'moved' }],
        ['move_file', { source: 'sub/a.txt', destination: p }],
        ['switch_workspace', { path: p }],
    ];

    it('rejects empty paths and NUL bytes in every tool with a message naming the problem', async () => {
        const { work, fx } = setupTree();
        const before = snapshot(work);
        for (const [p, message] of [
            ['', /non-empty path.*"\."/],
            ['sub/a.txt\0.png', /NUL byte/],
            ['\0', /NUL byte/],
        ] as const) {
            for (const [tool, args] of pathCalls(p)) {
                triedInputs++;
                const [r] = await fx.run(tool, args);
                expect(r!.status, `${tool} ${JSON.stringify(args)}`).toBe('error');
                expect(r!.result, tool).toMatch(message);
            }
        }
        expect(snapshot(work)).toEqual(before);
    });

    it('rejects .. chains and siblings that share a name prefix, reading and writing nothing there', async () => {
        const { base, work, fx } = setupTree();
        const outsideBefore = snapshot(path.join(base, 'work-secret'));
        const hostile = [
            '../work-secret/s.txt',
            'sub/../../work-secret/s.txt',
            './../work/../work-secret/s.txt',
            `${'../'.repeat(30)}${base.slice(1)}/work-secret/s.txt`,
            `${work}-secret/s.txt`,
            `${work}x/s.txt`,
            `${work}/../workx/s.txt`,
            `${work}/sub/../../work-secret/`,
            '..',
            '../',
            '../work-secret',
        ];
        for (const p of hostile) {
            for (const [tool, args] of pathCalls(p)) {
                triedInputs++;
                const results = await fx.run(tool, args);
                for (const r of results) {
                    expect(r.status, `${tool} ${JSON.stringify(args)}`).toBe('error');
                    expect(r.result, `${tool} ${JSON.stringify(args)}`).toMatch(/outside the configured|access root/);
                    expect(r.result).not.toContain(SECRET);
                }
            }
        }
        expect(snapshot(path.join(base, 'work-secret'))).toEqual(outsideBefore);
        expect(fs.readdirSync(path.join(base, 'workx'))).toEqual(['s.txt']);
    });

    it('accepts .. chains and trailing slashes that stay inside', async () => {
        const { work, fx } = setupTree();
        const [r] = await fx.run('read_file', { paths: ['sub/../sub/./a.txt'] });
        expect(r!.status).toBe('success');
        const [l] = await fx.run('list_directory', { path: 'sub/' });
        expect(l!.result).toBe('sub/a.txt');
        const [l2] = await fx.run('list_directory', { path: `${work}/` });
        expect(l2!.status).toBe('success');
        const [w] = await fx.run('write_file', { path: 'sub/../new.txt', content: 'n' });
        expect(w!.status).toBe('success');
        expect(fs.readFileSync(path.join(work, 'new.txt'), 'utf8')).toBe('n');
    });

    it('treats names that differ only by Unicode normalization as different entries when both exist; one given in the other form finds the one entry', async () => {
        const base = tempDir('lcf-unicode-');
        const nfc = path.join(base, 'caf\u00e9');
        const nfd = path.join(base, 'cafe\u0301');
        fs.mkdirSync(nfc);
        fs.mkdirSync(nfd);
        fs.writeFileSync(path.join(nfc, 'r\u00e9sum\u00e9.txt'), 'composed\n');
        fs.writeFileSync(path.join(nfd, 'secret.txt'), `${SECRET}\n`);
        const fx = makePackage(nfc);
        // The NFD sibling looks the same but is another directory, outside the access.
        for (const p of [path.join(nfd, 'secret.txt'), '../cafe\u0301/secret.txt']) {
            const [r] = await fx.run('read_file', { paths: [p] });
            expect(r!.status).toBe('error');
            expect(r!.result).toMatch(/outside the configured/);
            expect(r!.result).not.toContain(SECRET);
            const [w] = await fx.run('write_file', { path: p, content: 'x' });
            expect(w!.status).toBe('error');
        }
        // The file is found by its own name, and by the other normalization (one entry matches it).
        const [ok] = await fx.run('read_file', { paths: ['r\u00e9sum\u00e9.txt'] });
        expect(ok!.result).toContain('composed');
        const [other] = await fx.run('read_file', { paths: ['re\u0301sume\u0301.txt'] });
        expect(other!.status).toBe('success');
        expect(other!.result).toBe(`--- ${nfc}/r\u00e9sum\u00e9.txt (lines 1-1 of 1) ---\ncomposed\n`);
        expect(fs.readFileSync(path.join(nfd, 'secret.txt'), 'utf8')).toBe(`${SECRET}\n`);
    });
});
