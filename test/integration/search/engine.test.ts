/**
 * The search engine through its public API (worker pool, ordered merge, limits, timeouts,
 * streaming, bulk reads) and its pure parts directly (regex literal extraction, content scan).
 * Worker code runs from the source tree (workers/*.ts through tsx, see `workerEntry`), never from dist/.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessType } from '../../../src/config/shared/configuration.js';
import { CHECKPOINT_BYTES, CheckpointWriter, readCheckpoint } from '../../../src/search/shared/checkpoint.js';
import { Engine } from '../../../src/engine/engine.js';
import { workerYoungGenerationMb } from '../../../src/engine/pool.js';
import { OrderedWalk } from '../../../src/search/ordered.js';
import type { Segment, WalkJob } from '../../../src/search/shared/protocol.js';
import { compilePattern, mayBacktrack, requiredLiteral } from '../../../src/search/regex.js';
import type { ReadItem, SearchHit, SearchRequest } from '../../../src/search/shared/types.js';
import { findLiteral, planLiteral } from '../../../workers/search/prefilter.js';
import { makeMatcher, MAX_HIT_TEXT, scanBytes, type LineHit } from '../../../workers/search/scan.js';
import { searchRootAt } from '../../../src/search/prepare.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const tmpRoot = fs.realpathSync(os.tmpdir());
const dirs: string[] = [];
function tempDir(prefix: string): string {
    const d = fs.mkdtempSync(path.join(tmpRoot, prefix));
    dirs.push(d);
    return d;
}
function write(root: string, rel: string, content: string | Buffer): void {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
}

const engine = new Engine({ maxThreads: 2 });

afterAll(async () => {
    await engine.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function request(root: string, over: Partial<SearchRequest> & { realRoots?: readonly string[] | null } = {}): SearchRequest {
    const { realRoots = null, ...rest } = over;
    return {
        root: searchRootAt(root, realRoots),
        type: 'both',
        maxResults: 1_000_000,
        maxFileSize: 10 * 1024 * 1024,
        maxTotalEntries: 1_000_000,
        skipDirs: [],
        ...rest,
    };
}

/** The sequential reference: depth-first, children sorted by name, lines in order. */
function sequential(root: string, opts: { name?: RegExp; content?: RegExp; type?: 'file' | 'directory' | 'both' }): SearchHit[] {
    const out: SearchHit[] = [];
    const walk = (dir: string, rel: string): void => {
        const names = fs.readdirSync(dir).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        for (const name of names) {
            const p = path.join(dir, name);
            const r = rel ? `${rel}/${name}` : name;
            const isDir = fs.statSync(p).isDirectory();
            const nameOk = !opts.name || opts.name.test(name);
            if (isDir) {
                if (nameOk && !opts.content && opts.type !== 'file') out.push({ path: r, kind: 'directory' });
                walk(p, r);
            } else if (nameOk && opts.type !== 'directory') {
                if (!opts.content) out.push({ path: r, kind: 'file' });
                else {
                    const lines = fs.readFileSync(p, 'utf8').split('\n');
                    if (lines[lines.length - 1] === '') lines.pop();
                    lines.forEach((l, i) => {
                        if (opts.content!.test(l)) out.push({ path: r, kind: 'file', line: i + 1, text: l });
                    });
                }
            }
        }
    };
    walk(root, '');
    return out;
}

const strip = (hits: SearchHit[]): string[] => hits.map((h) => `${h.path}${h.kind === 'directory' ? '/' : ''}${h.line ? `:${h.line}:${h.text}` : ''}`);

describe('requiredLiteral', () => {
    const lit = (p: string): string | null => requiredLiteral(compilePattern(p));
    it('finds the longest literal run every match must contain, ASCII lower-cased', () => {
        expect(lit('TODO')).toBe('todo');
        expect(lit('(a+)+$')).toBe('a'); // a repetition of a group still requires its body once
        expect(lit('\\p{L}+x')).toBe('x'); // Unicode mode: only s and k fold to non-ASCII letters
        expect(lit('(?:FOO|foobar)\\d')).toBe('foo');
        expect(lit('foo.*barbaz')).toBe('barbaz');
        expect(lit('\\bmutex_lock\\(')).toBe('mutex_lock(');
        expect(lit('ab+c')).toBe('ab');
        expect(lit('abc?d')).toBe('ab');
        expect(lit('x{0,3}yz')).toBe('yz');
        expect(lit('[a-z]+_lock\\(')).toBe('_lock(');
        expect(lit('(foo|bar)baz')).toBe('baz');
        expect(lit('\\d{3}-\\d{4}')).toBe('-');
    });
    it('gives none when no literal is certain', () => {
        expect(lit('foo|bar')).toBeNull();
        expect(lit('(a|b)+$')).toBeNull();
        expect(lit('[abc]')).toBeNull();
        expect(lit('\\p{L}+s')).toBeNull(); // Unicode mode: `s` also matches ſ (U+017F)
        expect(lit('\\p{L}+k')).toBeNull(); // and `k` the Kelvin sign (U+212A)
        expect(lit('(?=foo)?x{0}')).toBeNull(); // an optional lookahead requires nothing
        expect(lit('\\12')).toBeNull();
    });
    it('compiles with the u flag only when needed', () => {
        expect(compilePattern('abc').flags).toBe('i');
        expect(compilePattern('\\p{Lu}').flags).toBe('iu');
        expect(() => compilePattern('(')).toThrow(SyntaxError);
    });
});

describe('mayBacktrack', () => {
    it('flags a repeated group holding a quantifier or alternation, and backreferences', () => {
        for (const p of ['(a+)+', '(a+)+$', '(\\w+\\s?)*', '(a|aa)+', '(\\d+\\.)+', '(x+x+)+y', '((ab)*c)+', '(?:a*b)*', '(?<w>a+){2,}', '(a+){3}', '(\\w)\\1', '(?<q>["\'])x\\k<q>', 'needle|(a+)+$', '\\p{L}(a|b)*']) {
            expect(mayBacktrack(compilePattern(p)), p).toBe(true);
        }
        expect(compilePattern('(a+)+$').risky).toBe(true);
    });
    it('leaves plain patterns alone', () => {
        for (const p of ['needle', 'a+b*c?', '(foo|bar)baz', '(abc)+', '(a+)?', '(a|b)?x', '[(a+)+]', '\\(a+\\)+', 'mutex_lock\\(', '(?:foo)+', 'x{2}y{1,3}', '\\u{1F600}{2}', '\\p{Lu}{3}', '\\0']) {
            expect(mayBacktrack(compilePattern(p)), p).toBe(false);
        }
        expect(compilePattern('needle').risky).toBe(false);
    });
});

