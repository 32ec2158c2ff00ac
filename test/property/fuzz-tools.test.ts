/**
 * Fuzz: random JSON arguments (hostile paths, random values, random shapes) to all the tools on a
 * tree that contains symlinks to an outside directory holding a canary file. Every call returns
 * results `{ status, result: non-empty string }` and never throws; no result ever contains the
 * canary's secret; nothing outside the accesses (nor in the read-only access) is written,
 * created or deleted.
 */
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AccessType, SearchConfiguration } from '../../src/index.js';
import { REFERENCE_TOOL_NAMES } from '../../src/tools/catalog.js';
import { makePackage, snapshot, tempDir } from '../support/helpers.js';

const SEED = 13_0_13;
const NUM_RUNS = 800;
const SECRET = 'CANARY-fuzz-e4b7a1f09c';

// The reference's tools, in the package's order (the order the seeded runs draw from).
const TOOLS = REFERENCE_TOOL_NAMES;

const base = tempDir('lcf-fuzz-');
const work = path.join(base, 'work');
const ro = path.join(base, 'ro');
const outside = path.join(base, 'outside');
const sibling = path.join(base, 'work-sibling');
const canary = path.join(outside, 'canary.txt');

/** The outside world: never touched. */
function makeOutside(): void {
    fs.mkdirSync(path.join(outside, 'inner'), { recursive: true });
    fs.writeFileSync(canary, `${SECRET}\n`);
    fs.writeFileSync(path.join(outside, 'inner', 'deep.txt'), `${SECRET} deep\n`);
    fs.mkdirSync(sibling, { recursive: true });
    fs.writeFileSync(path.join(sibling, 'canary.txt'), `${SECRET} sibling\n`);
    fs.mkdirSync(ro, { recursive: true });
    fs.writeFileSync(path.join(ro, 'r.txt'), 'read only\n');
    fs.symlinkSync(canary, path.join(ro, 'ro-link-out'));
}

/** The workspace, rebuilt before every run: files, a subdirectory and links out, in, to nowhere and in a loop. */
function resetWork(): void {
    fs.rmSync(work, { recursive: true, force: true });
    fs.mkdirSync(path.join(work, 'sub', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(work, 'a.txt'), 'alpha\nbeta\ngamma\n');
    fs.writeFileSync(path.join(work, 'crlf.txt'), 'one\r\ntwo\r\n');
    fs.writeFileSync(path.join(work, 'sub', 'b.txt'), 'bee\n');
    fs.writeFileSync(path.join(work, 'sub', 'deep', 'c.txt'), 'sea\n');
    fs.symlinkSync(canary, path.join(work, 'link-file'));
    fs.symlinkSync(outside, path.join(work, 'link-dir'));
    fs.symlinkSync('../../outside', path.join(work, 'sub', 'rel-out'));
    fs.symlinkSync(path.join(outside, 'missing', 'new.txt'), path.join(work, 'dangling-out'));
    fs.symlinkSync(sibling, path.join(work, 'link-sibling'));
    fs.symlinkSync(ro, path.join(work, 'link-ro'));
    fs.symlinkSync('.', path.join(work, 'loop'));
    fs.symlinkSync('a.txt', path.join(work, 'link-in'));
}

makeOutside();
resetWork();

const hostilePaths = [
    '.', '..', '', '/', '\0', 'a.txt\0.png', 'a.txt', 'sub', 'sub/', 'sub/b.txt', 'new.txt', 'sub/new/deeper.txt',
    'link-file', 'link-dir', 'link-dir/', 'link-dir/canary.txt', 'link-dir/inner', 'link-dir/inner/deep.txt', 'link-dir/new.txt',
    'sub/rel-out/canary.txt', 'sub/rel-out', 'dangling-out', 'dangling-out/x', 'link-sibling/canary.txt', 'link-ro/r.txt', 'link-ro/new.txt',
    'loop/loop/link-dir/canary.txt', 'loop/link-file', 'link-in', '../outside/canary.txt', '../outside', '../work-sibling/canary.txt',
    '../../../../../../etc/passwd', 'sub/../../outside/canary.txt', './../outside/inner', canary, outside, sibling,
    path.join(sibling, 'canary.txt'), work, `${work}/`, `${work}-sibling/canary.txt`, ro, path.join(ro, 'r.txt'), path.join(ro, 'ro-link-out'),
    base, '/etc/passwd', '/dev/zero', '/proc/self/environ', 'caf\u00e9', 'cafe\u0301', '~/x', '%2e%2e/outside', '..\\outside\\canary.txt',
    'a'.repeat(300), `${'../'.repeat(40)}${canary.slice(1)}`,
];

const segment = fc.constantFrom('..', '.', '', 'sub', 'link-dir', 'link-file', 'loop', 'canary.txt', 'outside', 'inner', 'new.txt', 'deep', 'rel-out', 'link-ro', 'work', 'work-sibling');
const pathArb: fc.Arbitrary<unknown> = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...hostilePaths) },
    { weight: 4, arbitrary: fc.tuple(fc.boolean(), fc.array(segment, { minLength: 1, maxLength: 6 })).map(([abs, segs]) => (abs ? work + '/' : '') + segs.join('/')) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 1 }) },
);
const textArb: fc.Arbitrary<unknown> = fc.oneof(
    { weight: 5, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 2, arbitrary: fc.constantFrom('alpha', 'beta\n', 'one\r\ntwo', '\uFEFF', '\0', 'x'.repeat(11_000), '') },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 1 }) },
);
const numArb: fc.Arbitrary<unknown> = fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: -2, max: 8 }) },
    { weight: 1, arbitrary: fc.constantFrom(0, -1, 1e9, Number.MAX_SAFE_INTEGER, 1.5, Number.NaN, Infinity, '3', null, true) },
);
const boolArb: fc.Arbitrary<unknown> = fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constantFrom('true', 0, 1, null) });
const regexArb: fc.Arbitrary<unknown> = fc.oneof(
    fc.constantFrom('canary', 'CANARY', SECRET.slice(0, 10), '.*', '.', 'a', '(', '[', '\\', '^$', 'link', '(?<x>a)\\k<x>', '\\p{L}', 'deep|inner'),
    fc.string({ maxLength: 8 }),
    fc.anything({ maxDepth: 0 }),
);
const dateArb: fc.Arbitrary<unknown> = fc.oneof(fc.constantFrom('2000-01-01T00:00:00Z', '2999-01-01', 'yesterday', ''), fc.anything({ maxDepth: 0 }));

