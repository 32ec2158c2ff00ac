/**
 * Files above the worker's reusable 1 MiB buffer are first streamed through it for the
 * pattern's literal and read whole only when it is there: results must be exactly the oracle's,
 * whatever the position of the literal (across a chunk boundary, at the very end), the encoding
 * (UTF-8, Latin-1, UTF-16 with BOM) and the output mode, with symlink checks on and off.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine, type SearchRequest } from '../../../src/internals.js';
import { compilePattern } from '../../../src/search/regex.js';
import { oracleLines } from '../../support/oracle.js';
import { searchRootAt } from '../../../src/search/prepare.js';

const MiB = 1 << 20;
const filler = (bytes: number): string => {
    const line = 'the quick brown fox jumps over the lazy dog and keeps on running far away\n';
    return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
};

/** name -> bytes: each above 1 MiB, the literal `Needle_Token` placed where a chunked read could miss it. */
function files(): Record<string, Buffer> {
    const straddle = filler(MiB - 5) + 'Needle_Token here\n' + filler(MiB);
    const carried = filler(2 * MiB - 3) + 'NEEDLE_TOKEN\n' + filler(1000);
    return {
        'a-straddle.txt': Buffer.from(straddle),
        'b-carried.txt': Buffer.from(carried),
        'c-end.txt': Buffer.from(filler(3 * MiB) + 'last needle_token'),
        'd-absent.txt': Buffer.from(filler(3 * MiB) + 'needle_toke\nn'),
        'e-latin1.txt': Buffer.concat([Buffer.from(filler(MiB + 10)), Buffer.from('caf\xe9 needle_token \xe9t\xe9\n', 'latin1'), Buffer.from(filler(1000))]),
        'f-utf16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(filler(MiB) + 'x needle_token y\n' + filler(1000), 'utf16le')]),
        'g-utf8.txt': Buffer.from(filler(MiB + 100) + 'na\u00efve needle_token \u2014 ok\n' + 'needle_token twice on a line needle_token\n'),
        'h-binary.bin': Buffer.concat([Buffer.from([0, 1, 2, 3]), Buffer.from(filler(2 * MiB) + 'needle_token\n')]),
    };
}

describe('content search of files above the reusable buffer', () => {
    const engine = new Engine({ maxThreads: 2 });
    // One tree for all cases (helpers' tempDir is removed after each test).
    const root = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'lcf-large-'));
    afterAll(async () => {
        await engine.close();
        fs.rmSync(root, { recursive: true, force: true });
    });
    const content = files();
    for (const [name, bytes] of Object.entries(content)) fs.writeFileSync(path.join(root, name), bytes);
    const request = (contentPattern: string, checks: boolean, extra: Partial<SearchRequest> = {}): SearchRequest => ({
        root: searchRootAt(root, checks ? [root] : null),
        type: 'file',
        contentPattern,
        maxResults: 1_000_000,
        maxFileSize: 10 * MiB,
        maxTotalEntries: 1_000_000,
        skipDirs: [],
        ...extra,
    });

    /** The oracle's lines of every file for `pattern`, in path order (computed once per pattern: the files never change). */
    const oracle = new Map<string, { path: string; line: number; text: string }[]>();
    const expectedFor = (pattern: string): { path: string; line: number; text: string }[] => {
        let lines = oracle.get(pattern);
        if (!lines) {
            const flags = compilePattern(pattern).flags;
            lines = Object.keys(content)
                .sort()
                .flatMap((name) => oracleLines(content[name]!, pattern, flags).map((l) => ({ path: name, line: l.line, text: l.text })));
            oracle.set(pattern, lines);
        }
        return lines;
    };

    for (const pattern of ['needle_token', 'needle_\\w+', 'e_tok']) {
        for (const checks of [true, false]) {
            it(`finds exactly the oracle's lines for ${pattern} (checks ${checks ? 'on' : 'off'})`, async () => {
                const expected = expectedFor(pattern);
                // The cases this test is about are all there.
                const withLiteral = ['a-straddle.txt', 'b-carried.txt', 'c-end.txt', 'e-latin1.txt', 'f-utf16.txt', 'g-utf8.txt'];
                expect(new Set(expected.map((e) => e.path))).toEqual(new Set(pattern === 'needle_token' ? withLiteral : [...withLiteral, 'd-absent.txt']));
                const res = await engine.search(request(pattern, checks), { timeoutMs: 60_000 });
                expect(res.stop).toBe('done');
                expect(res.hits.map((h) => ({ path: h.path, line: h.line, text: h.text }))).toEqual(expected);
                const counts = await engine.search(request(pattern, checks, { outputMode: 'count' }), { timeoutMs: 60_000 });
                const perFile = new Map<string, number>();
                for (const e of expected) perFile.set(e.path, (perFile.get(e.path) ?? 0) + 1);
                expect(counts.hits.map((h) => [h.path, h.count])).toEqual([...perFile]);
                const withMatches = await engine.search(request(pattern, checks, { outputMode: 'files_with_matches' }), { timeoutMs: 60_000 });
                expect(withMatches.hits.map((h) => h.path)).toEqual([...perFile.keys()]);
            });
        }
    }
});

describe('content search while the reusable buffer grows', () => {
    it('keeps the first bytes of each file that makes the buffer grow (its binary sample is read first)', async () => {
        const root = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'lcf-grow-'));
        // A fresh engine: its workers' buffers start small, and each file below is larger than the one before.
        const engine = new Engine({ maxThreads: 1 });
        try {
            const sizes = { 'a1.txt': 100_000, 'a2.txt': 300_000, 'a3.txt': 700_000, 'a4.txt': 1_000_000 };
            for (const [name, size] of Object.entries(sizes)) fs.writeFileSync(path.join(root, name), `first_token_${name}\n` + filler(size));
            const res = await engine.search(
                { root: searchRootAt(root), type: 'file', contentPattern: 'first_token_a\\d', maxResults: 100, maxFileSize: 10 * MiB, maxTotalEntries: 100, skipDirs: [] },
                { timeoutMs: 60_000 },
            );
            expect(res.hits.map((h) => [h.path, h.line, h.text])).toEqual(Object.keys(sizes).map((name) => [name, 1, `first_token_${name}`]));
        } finally {
            await engine.close();
            fs.rmSync(root, { recursive: true, force: true });
        }
    });
});