describe('content scan', () => {
    const scan = (text: string | Buffer, pattern: string, max = 1000): LineHit[] => {
        const out: LineHit[] = [];
        scanBytes(Buffer.isBuffer(text) ? text : Buffer.from(text), makeMatcher(compilePattern(pattern)), max, out);
        return out;
    };
    it('finds a literal case-insensitively through its rarest byte', () => {
        const buf = Buffer.from('xx MuTeX_LoCk yy mutex_lock');
        const plan = planLiteral('mutex_lock');
        expect(findLiteral(buf, plan, 0)).toBe(3);
        expect(findLiteral(buf, plan, 4)).toBe(17);
        expect(findLiteral(buf, plan, 18)).toBe(-1);
    });
    it('reports exact line numbers, one hit per line, with and without a literal', () => {
        const text = 'alpha\nbeta needle\n\nNEEDLE needle\nlast needle';
        for (const p of ['needle', 'ne+dle', '(needle|zzz)']) {
            expect(scan(text, p)).toEqual([
                { line: 2, text: 'beta needle' },
                { line: 4, text: 'NEEDLE needle' },
                { line: 5, text: 'last needle' },
            ]);
        }
    });
    it('anchors ^ and $ at line boundaries, CRLF lines included, and trims \\r', () => {
        const text = 'foo\r\nbar foo\r\nfoo bar\r\n';
        expect(scan(text, '^foo')).toEqual([
            { line: 1, text: 'foo' },
            { line: 3, text: 'foo bar' },
        ]);
        expect(scan(text, 'foo$')).toEqual([
            { line: 1, text: 'foo' },
            { line: 2, text: 'bar foo' },
        ]);
        expect(scan('a\n\nb\n', '^$')).toEqual([{ line: 2, text: '' }]);
    });
    it('never counts a match spanning lines', () => {
        expect(scan('foo\nbar\n', 'foo\\sbar')).toEqual([]);
        expect(scan('foo\nbar\n', 'o[^x]*b')).toEqual([]);
        expect(scan('xa\nab\n', 'a[^z]*b')).toEqual([{ line: 2, text: 'ab' }]);
    });
    it('decodes Latin-1, UTF-8 with BOM and UTF-16 text', () => {
        expect(scan(Buffer.from('caf\xe9\ncr\xe8me\n', 'latin1'), 'cr.me')).toEqual([{ line: 2, text: 'crème' }]);
        expect(scan(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('grüße\n')]), 'grüße')).toEqual([{ line: 1, text: 'grüße' }]);
        const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('one\ntwo needle\n', 'utf16le')]);
        expect(scan(le, 'needle')).toEqual([{ line: 2, text: 'two needle' }]);
    });
    it('caps the line text at 500 characters and hits at max', () => {
        const [hit] = scan(`${'x'.repeat(1000)} needle\n`, 'x');
        expect(hit!.text).toHaveLength(500);
        expect(hit!.text!.endsWith('…')).toBe(true);
        expect(scan('a\na\na\na\n', 'a', 2)).toHaveLength(2);
    });
    it('shows a long line around its first match, marking the cuts with …', () => {
        const exact = 'q'.repeat(MAX_HIT_TEXT - 6) + 'needle';
        expect(scan(`${exact}\n`, 'needle')).toEqual([{ line: 1, text: exact }]);
        const line = `${'x'.repeat(549)}needle${'y'.repeat(1000)}`;
        for (const p of ['needle', 'n[e]+dle', 'x(needle|zzz)']) {
            const [hit] = scan(`first\n${line}\n`, p);
            expect(hit!.line, p).toBe(2);
            expect(hit!.text!.length, p).toBeLessThanOrEqual(MAX_HIT_TEXT);
            expect(hit!.text, p).toMatch(/^…x+needley+…$/);
        }
        // A match near the end: the window ends with the line, no end marker.
        const [end] = scan(`${'x'.repeat(2000)}needle\n`, 'needle');
        expect(end!.text).toMatch(/^…x+needle$/);
        expect(end!.text).toHaveLength(MAX_HIT_TEXT);
        // A match within the first 500 characters: the line's start is kept.
        const [start] = scan(`ab needle ${'z'.repeat(1000)}\n`, 'needle');
        expect(start!.text).toMatch(/^ab needle z+…$/);
        // Context lines longer than the cap are cut at the end and marked too.
        const ctx: LineHit[] = [];
        scanBytes(Buffer.from(`${'c'.repeat(800)}\nneedle\n`), makeMatcher(compilePattern('needle')), 10, ctx, 1);
        expect(ctx[0]!.before![0]).toBe(`${'c'.repeat(MAX_HIT_TEXT - 1)}…`);
    });
});

describe('checkpoints', () => {
    it('reads back the hits and figures a task recorded, and refuses a record that does not fit', () => {
        const buf = new SharedArrayBuffer(CHECKPOINT_BYTES);
        const w = new CheckpointWriter(buf);
        expect(readCheckpoint(buf)).toEqual({ hits: new Map(), visited: 0, scanned: 0 });
        const a: SearchHit = { path: 'dir/ä.txt', kind: 'file', line: 3, text: 'needle ✓', before: ['x'], after: [] };
        const b: SearchHit = { path: 'dir/b', kind: 'directory' };
        expect(w.append(0, [a])).toBe(true);
        expect(w.append(2, [b])).toBe(true);
        expect(w.append(0, [b])).toBe(true);
        w.progress(7, 4);
        expect(readCheckpoint(buf)).toEqual({ hits: new Map([[0, [a, b]], [2, [b]]]), visited: 7, scanned: 4 });
        expect(w.append(1, [{ path: 'x'.repeat(CHECKPOINT_BYTES), kind: 'file' }])).toBe(false);
        expect(readCheckpoint(buf).hits.get(1)).toBeUndefined();
    });
});

