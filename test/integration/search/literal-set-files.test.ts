/**
 * The scan's prefilter for an OR of literals (workers/search/literal-set.ts) on files above the
 * reusable buffer, read from disk and streamed in chunks by scanPath (workers/search/scan-file.ts):
 * a literal cut by each chunk boundary anywhere is found with each way of searching, and a file
 * holding only pieces of the literals is skipped. The set itself is test/unit/search/literal-set.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compilePattern, type PatternSpec } from '../../../src/search/regex.js';
import { LiteralSet } from '../../../workers/search/literal-set.js';
import { scanPath } from '../../../workers/search/scan-file.js';
import { makeMatcher } from '../../../workers/search/scan.js';
import { fileTempDir } from '../../support/engine-fixture.js';
import { oracleLines } from '../../support/oracle.js';

const MiB = 1 << 20;

interface StreamCase {
    name: string;
    file: string;
    expected: { line: number; text: string }[];
}

describe('files above the reusable buffer: streamed for any of the literals', () => {
    /** `n` characters of filler lines: a prefix of one text made once (a few MiB, sliced for each case). */
    let fillerText = '';
    const filler = (n: number): string => {
        if (fillerText.length < n) fillerText = 'the quick brown fox jumps over the lazy dog\n'.repeat(Math.ceil(n / 44));
        return fillerText.slice(0, n);
    };

    const sets = [
        ['Long_Literal_Token', 'qz'],
        ['Descriptor_Table', 'parameters_count'],
    ] as const;
    for (const [literals, how] of sets.flatMap((ls) => (['anchors', 'blocks', 'simd'] as const).map((how) => [ls, how] as const))) {
        const pattern = literals.join('|');
        it(`finds ${pattern} (${how}) across each chunk boundary, cut anywhere, and skips a file with neither`, () => {
            const spec = compilePattern(pattern);
            const byDefault = makeMatcher(spec);
            expect(byDefault.literals?.how).toBe('simd');
            const matcher = { ...byDefault, literals: new LiteralSet(byDefault.literals!.literals, how) };
            // Chunks of the stream: [0, M), then M - keep bytes each after the `keep` carried (longest - 1).
            const keep = matcher.literals!.longest - 1;
            const cases = streamCases(pattern, literals, keep, spec);
            for (const { name, file, expected } of cases) {
                const r = scanPath(file, null, { matcher, mode: 'content', maxFileSize: 10 * MiB, max: 1000, context: 0 })!;
                expect(r.lines.map((h) => ({ line: h.line, text: h.text })), name).toEqual(expected);
                expect(r.lines.length, name).toBe(name === 'none' ? 0 : 1);
                expect(r.scanned).toBe(true);
            }
        });
    }

    /**
     * One alternation's files (some twenty of 1.5 to 3 MiB), written once for its three searches,
     * and the oracle's lines of each; they stay until the file's last test (fileTempDir).
     */
    const made = new Map<string, StreamCase[]>();
    function streamCases(pattern: string, literals: readonly [string, string], keep: number, spec: PatternSpec): StreamCase[] {
        const key = `${pattern} ${keep}`;
        const known = made.get(key);
        if (known !== undefined) return known;
        const cases: [string, Buffer][] = [];
        for (const [b, at] of [MiB, 2 * MiB - keep].entries()) {
            for (const lit of literals) {
                for (const cut of new Set([1, 2, lit.length >> 1, lit.length - 2, lit.length - 1].filter((c) => c >= 1 && c < lit.length))) {
                    const shown = b % 2 === 0 ? lit.toUpperCase() : lit;
                    cases.push([`${b}-${lit}-${cut}`, Buffer.from(filler(at - cut) + shown + ' x\n' + filler(MiB / 2))]);
                }
            }
        }
        // Pieces of both literals right at the boundary, never whole: no match, the file skipped.
        cases.push(['none', Buffer.from(filler(MiB - 3) + `${literals[0].slice(0, -1)}\n${literals[0].slice(-1)} ${literals[1].slice(0, 1)}\n${literals[1].slice(1)}` + filler(2 * MiB))]);
        const dir = fileTempDir('literal-set-');
        const out = cases.map(([name, bytes]) => {
            const file = path.join(dir, `${name}.txt`);
            fs.writeFileSync(file, bytes);
            return { name, file, expected: oracleLines(bytes, pattern, spec.flags) };
        });
        made.set(key, out);
        return out;
    }
});
