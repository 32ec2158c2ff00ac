/**
 * The merge of segment files (workers/search-index/index-merge.ts) on segments made by the
 * builder's encoder: every gram's merged list is the concatenation of the inputs' lists, each
 * posting with its masks, read back through the reader with all its checks; a damaged input fails
 * the merge and leaves no file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DICT_BLOCK, SegmentReader } from '../../../src/search-index/shared/segment.js';
import { encodeSegment } from '../../../src/search-index/shared/segment-encode.js';
import { runIndexMerge } from '../../../workers/search-index/index-merge.js';
import { tempDir } from '../../support/helpers.js';
import { mulberry32 } from '../../../bench/tree.js';

/** Random posting lists over local ids `[0, count)`: gram -> ascending ids. */
function randomLists(rand: () => number, count: number, grams: number): Map<number, number[]> {
    // A key drawn again adds to its set: copying the set at each draw made the 200 small keys'
    // lists quadratic, a second of CPU for the same lists.
    const sets = new Map<number, Set<number>>();
    for (let k = 0; k < grams; k++) {
        // Some grams shared by many segments (small keys), some rare; a few ids far apart (multi-byte deltas).
        const key = rand() < 0.3 ? Math.floor(rand() * 200) : Math.floor(rand() * (1 << 24));
        let ids = sets.get(key);
        if (ids === undefined) sets.set(key, (ids = new Set<number>()));
        const n = 1 + Math.floor(rand() * Math.min(count, rand() < 0.1 ? 2000 : 20));
        for (let i = 0; i < n; i++) ids.add(Math.floor(rand() * count));
    }
    const lists = new Map<number, number[]>();
    for (const [key, ids] of sets) lists.set(key, [...ids].sort((a, b) => a - b));
    return lists;
}

/** The packed masks the tests give the posting of gram `k` in file `id` (absolute): any 16 bits, a location bit set. */
function maskOf(k: number, id: number): number {
    return (Math.imul(k, 0x9e3779b1) ^ Math.imul(id, 0x85ebca6b)) & 0xffff | 1;
}

function writeSegment(file: string, lists: Map<number, number[]>, firstId: number, count: number): void {
    const keys = Uint32Array.from([...lists.keys()].sort((a, b) => a - b));
    const starts = new Uint32Array(keys.length + 1);
    const ids: number[] = [];
    const masks: number[] = [];
    for (const [r, k] of keys.entries()) {
        starts[r] = ids.length;
        for (const id of lists.get(k)!) {
            ids.push(id);
            masks.push(maskOf(k, id + firstId));
        }
    }
    starts[keys.length] = ids.length;
    fs.writeFileSync(file, encodeSegment(keys, starts, Uint32Array.from(ids), Uint16Array.from(masks), firstId, count));
}