describe('OrderedWalk', () => {
    const job = (rel: string): WalkJob => ({ real: `/r/${rel}`, rel, jumps: [] });
    const hit = (p: string): SearchHit => ({ path: p, kind: 'file' });
    const run = (n: number, hits: [string, number][]): Segment => ({ t: 'run', n, hits: hits.map(([p]) => hit(p)), at: hits.map(([, a]) => a) });

    it('emits in walk order whatever order jobs finish in', () => {
        const w = new OrderedWalk(job('.'), 100, 100);
        const [root] = w.take(10);
        w.resolve(root!, [run(1, [['a', 0]]), { t: 'job', job: job('b') }, run(1, [['c', 0]]), { t: 'job', job: job('d') }]);
        w.advance();
        expect(w.emitted.map((h) => h.path)).toEqual(['a']);
        const [b, d] = w.take(10);
        w.resolve(d!, [run(2, [['d/x', 1]])]);
        w.advance();
        expect(w.emitted.map((h) => h.path)).toEqual(['a']); // b blocks the cursor
        expect(w.knownHits().map((h) => h.path)).toEqual(['a', 'c', 'd/x']);
        w.resolve(b!, [run(1, [['b/y', 0]])]);
        w.advance();
        expect(w.emitted.map((h) => h.path)).toEqual(['a', 'b/y', 'c', 'd/x']);
        expect(w.complete).toBe(true);
        expect(w.visited).toBe(5);
    });

    it('stops exactly where a sequential walk would', () => {
        const byResults = new OrderedWalk(job('.'), 2, 100);
        byResults.resolve(byResults.take(1)[0]!, [run(3, [['a', 0], ['b', 1], ['c', 2]])]);
        byResults.advance();
        expect(byResults.stop).toBe('max_results');
        expect(byResults.emitted.map((h) => h.path)).toEqual(['a', 'b']);
        const byEntries = new OrderedWalk(job('.'), 100, 2);
        byEntries.resolve(byEntries.take(1)[0]!, [run(4, [['a', 0], ['b', 1], ['c', 2]])]);
        byEntries.advance();
        expect(byEntries.stop).toBe('too_many_entries');
        expect(byEntries.emitted.map((h) => h.path)).toEqual(['a', 'b']);
    });

    it('hands out jobs in walk order', () => {
        const w = new OrderedWalk(job('.'), 100, 100);
        w.resolve(w.take(1)[0]!, [{ t: 'job', job: job('a') }, { t: 'job', job: job('b') }, { t: 'job', job: job('c') }]);
        const [a] = w.take(1);
        w.resolve(a!, [{ t: 'job', job: job('a/1') }]);
        expect(w.take(3).map((n) => n.job.rel)).toEqual(['a/1', 'b', 'c']);
    });
});