/** Parameters of each tool with an arbitrary for its values. */
const params: Record<(typeof TOOLS)[number], Record<string, fc.Arbitrary<unknown>>> = {
    search_entries: { path: pathArb, type: fc.constantFrom('file', 'directory', 'both', 'x', 1), name_pattern: regexArb, content_pattern: regexArb, max_results: numArb, max_size: numArb, created_after: dateArb, created_before: dateArb, modified_after: dateArb, modified_before: dateArb },
    list_directory: { path: pathArb, recursive: boolArb },
    read_file: { paths: fc.oneof({ weight: 5, arbitrary: fc.array(pathArb, { minLength: 1, maxLength: 4 }) }, { weight: 1, arbitrary: pathArb }), max_chars: numArb, start_line: numArb, end_line: numArb },
    write_file: { path: pathArb, content: textArb },
    replace_file_lines: { path: pathArb, content: textArb, start_line: numArb, end_line: numArb },
    insert_file_content: { path: pathArb, content: textArb, line: numArb },
    replace_file_content: { path: pathArb, old_content: fc.oneof(textArb, fc.constantFrom('alpha', 'one\ntwo', 'CANARY')), new_content: textArb, replace_all: boolArb },
    entry_info: { path: pathArb },
    delete_file: { path: pathArb, recursive: boolArb },
    create_folder: { path: pathArb },
    move_file: { source: pathArb, destination: pathArb },
    file_access_info: {},
    switch_workspace: { path: pathArb },
};

const callArb = fc.constantFrom(...TOOLS).chain((tool) =>
    fc
        .oneof(
            // Mostly the tool's own parameters, each present or not.
            { weight: 8, arbitrary: fc.record(params[tool], { requiredKeys: [] }) },
            // Sometimes its parameters plus a stray one.
            { weight: 1, arbitrary: fc.tuple(fc.record(params[tool], { requiredKeys: [] }), fc.string({ maxLength: 6 }), fc.anything({ maxDepth: 1 })).map(([r, k, v]) => ({ ...r, [k]: v })) },
            // Sometimes anything at all, as a model producing garbage would.
            { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
        )
        .map((args) => ({ tool, args })),
);

let callsTried = 0;
let successes = 0;

describe('fuzz: random arguments to all the tools on a tree with links out', () => {
    afterAll(() => {
        console.log(`[fuzz-tools] ${callsTried} hostile tool calls in ${NUM_RUNS} runs (seed ${SEED}): ${successes} succeeded, 0 canary reads, 0 writes outside`);
    });

    it('never throws, always reports, never reads the canary, never writes outside', async () => {
        const fx = makePackage(work, {
            accesses: [
                { type: AccessType.Write, path: work },
                { type: AccessType.Read, path: ro },
            ],
            // Off, so that write attempts get as far as they can.
            requireReadBeforeWrite: false,
            search: new SearchConfiguration(50, 200, 5000, 2000),
        });
        const outsideBefore = snapshot(outside);
        const siblingBefore = snapshot(sibling);
        const roBefore = snapshot(ro);
        await fc.assert(
            fc
                .asyncProperty(fc.array(callArb, { minLength: 1, maxLength: 6 }), async (calls) => {
                    for (const { tool, args } of calls) {
                        callsTried++;
                        let results;
                        try {
                            results = await fx.run(tool, args);
                        } catch (err) {
                            throw new Error(`${tool} threw on ${JSON.stringify(args)}: ${String(err)}`);
                        }
                        const what = `${tool} ${JSON.stringify(args)?.slice(0, 300)}`;
                        expect(Array.isArray(results) && results.length > 0, what).toBe(true);
                        for (const r of results) {
                            expect(['success', 'error'], what).toContain(r.status);
                            expect(typeof r.result, what).toBe('string');
                            expect(r.result.length, what).toBeGreaterThan(0);
                            // The framework's error boundary sets `error` only when a tool threw.
                            expect(r.error, `${what} -> ${r.result}`).toBeUndefined();
                            expect(r.result, what).not.toContain(SECRET);
                            if (r.status === 'success') successes++;
                        }
                    }
                    expect(snapshot(outside)).toEqual(outsideBefore);
                    expect(snapshot(sibling)).toEqual(siblingBefore);
                    expect(snapshot(ro)).toEqual(roBefore);
                })
                .beforeEach(async () => {
                    resetWork();
                    if (fx.ws.path !== work) await fx.ws.switchTo(work);
                }),
            { seed: SEED, numRuns: NUM_RUNS, endOnFailure: true },
        );
        expect(fs.readFileSync(canary, 'utf8')).toBe(`${SECRET}\n`);
    });
});