describe('segment merge', () => {
    it('gives every gram the concatenation of the inputs\' lists, in id order, masks kept, through the reader\'s checks', () => {
        const dir = tempDir('lcf-merge-');
        const rand = mulberry32(7);
        const inputs: string[] = [];
        const expected = new Map<number, number[]>();
        let firstId = 1;
        for (let s = 0; s < 9; s++) {
            // Ranges of very different sizes: ids up to millions (deltas of 3 and 4 bytes).
            const count = s === 4 ? 3_000_000 : 1 + Math.floor(rand() * 5000);
            const lists = randomLists(rand, count, s === 0 ? DICT_BLOCK * 40 + 3 : 500 + Math.floor(rand() * 3000));
            const file = path.join(dir, `seg-${String(s).padStart(4, '0')}.bin`);
            writeSegment(file, lists, firstId, count);
            for (const [k, ids] of lists) expected.set(k, [...(expected.get(k) ?? []), ...ids.map((i) => i + firstId)]);
            inputs.push(file);
            firstId += count;
        }
        const out = path.join(dir, 'merged-0000.bin');
        const r = runIndexMerge({ op: 'index-merge', inputs, out });
        expect(r).toMatchObject({ ok: true, grams: expected.size });
        expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
        const merged = new SegmentReader(out);
        try {
            expect(merged.firstId).toBe(1);
            expect(merged.fileCount).toBe(firstId - 1);
            expect(merged.gramCount).toBe(expected.size);
            const wrong: number[] = [];
            for (const [k, ids] of expected) {
                const ref = merged.lookup(k);
                const got = ref === null ? { ids: [], masks: [] } : merged.read(ref);
                if (got.ids.length !== ids.length || ids.some((id, i) => got.ids[i] !== id || got.masks[i] !== maskOf(k, id))) wrong.push(k);
            }
            expect(wrong).toEqual([]);
            // Grams no input holds.
            for (const k of [201, 1 << 23, (1 << 24) - 1]) if (!expected.has(k)) expect(merged.lookup(k)).toBeNull();
        } finally {
            merged.close();
        }
    });

    it('writes the file the encoder writes for the joined lists, with read buffers shared by many inputs and reads far smaller than a list', () => {
        const dir = tempDir('lcf-merge-');
        const rand = mulberry32(11);
        const inputs: string[] = [];
        const joined = new Map<number, number[]>();
        let firstId = 1;
        // 300 inputs, as a merge at ten times the Linux tree joins hundreds; a few lists of
        // thousands of postings, longer than the 4 KiB reads of the least budget.
        for (let s = 0; s < 300; s++) {
            const count = 1 + Math.floor(rand() * (s % 50 === 0 ? 20_000 : 300));
            const lists = randomLists(rand, count, s % 50 === 0 ? DICT_BLOCK * 3 + 5 : 20 + Math.floor(rand() * 100));
            const file = path.join(dir, `seg-${String(s).padStart(4, '0')}.bin`);
            writeSegment(file, lists, firstId, count);
            for (const [k, ids] of lists) joined.set(k, [...(joined.get(k) ?? []), ...ids.map((i) => i + firstId - 1)]);
            inputs.push(file);
            firstId += count;
        }
        // The encoder's file for the joined lists over the merged range (local ids from 0).
        const keys = Uint32Array.from([...joined.keys()].sort((a, b) => a - b));
        const starts = new Uint32Array(keys.length + 1);
        const ids: number[] = [];
        const masks: number[] = [];
        for (const [r, k] of keys.entries()) {
            starts[r] = ids.length;
            for (const id of joined.get(k)!) {
                ids.push(id);
                // Masks of all ones are stored without mask bytes by the merge (0 to the encoder).
                masks.push(maskOf(k, id + 1) === 0xffff ? 0 : maskOf(k, id + 1));
            }
        }
        starts[keys.length] = ids.length;
        const expected = encodeSegment(keys, starts, Uint32Array.from(ids), Uint16Array.from(masks), 1, firstId - 1);
        const held: number[] = [];
        for (const readBudget of [undefined, 1]) {
            const out = path.join(dir, `merged-${readBudget ?? 'default'}.bin`);
            const r = runIndexMerge({ op: 'index-merge', inputs, out, readBudget });
            expect(r).toMatchObject({ ok: true, grams: keys.length, bytes: expected.length });
            expect(fs.readFileSync(out).equals(expected)).toBe(true);
            if (r.ok) held.push(r.heldBytes);
        }
        // The default budget (4 MiB) bounds the buffers whatever the number of inputs: 300 inputs
        // at 336 KiB each would be 98 MiB. The least budget holds 4 KiB of postings and one
        // dictionary block per input, a long list's read grown to it.
        expect(held[0]).toBeLessThan(12 << 20);
        expect(held[1]).toBeLessThan(300 * (8 << 10) + (4 << 20));
    });

    it('holds a gram\'s list encoded as its inputs come, not decoded whole: a list of 2 million postings over 16 inputs', () => {
        const dir = tempDir('lcf-merge-');
        const inputs: string[] = [];
        const perInput = 125_000;
        const common = 0x616263;
        for (let s = 0; s < 16; s++) {
            // Every file holds the common gram (unmasked: packed, a few bytes per 128 postings); every
            // 1000th holds another, so that the dictionary has more than one entry.
            const all = Uint32Array.from({ length: perInput }, (_, i) => i);
            const few = all.filter((i) => i % 1000 === 0);
            const keys = Uint32Array.of(common, common + s + 1);
            const ids = new Uint32Array(all.length + few.length);
            ids.set(all);
            ids.set(few, all.length);
            const file = path.join(dir, `seg-${String(s).padStart(4, '0')}.bin`);
            fs.writeFileSync(file, encodeSegment(keys, Uint32Array.of(0, all.length, ids.length), ids, new Uint16Array(ids.length), 1 + s * perInput, perInput));
            inputs.push(file);
        }
        const out = path.join(dir, 'merged-0000.bin');
        const r = runIndexMerge({ op: 'index-merge', inputs, out, readBudget: 1 });
        expect(r).toMatchObject({ ok: true, grams: 17 });
        const merged = new SegmentReader(out);
        try {
            const got = merged.read(merged.lookup(common)!);
            expect(got.ids.length).toBe(16 * perInput);
            expect(got.ids.every((id, i) => id === i + 1)).toBe(true);
            expect(merged.read(merged.lookup(common + 16)!).ids).toEqual(Uint32Array.from({ length: perInput / 1000 }, (_, i) => 1 + 15 * perInput + i * 1000));
        } finally {
            merged.close();
        }
        // Decoded whole, the list alone is 12 MB (ids and masks); the writer's buffers are 1.25 MB,
        // the inputs' reads a few KiB each, one input's list waits decoded (0.75 MB).
        if (r.ok) expect(r.heldBytes).toBeLessThan(6 << 20);
    });

    it('fails on a damaged input (a posting list\'s checksum) and leaves no merged or temporary file', () => {
        const dir = tempDir('lcf-merge-');
        const rand = mulberry32(3);
        const a = path.join(dir, 'seg-0000.bin');
        const b = path.join(dir, 'seg-0001.bin');
        writeSegment(a, randomLists(rand, 100, 300), 1, 100);
        writeSegment(b, randomLists(rand, 100, 300), 101, 100);
        const bytes = fs.readFileSync(b);
        bytes[bytes.length - 2] = bytes[bytes.length - 2]! ^ 0xff;
        fs.writeFileSync(b, bytes);
        const out = path.join(dir, 'merged-0000.bin');
        const r = runIndexMerge({ op: 'index-merge', inputs: [a, b], out });
        expect(r.ok).toBe(false);
        expect(fs.readdirSync(dir).sort()).toEqual(['seg-0000.bin', 'seg-0001.bin']);
    });

    it('refuses inputs that are not consecutive id ranges', () => {
        const dir = tempDir('lcf-merge-');
        const rand = mulberry32(5);
        const a = path.join(dir, 'seg-0000.bin');
        const b = path.join(dir, 'seg-0001.bin');
        writeSegment(a, randomLists(rand, 100, 50), 1, 100);
        writeSegment(b, randomLists(rand, 100, 50), 150, 100);
        const r = runIndexMerge({ op: 'index-merge', inputs: [a, b], out: path.join(dir, 'merged-0000.bin') });
        expect(r.ok).toBe(false);
        expect(fs.existsSync(path.join(dir, 'merged-0000.bin'))).toBe(false);
    });
});