describe('Engine.search', () => {
    let big: string;
    beforeAll(() => {
        // 3 x 10 x 10 directories of 10 files: about 3,300 entries, with needles at known lines.
        big = tempDir('lcf-engine-big-');
        for (let a = 0; a < 3; a++) {
            for (let b = 0; b < 10; b++) {
                for (let c = 0; c < 10; c++) {
                    const dir = path.join(big, `top${a}`, `mid-${b}`, `leaf${c}`);
                    fs.mkdirSync(dir, { recursive: true });
                    for (let f = 0; f < 10; f++) {
                        const n = a * 1000 + b * 100 + c * 10 + f;
                        const lines = Array.from({ length: 20 }, (_, i) => (i % 7 === n % 7 ? `line ${i} Needle ${n}` : `line ${i} hay`));
                        fs.writeFileSync(path.join(dir, `file${f}.txt`), lines.join('\n') + '\n');
                    }
                }
            }
        }
        write(big, 'top0.txt', 'needle at top\n'); // sorts after the top0/ subtree
        write(big, 'top0-x/needle.md', 'no\n'); // a name hit only: content search must not list it
    });

    it('returns hits in sequential walk order (component-wise path order, then line)', async () => {
        const res = await engine.search(request(big, { contentPattern: 'needle' }), { timeoutMs: 120_000 });
        expect(res.stop).toBe('done');
        const expected = sequential(big, { content: /needle/i });
        expect(strip(res.hits)).toEqual(strip(expected));
        expect(res.hits.length).toBeGreaterThan(3000);
        const paths = res.hits.map((h) => h.path);
        expect(paths.indexOf('top0-x/needle.md')).toBe(-1);
        expect(paths.indexOf('top0.txt')).toBeGreaterThan(paths.lastIndexOf('top0/mid-9/leaf9/file9.txt'));
    });

    it('keeps exactly the first max_results of that order, on every run', async () => {
        const expected = strip(sequential(big, { content: /needle/i }));
        for (const n of [1, 7, 50, 333, 2000]) {
            for (let run = 0; run < 3; run++) {
                const res = await engine.search(request(big, { contentPattern: 'needle', maxResults: n }), { timeoutMs: 120_000 });
                expect(res.stop).toBe('max_results');
                expect(strip(res.hits)).toEqual(expected.slice(0, n));
            }
        }
    });

    it('leaves no work running or queued once it returns', async () => {
        const res = await engine.search(request(big, { contentPattern: 'hay', maxResults: 10 }), { timeoutMs: 120_000 });
        expect(res.stop).toBe('max_results');
        expect(res.visited).toBeLessThan(3300);
        expect(engine.pool.queueSize).toBe(0);
        expect(engine.pool.idleThreads).toBe(engine.pool.threads.length);
    });

    it('gives its threads back to the pool when it ends, none terminated (stopped early or not)', async () => {
        await engine.search(request(big, { contentPattern: 'needle' }), { timeoutMs: 120_000 });
        const threads = engine.pool.threads.map((t) => t.threadId).sort();
        for (const extra of [{ contentPattern: 'hay', maxResults: 10 }, { namePattern: 'file3' }, { contentPattern: 'needle', maxResults: 333 }, {}]) {
            const res = await engine.search(request(big, extra), { timeoutMs: 120_000 });
            expect(['done', 'max_results']).toContain(res.stop);
            expect(engine.pool.idleThreads).toBe(engine.pool.threads.length);
        }
        // The same threads: a session's thread returns by itself, it is not terminated and replaced.
        expect(engine.pool.threads.map((t) => t.threadId).sort()).toEqual(threads);
    });

    it('runs more tasks at once than an AbortSignal takes listeners by default, with no leak warning', async () => {
        // Every task of a search listens to the search's one kill signal (search-tasks.ts).
        const warnings: string[] = [];
        const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
        process.on('warning', onWarning);
        const wide = new Engine({ maxThreads: 16 });
        try {
            const res = await wide.search(request(big, { contentPattern: 'needle' }), { timeoutMs: 120_000 });
            expect(res.stop).toBe('done');
            expect(strip(res.hits)).toEqual(strip(sequential(big, { content: /needle/i })));
            // Warnings are emitted on the next tick.
            await new Promise((r) => setImmediate(r));
        } finally {
            process.off('warning', onWarning);
            await wide.close();
        }
        expect(warnings).toEqual([]);
    });

    it('ends with the hits so far when its signal aborts', async () => {
        const ac = new AbortController();
        ac.abort();
        const early = await engine.search(request(big, { contentPattern: 'needle' }), { timeoutMs: 120_000, signal: ac.signal });
        expect(early).toMatchObject({ stop: 'aborted', hits: [] });
        const later = new AbortController();
        const pending = engine.search(request(big, { contentPattern: 'needle' }), { timeoutMs: 120_000, signal: later.signal });
        setTimeout(() => later.abort(), 5);
        const res = await pending;
        expect(['aborted', 'done']).toContain(res.stop);
        const all = new Set(strip(sequential(big, { content: /needle/i })));
        for (const h of strip(res.hits)) expect(all.has(h)).toBe(true);
    });

    it('matches names, types and both patterns with AND', async () => {
        const names = await engine.search(request(big, { namePattern: '^leaf[37]$' }), { timeoutMs: 120_000 });
        expect(strip(names.hits)).toEqual(strip(sequential(big, { name: /^leaf[37]$/i })));
        expect(names.hits.every((h) => h.kind === 'directory')).toBe(true);
        const files = await engine.search(request(big, { namePattern: 'FILE9', type: 'file' }), { timeoutMs: 120_000 });
        expect(files.hits).toHaveLength(300);
        const dirsOnly = await engine.search(request(big, { type: 'directory' }), { timeoutMs: 120_000 });
        expect(dirsOnly.hits).toHaveLength(3 + 30 + 300 + 1);
        const both = await engine.search(request(big, { namePattern: 'file3', contentPattern: '^line 9 needle 1003$' }), { timeoutMs: 120_000 });
        expect(both.hits).toEqual([{ path: 'top1/mid-0/leaf0/file3.txt', kind: 'file', line: 10, text: 'line 9 Needle 1003' }]);
    });

    it('lists every entry when no filter is given, up to maxResults', async () => {
        const all = await engine.search(request(big), { timeoutMs: 120_000 });
        expect(all.hits.length).toBe(all.visited);
        expect(strip(all.hits)).toEqual(strip(sequential(big, {})));
        const some = await engine.search(request(big, { maxResults: 5 }), { timeoutMs: 120_000 });
        expect(strip(some.hits)).toEqual(['top0/', 'top0/mid-0/', 'top0/mid-0/leaf0/', 'top0/mid-0/leaf0/file0.txt', 'top0/mid-0/leaf0/file1.txt']);
    });

    it('stops with too_many_entries past maxTotalEntries, keeping the hits of the walked prefix', async () => {
        const res = await engine.search(request(big, { namePattern: 'file0', maxTotalEntries: 100 }), { timeoutMs: 120_000 });
        expect(res.stop).toBe('too_many_entries');
        expect(res.visited).toBeGreaterThan(100);
        // In walk order the first 100 entries hold these file0 hits.
        const firstEntries = strip(sequential(big, {})).slice(0, 100);
        const expected = firstEntries.filter((p) => /\/file0\.txt$/.test(p));
        expect(strip(res.hits)).toEqual(expected);
    });

    it('returns partial, sorted results on timeout', async () => {
        const res = await engine.search(request(big, { contentPattern: 'needle' }), { timeoutMs: 1 });
        expect(res.stop).toBe('timeout');
        const all = new Set(strip(sequential(big, { content: /needle/i })));
        for (const h of strip(res.hits)) expect(all.has(h)).toBe(true);
    });

    it('cuts off a catastrophic regex, replaces the worker, and works normally afterwards', async () => {
        const dir = tempDir('lcf-engine-redos-');
        write(dir, 'evil.txt', `${'a'.repeat(50_000)}!\n`);
        write(dir, 'fine.txt', 'plain text\n');
        // Uncut, the pattern would run for ages on this line: returning at all (within the test's
        // timeout) with stop 'timeout' shows the cut. No bound on the time: the machine may be loaded.
        const res = await engine.search(request(dir, { contentPattern: '(a+)+$' }), { timeoutMs: 1000 });
        expect(res.stop).toBe('timeout');
        const after = await engine.search(request(dir, { contentPattern: 'plain' }), { timeoutMs: 120_000 });
        expect(after.stop).toBe('done');
        expect(after.hits).toEqual([{ path: 'fine.txt', kind: 'file', line: 1, text: 'plain text' }]);
    });

    it('closes the descriptor of the file a terminated worker was scanning (opened natively, unknown to Node)', async () => {
        const dir = tempDir('lcf-engine-redos-fd-');
        write(dir, 'evil.txt', `${'a'.repeat(50_000)}!\n`);
        const evil = fs.realpathSync(path.join(dir, 'evil.txt'));
        const openOnEvil = (): number =>
            fs.readdirSync('/proc/self/fd').filter((fd) => {
                try {
                    return fs.readlinkSync(`/proc/self/fd/${fd}`) === evil;
                } catch {
                    return false;
                }
            }).length;
        // Symlink checks on (realRoots): the scan opens files through the held directory.
        const res = await engine.search(request(dir, { contentPattern: '(a+)+$', realRoots: [dir] }), { timeoutMs: 1000 });
        expect(res.stop).toBe('timeout');
        // The worker was stuck in the regex with evil.txt open; it exits some time after the
        // search returned (no bound on when: the machine may be loaded), and then nothing may be
        // left open on the file.
        for (let waited = 0; openOnEvil() > 0 && waited < 60_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
        expect(openOnEvil()).toBe(0);
    });

    it('closes the directories a terminated worker held open natively on its way down, and the file', async () => {
        const dir = tempDir('lcf-engine-redos-dirs-');
        const deep = ['a', 'b', 'c', 'd'];
        write(dir, `${deep.join('/')}/evil.txt`, `${'a'.repeat(50_000)}!\n`);
        const real = fs.realpathSync(dir);
        // The subdirectories (opened relative to their parents through held-at.ts's native layer) and the file.
        const watched = new Set([...deep.map((_, i) => path.join(real, ...deep.slice(0, i + 1))), path.join(real, ...deep, 'evil.txt')]);
        const openOnTree = (): string[] =>
            fs.readdirSync('/proc/self/fd').flatMap((fd) => {
                try {
                    const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
                    return watched.has(target) ? [target] : [];
                } catch {
                    return [];
                }
            });
        const res = await engine.search(request(dir, { contentPattern: '(a+)+$', realRoots: [dir] }), { timeoutMs: 1000 });
        expect(res.stop).toBe('timeout');
        // As above: the stuck worker exits some time after the search returned.
        for (let waited = 0; openOnTree().length > 0 && waited < 60_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
        expect(openOnTree()).toEqual([]);
        // The pool still walks the same tree with checks on.
        const after = await engine.search(request(dir, { namePattern: 'evil', realRoots: [dir] }), { timeoutMs: 120_000 });
        expect(after.hits.map((h) => h.path)).toEqual(['a/b/c/d/evil.txt']);
    });

    it('keeps the matches found before a risky pattern got stuck in a later file of the same directory', async () => {
        const dir = tempDir('lcf-engine-redos-keep-');
        for (let i = 1; i <= 100; i++) write(dir, `f${String(i).padStart(3, '0')}.txt`, `needle ${String(i).padStart(3, '0')}\n`);
        write(dir, 'zzz.txt', `${'a'.repeat(40_000)}!\n`);
        // The timeout must come after the walk reached zzz.txt; on a loaded machine it may come
        // sooner, so the search is repeated with a longer timeout until it did (scanned >= 100).
        let res = await engine.search(request(dir, { contentPattern: 'needle 0[0-3]|(a+)+$' }), { timeoutMs: 3000 });
        for (let timeoutMs = 12_000; res.scanned < 100 && timeoutMs <= 48_000; timeoutMs *= 2) {
            res = await engine.search(request(dir, { contentPattern: 'needle 0[0-3]|(a+)+$' }), { timeoutMs });
        }
        expect(res.stop).toBe('timeout');
        expect(res.hits.map((h) => h.path)).toEqual(Array.from({ length: 39 }, (_, i) => `f${String(i + 1).padStart(3, '0')}.txt`));
        // The figures count the terminated task's work up to the stuck file: f001..f100.
        expect(res.visited).toBeGreaterThanOrEqual(100);
        expect(res.scanned).toBeGreaterThanOrEqual(100);
    });

    it('gives the same results with a risky pattern, whose tasks keep checkpoints (a full buffer included)', async () => {
        expect(compilePattern('(needle|zzz)+').risky).toBe(true);
        const res = await engine.search(request(big, { contentPattern: '(needle|zzz)+' }), { timeoutMs: 120_000 });
        expect(res.stop).toBe('done');
        expect(strip(res.hits)).toEqual(strip(sequential(big, { content: /needle/i })));
        const dir = tempDir('lcf-engine-checkpoint-full-');
        // 10,000 hits of about 130 bytes as JSON: more than one task's checkpoint buffer holds.
        write(dir, 'a.txt', Array.from({ length: 10_000 }, (_, i) => `needle ${i} ${'p'.repeat(90)}`).join('\n') + '\n');
        write(dir, 'b.txt', 'needle b\n');
        write(dir, 'c/d.txt', 'needle d\n');
        const full = await engine.search(request(dir, { contentPattern: '(needle|zzz)+' }), { timeoutMs: 120_000 });
        expect(full.stop).toBe('done');
        expect(strip(full.hits)).toEqual(strip(sequential(dir, { content: /needle/i })));
    });

    it('reports the files it did not content-search for being above maxFileSize, not the binary ones', async () => {
        const dir = tempDir('lcf-engine-too-large-');
        write(dir, 'a/big.txt', `needle\n${'y'.repeat(2000)}\n`);
        write(dir, 'b.bin', Buffer.concat([Buffer.alloc(600, 0), Buffer.alloc(3000, 0x41)]));
        write(dir, 'c.txt', 'needle\n');
        write(dir, 'd/huge.txt', 'needle\n'.repeat(1000));
        const res = await engine.search(request(dir, { contentPattern: 'needle', maxFileSize: 1000 }), { timeoutMs: 120_000 });
        expect(res.hits.map((h) => h.path)).toEqual(['c.txt']);
        expect(res.tooLarge).toEqual([
            { path: 'a/big.txt', size: 2008 },
            { path: 'd/huge.txt', size: 7000 },
        ]);
        expect(res.tooLargeCount).toBe(2);
        // With max_results, only those the sequential walk passed before stopping.
        const first = await engine.search(request(dir, { contentPattern: 'needle', maxFileSize: 1000, maxResults: 1 }), { timeoutMs: 120_000 });
        expect(first.tooLarge).toEqual([{ path: 'a/big.txt', size: 2008 }]);
        // A name search reads no content: nothing to report.
        const names = await engine.search(request(dir, { maxFileSize: 1000 }), { timeoutMs: 120_000 });
        expect(names.tooLarge).toEqual([]);
        expect(names.tooLargeCount).toBe(0);
    });

    it('reports where the ordered walk stopped for maxTotalEntries, the same on every run', async () => {
        const seen = new Set<string>();
        for (let run = 0; run < 4; run++) {
            const res = await engine.search(request(big, { contentPattern: 'needle', maxTotalEntries: 500 }), { timeoutMs: 120_000 });
            expect(res.stop).toBe('too_many_entries');
            seen.add(JSON.stringify([res.visited, strip(res.hits)]));
        }
        expect(seen.size).toBe(1);
    });

    it('filters by timestamps with exclusive bounds and reports the times', async () => {
        const dir = tempDir('lcf-engine-times-');
        write(dir, 'old.txt', 'x\n');
        write(dir, 'new.txt', 'x\n');
        const old = new Date('2020-01-01T00:00:00Z');
        fs.utimesSync(path.join(dir, 'old.txt'), old, old);
        const res = await engine.search(request(dir, { modifiedBefore: Date.parse('2021-01-01T00:00:00Z') }), { timeoutMs: 120_000 });
        expect(res.hits).toEqual([{ path: 'old.txt', kind: 'file', birthtimeMs: expect.any(Number), mtimeMs: old.getTime() }]);
        const exclusive = await engine.search(request(dir, { modifiedAfter: old.getTime(), type: 'file' }), { timeoutMs: 120_000 });
        expect(exclusive.hits.map((h) => h.path)).toEqual(['new.txt']);
    });

    it('skips skipDirs, binary files and files above maxFileSize; reads Latin-1', async () => {
        const dir = tempDir('lcf-engine-kinds-');
        write(dir, 'node_modules/dep/x.txt', 'needle\n');
        write(dir, 'bin.dat', Buffer.concat([Buffer.from('needle\n'), Buffer.alloc(600, 0)]));
        write(dir, 'large.txt', `needle\n${'y'.repeat(5000)}\n`);
        write(dir, 'latin1.txt', Buffer.from('na\xefve needle\n', 'latin1'));
        const res = await engine.search(request(dir, { contentPattern: 'needle', skipDirs: ['node_modules'], maxFileSize: 1000 }), { timeoutMs: 120_000 });
        expect(res.hits).toEqual([{ path: 'latin1.txt', kind: 'file', line: 1, text: 'naïve needle' }]);
        const names = await engine.search(request(dir, { skipDirs: ['node_modules'] }), { timeoutMs: 120_000 });
        expect(names.hits.map((h) => h.path)).toEqual(['bin.dat', 'large.txt', 'latin1.txt']);
        // A large binary is recognised from its header sample.
        write(dir, 'big.bin', Buffer.concat([Buffer.alloc(600, 0), Buffer.from('\nneedle\n'), Buffer.alloc(100_000, 0x41)]));
        const big = await engine.search(request(dir, { contentPattern: 'needle', namePattern: '^(big|large)' }), { timeoutMs: 120_000 });
        expect(big.hits).toEqual([{ path: 'large.txt', kind: 'file', line: 1, text: 'needle' }]);
    });

    it('walks past a FIFO without opening it', async () => {
        const dir = tempDir('lcf-engine-fifo-');
        write(dir, 'a.txt', 'needle\n');
        execFileSync('mkfifo', [path.join(dir, 'pipe')]);
        fs.symlinkSync('pipe', path.join(dir, 'pipe-link'));
        const res = await engine.search(request(dir, { contentPattern: 'needle' }), { timeoutMs: 120_000 });
        expect(res.stop).toBe('done');
        expect(res.hits.map((h) => h.path)).toEqual(['a.txt']);
        const names = await engine.search(request(dir, { namePattern: 'pipe' }), { timeoutMs: 120_000 });
        expect(names.hits.map((h) => h.path)).toEqual(['pipe', 'pipe-link']);
    });

    it('follows symlinks only inside the real roots, never in a loop; broken links are skipped', async () => {
        const outside = tempDir('lcf-engine-outside-');
        write(outside, 'secret.txt', 'needle outside\n');
        const dir = tempDir('lcf-engine-links-');
        write(dir, 'real/inside.txt', 'needle inside\n');
        fs.symlinkSync(outside, path.join(dir, 'out-link'));
        fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'secret-link.txt'));
        fs.symlinkSync('..', path.join(dir, 'real', 'loop-up'));
        fs.symlinkSync('.', path.join(dir, 'real', 'loop-self'));
        fs.symlinkSync('real', path.join(dir, 'alias'));
        fs.symlinkSync('missing', path.join(dir, 'broken'));
        const res = await engine.search(request(dir, { contentPattern: 'needle', realRoots: [dir] }), { timeoutMs: 120_000 });
        expect(res.stop).toBe('done');
        expect(res.hits.map((h) => h.path)).toEqual(['alias/inside.txt', 'real/inside.txt']);
        expect(res.skipped).toEqual([{ path: 'broken', reason: expect.stringMatching(/broken symbolic link/) }]);
        const free = await engine.search(request(dir, { contentPattern: 'needle', realRoots: null }), { timeoutMs: 120_000 });
        expect(free.hits.map((h) => h.path)).toEqual(['alias/inside.txt', 'out-link/secret.txt', 'real/inside.txt', 'secret-link.txt']);
    });

    it.skipIf(process.getuid?.() === 0)('skips unreadable directories into skipped', async () => {
        const dir = tempDir('lcf-engine-perm-');
        write(dir, 'locked/in.txt', 'needle\n');
        write(dir, 'open.txt', 'needle\n');
        fs.chmodSync(path.join(dir, 'locked'), 0o000);
        try {
            const res = await engine.search(request(dir, { contentPattern: 'needle' }), { timeoutMs: 120_000 });
            expect(res.hits.map((h) => h.path)).toEqual(['open.txt']);
            expect(res.skipped).toEqual([{ path: 'locked', reason: 'permission denied' }]);
        } finally {
            fs.chmodSync(path.join(dir, 'locked'), 0o755);
        }
    });
});

