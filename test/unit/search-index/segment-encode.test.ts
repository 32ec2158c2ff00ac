/**
 * A segment written as it is encoded (segment-encode.ts writeSegment: postings handed out a piece
 * at a time) is byte for byte the segment encoded whole, with 16-bit ids as with 32-bit ones, and
 * reads back through the reader's checks; a file that exists already is never overwritten.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeSegment, writeSegment } from '../../../src/search-index/shared/segment-encode.js';
import { DICT_BLOCK, SegmentReader } from '../../../src/search-index/shared/segment.js';
import { tempDir } from '../../support/helpers.js';
import { mulberry32 } from '../../../bench/tree.js';

/** Posting lists of `grams` grams over local ids `[0, count)`, some long enough (and with multi-byte deltas) to fill several pieces. */
function lists(count: number, grams: number): { keys: Uint32Array; starts: Uint32Array; ids: number[]; masks: number[] } {
    const rand = mulberry32(11);
    const keys = new Set<number>();
    while (keys.size < grams) keys.add(Math.floor(rand() * (1 << 24)));
    const sorted = Uint32Array.from([...keys].sort((a, b) => a - b));
    const starts = new Uint32Array(grams + 1);
    const ids: number[] = [];
    const masks: number[] = [];
    for (let g = 0; g < grams; g++) {
        starts[g] = ids.length;
        const step = g % 7 === 0 ? 1 : 1 + Math.floor(rand() * 400);
        for (let id = Math.floor(rand() * step); id < count; id += step) {
            ids.push(id);
            masks.push((g * 31 + id) & 0xffff);
        }
    }
    starts[grams] = ids.length;
    return { keys: sorted, starts, ids, masks };
}

describe('segment encoding', () => {
    it('writes, piece by piece, the bytes encoded whole; 16-bit ids give the same file; the reader gets every list back', () => {
        const dir = tempDir('lcf-segenc-');
        const { keys, starts, ids, masks } = lists(60_000, 80);
        const whole = encodeSegment(keys, starts, Uint32Array.from(ids), Uint16Array.from(masks), 5, 60_000);
        // Postings of more than a megabyte: more than one piece.
        expect(whole.length).toBeGreaterThan(1.5 * (1 << 20));
        const wide = path.join(dir, 'wide.bin');
        const narrow = path.join(dir, 'narrow.bin');
        expect(writeSegment(wide, keys, starts, Uint32Array.from(ids), Uint16Array.from(masks), 5, 60_000)).toBe(whole.length);
        expect(writeSegment(narrow, keys, starts, Uint16Array.from(ids), Uint16Array.from(masks), 5, 60_000)).toBe(whole.length);
        expect(fs.readFileSync(wide).equals(whole)).toBe(true);
        expect(fs.readFileSync(narrow).equals(whole)).toBe(true);
        expect((fs.statSync(wide).mode & 0o777).toString(8)).toBe('600');
        const reader = new SegmentReader(wide);
        try {
            for (let g = 0; g < keys.length; g += 9) {
                const got = reader.read(reader.lookup(keys[g]!)!);
                expect([...got.ids]).toEqual(ids.slice(starts[g]!, starts[g + 1]!).map((id) => id + 5));
                // A posting stored without masks (0) decodes with masks that rule nothing out.
                expect([...got.masks]).toEqual(masks.slice(starts[g]!, starts[g + 1]!).map((m) => m || 0xffff));
            }
            expect(reader.lookup(keys[0]! === 0 ? 1 : 0)).toBeNull();
        } finally {
            reader.close();
        }
    });

    it('gives a segment the same bytes before and after larger ones (the buffers a thread keeps between segments leak nothing), its dictionary blocks whole and partial read back', () => {
        const dir = tempDir('lcf-segenc-');
        // 64 * 5 + 3 grams: five whole dictionary blocks and a partial one.
        const small = lists(3000, DICT_BLOCK * 5 + 3);
        const big = lists(60_000, 80);
        const encodeSmall = (): Buffer => encodeSegment(small.keys, small.starts, Uint32Array.from(small.ids), Uint16Array.from(small.masks), 1, 3000);
        const first = encodeSmall();
        writeSegment(path.join(dir, 'big.bin'), big.keys, big.starts, Uint32Array.from(big.ids), Uint16Array.from(big.masks), 1, 60_000);
        const file = path.join(dir, 'small.bin');
        writeSegment(file, small.keys, small.starts, Uint32Array.from(small.ids), Uint16Array.from(small.masks), 1, 3000);
        expect(fs.readFileSync(file).equals(first)).toBe(true);
        expect(encodeSmall().equals(first)).toBe(true);
        const reader = new SegmentReader(file);
        try {
            expect(reader.blockCount).toBe(6);
            const wrong = [...small.keys.keys()].filter((g) => {
                const got = reader.read(reader.lookup(small.keys[g]!)!);
                const want = small.ids.slice(small.starts[g]!, small.starts[g + 1]!).map((id) => id + 1);
                return got.ids.length !== want.length || want.some((id, i) => got.ids[i] !== id);
            });
            expect(wrong).toEqual([]);
            expect(reader.dictBlocks(0, 6).length).toBe((DICT_BLOCK * 5 + 3) * 20);
            // Read into a buffer of the caller's (the merge's, one per input) when it has room, else into a new one.
            const room = Buffer.alloc(2 * DICT_BLOCK * 20);
            const into = reader.dictBlocks(4, 2, room);
            expect(into.buffer).toBe(room.buffer);
            expect(into.equals(reader.dictBlocks(4, 2))).toBe(true);
            expect(into.length).toBe((DICT_BLOCK + 3) * 20);
            expect(reader.dictBlocks(0, 3, room).buffer).not.toBe(room.buffer);
        } finally {
            reader.close();
        }
    });

    it('refuses to write over an existing file and leaves it as it was', () => {
        const dir = tempDir('lcf-segenc-');
        const file = path.join(dir, 'seg.bin');
        fs.writeFileSync(file, 'not mine');
        const { keys, starts, ids, masks } = lists(100, 3);
        expect(() => writeSegment(file, keys, starts, Uint32Array.from(ids), Uint16Array.from(masks), 0, 100)).toThrow(/EEXIST/);
        expect(fs.readFileSync(file, 'utf8')).toBe('not mine');
    });

    it('writes an empty segment (a chunk without text) that opens with no gram', () => {
        const dir = tempDir('lcf-segenc-');
        const file = path.join(dir, 'empty.bin');
        writeSegment(file, new Uint32Array(0), new Uint32Array(1), new Uint16Array(0), new Uint16Array(0), 3, 4);
        const reader = new SegmentReader(file);
        expect([reader.gramCount, reader.firstId, reader.fileCount]).toEqual([0, 3, 4]);
        expect(reader.lookup(0x616263)).toBeNull();
        reader.close();
    });
});
