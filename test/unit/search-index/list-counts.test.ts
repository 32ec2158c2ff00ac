/**
 * A list's length as the planner reads it (postings.ts `SegmentLists.size`, from the dictionary
 * entry's count) is the number of files holding the gram, whatever the list's code: packs (a
 * dense list in a few bits a posting), single postings with mask bytes, or both mixed, in a
 * segment as the build writes it and after the merge encodes each list anew. A list's bytes
 * are no measure of it: the dense lists here take a small part of a byte per posting where the
 * segment's average is above one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SegmentLists } from '../../../src/search-index/postings.js';
import { BLOCKED, checkedBody, storedLength } from '../../../src/search-index/shared/posting-list.js';
import { PACK_PLAIN } from '../../../src/search-index/shared/posting-pack.js';
import { SegmentReader } from '../../../src/search-index/shared/segment.js';
import { encodeSegment } from '../../../src/search-index/shared/segment-encode.js';
import { runIndexMerge } from '../../../workers/search-index/index-merge.js';
import { tempDir } from '../../support/helpers.js';

const FILES = 12_000;
/** Gram keys of the lists, by the code their postings take. */
const PACKED = 0x616161;
const SINGLE = 0x626262;
const MIXED = 0x636363;
const SPARSE = 0x646464;
const ABSENT = 0x656565;

/** Each list: its local ids (ascending) and packed masks (0: none stored). */
function lists(count: number): Map<number, { ids: number[]; masks: number[] }> {
    const out = new Map<number, { ids: number[]; masks: number[] }>();
    const make = (keep: (id: number) => boolean, mask: (id: number) => number): { ids: number[]; masks: number[] } => {
        const ids: number[] = [];
        for (let id = 0; id < count; id++) if (keep(id)) ids.push(id);
        return { ids, masks: ids.map(mask) };
    };
    // Every other file, no masks: runs of 128 packed at a width of one bit.
    out.set(PACKED, make((id) => id % 2 === 0, () => 0));
    // Every third file, each posting with its mask bytes: single postings only (masked runs are never packed).
    out.set(SINGLE, make((id) => id % 3 === 0, (id) => (id * 7919) & 0xffff || 1));
    // Most files, masks on a stretch in the middle: packs before and after it, single postings in it and at the tail.
    out.set(MIXED, make((id) => id % 5 !== 4, (id) => (id >= count / 3 && id < count / 2 ? (id & 0xffff) | 1 : 0)));
    // A few files far apart: single postings of multi-byte deltas.
    out.set(SPARSE, make((id) => id % 997 === 5, () => 0));
    return out;
}

function write(file: string, ls: Map<number, { ids: number[]; masks: number[] }>, firstId: number, count: number): void {
    const keys = Uint32Array.from([...ls.keys()].sort((a, b) => a - b));
    const starts = new Uint32Array(keys.length + 1);
    const ids: number[] = [];
    const masks: number[] = [];
    for (const [r, k] of keys.entries()) {
        starts[r] = ids.length;
        ids.push(...ls.get(k)!.ids);
        masks.push(...ls.get(k)!.masks);
    }
    starts[keys.length] = ids.length;
    fs.writeFileSync(file, encodeSegment(keys, starts, Uint32Array.from(ids), Uint16Array.from(masks), firstId, count));
}

/** The body of `key`'s stored list, checked against its CRC. */
function body(reader: SegmentReader, key: number): Uint8Array {
    const ref = reader.lookup(key)!;
    const stored = Buffer.alloc(storedLength(ref.len));
    reader.postingBytes(stored, ref.off, stored.length);
    return checkedBody(stored, (ref.len & BLOCKED) !== 0, ref.crc, 'seg');
}

/** Checks, for one segment file, that `size` is each list's real count, and that the packed list's bytes would have told far less. */
function checkCounts(file: string, expected: Map<number, number>): void {
    const reader = new SegmentReader(file);
    try {
        const src = new SegmentLists(reader);
        for (const [key, n] of expected) {
            expect(src.size(key), `gram ${key.toString(16)}`).toBe(n);
            expect(reader.read(reader.lookup(key)!).ids.length).toBe(n);
        }
        expect(src.size(ABSENT)).toBe(0);
        // The packed and mixed lists open with a pack, the single one with a single posting.
        expect(body(reader, PACKED)[0]).toBe(PACK_PLAIN);
        expect(body(reader, MIXED)[0]).toBe(PACK_PLAIN);
        expect(body(reader, SINGLE)[0]).toBeGreaterThan(1);
        // The bytes at the segment's bytes per posting (the estimate packs skewed) say under a quarter of the packed list's count.
        const byBytes = (storedLength(reader.lookup(PACKED)!.len) * reader.postings) / reader.postingsLength;
        expect(byBytes).toBeLessThan(expected.get(PACKED)! / 4);
    } finally {
        reader.close();
    }
}

describe('posting counts in the dictionary', () => {
    it('size() is the real count of packed, single and mixed lists, in a built segment and after a merge', () => {
        const dir = tempDir('lcf-counts-');
        const half = FILES / 2;
        const a = lists(half);
        const b = lists(half);
        const fa = path.join(dir, 'seg-0000.bin');
        const fb = path.join(dir, 'seg-0001.bin');
        write(fa, a, 1, half);
        write(fb, b, 1 + half, half);
        checkCounts(fa, new Map([...a].map(([k, l]) => [k, l.ids.length])));
        const out = path.join(dir, 'merged-0000.bin');
        expect(runIndexMerge({ op: 'index-merge', inputs: [fa, fb], out })).toMatchObject({ ok: true, grams: 4 });
        checkCounts(out, new Map([...a].map(([k, l]) => [k, l.ids.length + b.get(k)!.ids.length])));
    });
});