describe('Engine.stream', () => {
    it('yields hits as they are found and stops at maxResults', async () => {
        const dir = tempDir('lcf-engine-stream-');
        for (let i = 0; i < 200; i++) write(dir, `d${i % 10}/f${i}.txt`, 'needle\nneedle\n');
        const got: SearchHit[] = [];
        for await (const hit of engine.stream(request(dir, { contentPattern: 'needle', maxResults: 120 }))) got.push(hit);
        expect(got).toHaveLength(120);
        const all: SearchHit[] = [];
        for await (const hit of engine.stream(request(dir, { contentPattern: 'needle' }))) all.push(hit);
        expect(all).toHaveLength(400);
    });

    it('gives every thread back while its consumer does not read, and goes on when it does', async () => {
        const dir = tempDir('lcf-engine-stream-paused-');
        for (let i = 0; i < 300; i++) write(dir, `d${i % 10}/f${i}.txt`, 'needle\n'.repeat(20));
        const it = engine.stream(request(dir, { contentPattern: 'needle' }));
        const first = await it.next();
        expect(first.done).toBe(false);
        // 6,000 hits: the stream stops handing out work at 2,048 waiting ones; its threads go back to the pool.
        for (let i = 0; i < 3000 && engine.pool.idleThreads < engine.pool.threads.length; i++) await new Promise((r) => setTimeout(r, 20));
        expect(engine.pool.idleThreads).toBe(engine.pool.threads.length);
        // Another call runs meanwhile.
        const other = await engine.search(request(dir, { namePattern: '^f7\\.txt$' }), { timeoutMs: 120_000 });
        expect(other.hits.map((h) => h.path)).toEqual(['d7/f7.txt']);
        let n = 1;
        for (let r = await it.next(); !r.done; r = await it.next()) n++;
        expect(n).toBe(6000);
    });

    it('stops when the consumer breaks or the signal aborts', async () => {
        const dir = tempDir('lcf-engine-stream-abort-');
        for (let i = 0; i < 300; i++) write(dir, `d${i % 10}/f${i}.txt`, 'needle\n');
        let n = 0;
        for await (const _ of engine.stream(request(dir, { contentPattern: 'needle' }))) if (++n === 3) break;
        expect(n).toBe(3);
        const ac = new AbortController();
        let m = 0;
        for await (const _ of engine.stream(request(dir, { contentPattern: 'needle' }), { signal: ac.signal })) if (++m === 5) ac.abort();
        expect(m).toBeGreaterThanOrEqual(5);
        expect(m).toBeLessThan(300);
        // The engine is idle and usable afterwards.
        const res = await engine.search(request(dir, { namePattern: '^f1\\.txt$' }), { timeoutMs: 120_000 });
        expect(res.hits.map((h) => h.path)).toEqual(['d1/f1.txt']);
    });
});

