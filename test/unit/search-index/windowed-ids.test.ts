/**
 * Content candidates made range by range (search-index/windowed-ids.ts) on segment files made by
 * the builder's encoder: every candidate of the whole evaluation is in its range, none outside the
 * lists' intersection, ranges behind the walk and single ids answered from the whole lists, and a
 * list that can no longer be read after the first part narrows nothing instead of failing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../bench/tree.js';
import type { NgramQuery } from '../../../src/search-index/planner.js';
import { evaluateSegments, segmentSources } from '../../../src/search-index/postings.js';
import { SegmentReader } from '../../../src/search-index/shared/segment.js';
import { encodeSegment } from '../../../src/search-index/shared/segment-encode.js';
import { WindowedIds } from '../../../src/search-index/windowed-ids.js';
import { tempDir } from '../../support/helpers.js';

const A = 0x616263;
const B = 0x626364;
const C = 0x636465;

/** A segment of `count` files from `firstId` where gram `g` is in each file with probability `p[g]`; masks from `rand`. */
function segment(file: string, firstId: number, count: number, p: Map<number, number>, rand: () => number): SegmentReader {
    const keys = Uint32Array.from([...p.keys()].sort((a, b) => a - b));
    const starts = new Uint32Array(keys.length + 1);
    const ids: number[] = [];
    const masks: number[] = [];
    for (const [r, k] of keys.entries()) {
        starts[r] = ids.length;
        for (let id = 0; id < count; id++) {
            if (rand() >= p.get(k)!) continue;
            ids.push(id);
            masks.push(Math.floor(rand() * 0x10000) | 1);
        }
    }
    starts[keys.length] = ids.length;
    fs.writeFileSync(file, encodeSegment(keys, starts, Uint32Array.from(ids), Uint16Array.from(masks), firstId, count));
    return new SegmentReader(file);
}

function segments(): SegmentReader[] {
    const dir = tempDir('lcf-windows-');
    const rand = mulberry32(11);
    const p = new Map([
        [A, 0.5],
        [B, 0.4],
        [C, 0.3],
    ]);
    return [segment(path.join(dir, 's0.bin'), 1, 30_000, p, rand), segment(path.join(dir, 's1.bin'), 30_001, 25_000, p, rand)];
}

const QUERIES: NgramQuery[] = [
    { op: 'and', of: [{ op: 'gram', gram: A }, { op: 'gram', gram: B }] },
    { op: 'seq', grams: [A, B, C] },
    { op: 'or', of: [{ op: 'gram', gram: C }, { op: 'seq', grams: [B, A] }] },
    // A gram read among candidates, then whole in the same range, then among others again.
    { op: 'or', of: [{ op: 'seq', grams: [C, A] }, { op: 'gram', gram: A }, { op: 'seq', grams: [B, A] }] },
    // A gram read among candidates twice in one range (from where its list stood at the range's start).
    { op: 'or', of: [{ op: 'seq', grams: [C, A] }, { op: 'seq', grams: [B, A] }] },
];

/** The ids of ascending ranges of `span` ids from `from` to `to`. */
function ranges(w: WindowedIds, from: number, to: number, span: number): number[] {
    const out: number[] = [];
    for (let a = from; a < to; a += span) out.push(...w.within(a, Math.min(to, a + span)));
    return out;
}

describe('windowed candidates', () => {
    it('are the candidates of the whole evaluation, range by range, with the extra ids; behind the walk and single ids from the whole lists', () => {
        const segs = segments();
        const extra = Uint32Array.from([5, 40_000]);
        for (const q of QUERIES) {
            // Lists this dense never stop an intersection early: both evaluations read every list.
            const whole = [...evaluateSegments(segmentSources(segs, 1, 55_001), q, 1, 55_001)!];
            const expected = [...new Set([...whole, 5, 40_000])].sort((x, y) => x - y);
            const w = new WindowedIds(segmentSources(segs, 1, 55_001), q, extra);
            expect(ranges(w, 1, 55_001, 3_000)).toEqual(expected);
            expect(w.listed).toBe(whole.length);
            expect([...w.within(100, 2_000)]).toEqual(expected.filter((x) => x >= 100 && x < 2_000));
            const listed = new Set(expected);
            for (let id = 1; id < 400; id++) expect(w.has(id)).toBe(listed.has(id));
        }
        for (const s of segs) s.close();
    });

    it('narrows nothing with a list it can no longer read after the first part, and fails while planning', () => {
        const segs = segments();
        const q = QUERIES[1]!;
        const whole = [...evaluateSegments(segmentSources(segs, 1, 55_001), q, 1, 55_001)!];
        const w = new WindowedIds(segmentSources(segs, 1, 55_001), q, new Uint32Array(0));
        const first = [...w.within(1, 4_097)];
        w.strict = false;
        for (const s of segs) s.close();
        const rest = new Set(ranges(w, 4_097, 55_001, 8_192));
        // The second segment's lists were never read: every one of its files is a candidate now.
        let missing = 0;
        for (let id = 30_001; id < 55_001; id++) if (!rest.has(id)) missing++;
        expect(missing).toBe(0);
        // The first segment's, read before, still narrow: its candidates are the whole evaluation's.
        expect([...first, ...[...rest].filter((id) => id < 30_001)]).toEqual(whole.filter((id) => id < 30_001));
        const strict = new WindowedIds(segmentSources(segs, 1, 55_001), q, new Uint32Array(0));
        expect(() => strict.within(1, 4_097)).toThrow();
    });
});