describe('Engine.readMany', () => {
    it('reads in the order given with one outcome per item', async () => {
        const dir = tempDir('lcf-engine-read-');
        const items: ReadItem[] = [];
        for (let i = 0; i < 40; i++) {
            write(dir, `f${i}.txt`, `content ${i}\n`);
            items.push({ shown: path.join(dir, `f${i}.txt`), real: path.join(dir, `f${i}.txt`) });
        }
        write(dir, 'big.txt', 'x'.repeat(5000));
        execFileSync('mkfifo', [path.join(dir, 'pipe')]);
        items.splice(3, 0, { shown: path.join(dir, 'missing.txt'), real: path.join(dir, 'missing.txt') });
        items.splice(10, 0, { shown: path.join(dir, 'big.txt'), real: path.join(dir, 'big.txt') });
        items.splice(20, 0, { shown: path.join(dir, 'pipe'), real: path.join(dir, 'pipe') });
        const out = await engine.readMany(items, { maxBytes: 1000, realRoots: [{ type: AccessType.Read, path: dir }], timeoutMs: 120_000 });
        expect(out).toHaveLength(items.length);
        out.forEach((r, i) => {
            const name = path.basename(items[i]!.shown);
            if (name === 'missing.txt') expect(r).toMatchObject({ ok: false, kind: 'not_found' });
            else if (name === 'big.txt') expect(r).toMatchObject({ ok: false, kind: 'too_large' });
            else if (name === 'pipe') expect(r).toMatchObject({ ok: false, kind: 'wrong_type' });
            else {
                expect(r.ok).toBe(true);
                if (r.ok) expect(Buffer.from(r.bytes).toString()).toBe(`content ${name.slice(1, -4)}\n`);
            }
        });
    });
});

describe('Engine under concurrent runaway searches', () => {
    it('holds one thread for a search stuck in a runaway regex, however much work it has left', async () => {
        const e = new Engine({ maxThreads: 2 });
        try {
            const dir = tempDir('lcf-engine-stuck-');
            // More entries than a first task's budget: it hands the rest of the tree back as jobs, for two threads.
            for (let f = 0; f < 300; f++) write(dir, `${String(f).padStart(4, '0')}.txt`, f === 0 ? 'hello\n' : 'x\n');
            write(dir, 'a/evil.txt', `${'a'.repeat(40_000)}!\n`);
            // Seconds of work for a second thread: each line costs the pattern milliseconds, matching nothing.
            for (let d = 0; d < 100; d++) for (let f = 0; f < 20; f++) write(dir, `b${String(d).padStart(3, '0')}/f${f}.txt`, `${'a'.repeat(18)}!\n`);
            // Runs until aborted, so the samples below never depend on how fast the machine is.
            const ac = new AbortController();
            let finished = false;
            const pending = e.search(request(dir, { contentPattern: 'hello|(a+)+$' }), { timeoutMs: 300_000, signal: ac.signal }).then((r) => {
                finished = true;
                return r;
            });
            const busy = (): number => e.pool.threads.length - e.pool.idleThreads;
            // The first task walks the top directory alone (one busy thread, however long a loaded
            // machine makes it take), then hands a/ and the b*/ work to two threads. Once the task
            // in a/evil.txt is stuck, the search hands out no more work: the other thread goes idle
            // and stays idle. Waits for both threads busy, then for 1 s of one (at most 120 s)...
            let sawTwo = false;
            let ones = 0;
            for (let i = 0; i < 12_000 && ones < 100; i++) {
                await new Promise((r) => setTimeout(r, 10));
                const now = busy();
                if (now >= 2) sawTwo = true;
                ones = sawTwo && now === 1 ? ones + 1 : 0;
            }
            expect(sawTwo).toBe(true);
            expect(ones).toBe(100);
            // ...and checks that it stays so for another second, with the search still running.
            let most = 0;
            for (let i = 0; i < 20; i++) {
                most = Math.max(most, busy());
                await new Promise((r) => setTimeout(r, 50));
            }
            expect(finished).toBe(false);
            expect(most).toBe(1);
            ac.abort();
            const res = await pending;
            expect(res.stop).toBe('aborted');
            expect(res.hits.map((h) => h.path)).toEqual(['0000.txt']);
        } finally {
            await e.close();
        }
    });

    it('lets a second call in while a long plain search holds every thread (its sessions give them back)', async () => {
        const e = new Engine({ maxThreads: 1 });
        try {
            const dir = tempDir('lcf-engine-share-');
            // Each line costs the pattern a few milliseconds (polynomial backtracking, no repeated
            // group: not a risky pattern), so the search has seconds of work for its one thread.
            const slow = `z${'xy'.repeat(150)}\n`.repeat(4);
            for (let d = 0; d < 40; d++) for (let f = 0; f < 25; f++) write(dir, `d${String(d).padStart(2, '0')}/f${f}.txt`, slow);
            write(dir, 'zz/target.txt', 'x\n');
            const ac = new AbortController();
            let longDone = false;
            const long = e.search(request(dir, { contentPattern: 'x.*y.*z' }), { timeoutMs: 600_000, signal: ac.signal }).then((r) => {
                longDone = true;
                return r;
            });
            await new Promise((r) => setTimeout(r, 50));
            const short = await e.search(request(dir, { namePattern: '^target\\.txt$' }), { timeoutMs: 600_000 });
            expect(short.hits.map((h) => h.path)).toEqual(['zz/target.txt']);
            // The short call did not wait for the long one to end.
            expect(longDone).toBe(false);
            ac.abort();
            const res = await long;
            expect(res.stop).toBe('aborted');
        } finally {
            await e.close();
        }
    });

    it('still answers a plain search and a bulk read while six runaway searches run', async () => {
        const e = new Engine({ maxThreads: 2 });
        try {
            const dir = tempDir('lcf-engine-starve-');
            for (let i = 0; i < 30; i++) write(dir, `src/mod${i}.ts`, i % 10 === 0 ? `export const hello${i} = 1;\n` : 'export {};\n');
            write(dir, 'logs/huge.log', `${'a'.repeat(40_000)}!\n`);
            write(dir, 'docs/readme.md', 'hello docs\n');
            // The runaway searches must outlast the plain calls; on a loaded machine those may take
            // longer than the runaways' timeout, so the round is repeated with a longer one until
            // they did (the plain calls have a timeout they never reach).
            for (let timeoutMs = 8000; ; timeoutMs *= 2) {
                const runaway = Array.from({ length: 6 }, () => e.search(request(dir, { contentPattern: 'hello|(a+)+$' }), { timeoutMs }));
                let runawayDone = false;
                void Promise.all(runaway).then(() => (runawayDone = true));
                await new Promise((r) => setTimeout(r, 500)); // every runaway search is stuck in logs/huge.log soon
                const plain = await e.search(request(dir, { contentPattern: 'hello', namePattern: '\\.ts$' }), { timeoutMs: 120_000 });
                const files = ['src/mod0.ts', 'docs/readme.md'].map((f) => ({ shown: f, real: path.join(dir, f) }));
                const reads = await e.readMany(files, { maxBytes: 1e6, realRoots: null, timeoutMs: 120_000 });
                if (runawayDone && timeoutMs < 64_000) continue;
                expect(runawayDone).toBe(false);
                expect(plain.stop).toBe('done');
                expect(plain.hits.map((h) => h.path)).toEqual(['src/mod0.ts', 'src/mod10.ts', 'src/mod20.ts']);
                expect(reads.map((r) => r.ok)).toEqual([true, true]);
                for (const res of await Promise.all(runaway)) {
                    expect(res.stop).toBe('timeout');
                    expect(res.hits.map((h) => h.path)).toContain('docs/readme.md');
                }
                break;
            }
        } finally {
            await e.close();
        }
    });
});

describe('Engine lifecycle', () => {
    it('starts lazily, can be closed and used again', async () => {
        const e = new Engine({ maxThreads: 1 });
        expect(e.started).toBe(false);
        const dir = tempDir('lcf-engine-life-');
        write(dir, 'a.txt', 'x\n');
        expect((await e.search(request(dir), { timeoutMs: 120_000 })).hits).toHaveLength(1);
        expect(e.started).toBe(true);
        await e.close();
        expect(e.started).toBe(false);
        expect((await e.search(request(dir), { timeoutMs: 120_000 })).hits).toHaveLength(1);
        await e.close();
        expect(() => new Engine({ maxThreads: 0 })).toThrow(/maxThreads/);
        expect(() => new Engine({ maxThreads: 4, maxPoolThreads: 2 })).toThrow(/maxPoolThreads: 2; expected a whole number of at least maxThreads \(4\)/);
        // Room for concurrent calls beyond one call's threads.
        expect(new Engine({ maxThreads: 2 }).maxPoolThreads).toBe(18);
        expect(new Engine({ maxThreads: 32 }).maxPoolThreads).toBe(64);
    });

    it('gives each worker a young generation of 4 to 12 MiB, 24 MiB shared among maxThreads', () => {
        expect([1, 2, 3, 4, 6, 16, 64].map(workerYoungGenerationMb)).toEqual([12, 12, 8, 6, 4, 4, 4]);
    });

    it('does not keep the process alive with an idle pool', async () => {
        const dir = tempDir('lcf-engine-exit-');
        write(dir, 'a.txt', 'needle\n');
        const script = `
            import { Engine } from ${JSON.stringify(path.join(repo, 'src/engine/engine.ts'))};
            const res = await Engine.shared().search({ root: { real: ${JSON.stringify(dir)}, display: '.', realRoots: null, bounds: [] }, type: 'both', contentPattern: 'needle',
                maxResults: 10, maxFileSize: 1e6, maxTotalEntries: 1e6, skipDirs: [] }, { timeoutMs: 120_000 });
            console.log(JSON.stringify(res.hits));
        `;
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        const code = await new Promise<number | null>((resolve) => {
            // A hang waits forever; two minutes tell it from a slow start on a loaded machine.
            const timer = setTimeout(() => {
                child.kill('SIGKILL');
                resolve(null);
            }, 120_000);
            child.on('exit', (c) => {
                clearTimeout(timer);
                resolve(c);
            });
        });
        expect(stderr).toBe('');
        expect(code).toBe(0); // null would mean it hung and was killed
        expect(JSON.parse(stdout)).toEqual([{ path: 'a.txt', kind: 'file', line: 1, text: 'needle' }]);
    });
});
