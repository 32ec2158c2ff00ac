/**
 * Posting lists cut into checked blocks (posting-list.ts): a blocked list decodes as its whole
 * body does, reads only the blocks a decoding enters, and a corrupt block or table is an
 * IndexFormatError when it is reached, never postings read wrongly.
 */
import { describe, expect, it } from 'vitest';
import { IndexFormatError } from '../../../src/search-index/shared/format.js';
import { decodeAmong, decodePostings, PostingCursor } from '../../../src/search-index/shared/posting-codec.js';
import { ENCODINGS } from '../../support/postings.js';
import { checkedBody, frameList, ListBytes, LIST_BLOCK } from '../../../src/search-index/shared/posting-list.js';
import { mulberry32 } from '../../../bench/tree.js';
import { expectSameItems } from '../../support/same-items.js';


/** The stored bytes of a body (table and body), and a list read from them block by block, counting the blocks' bytes read. */
function stored(body: Uint8Array): { bytes: Uint8Array; crc: number; headLen: number; open: () => { list: ListBytes; read: { bytes: number } } } {
    const frame = frameList(body);
    expect(frame.blocked).toBe(true);
    const bytes = new Uint8Array(frame.head.length + body.length);
    bytes.set(frame.head);
    bytes.set(body, frame.head.length);
    const headLen = frame.head.length;
    const open = (): { list: ListBytes; read: { bytes: number } } => {
        const read = { bytes: 0 };
        const list = ListBytes.blocked(bytes.subarray(0, headLen), body.length, (dst, from, len) => {
            read.bytes += len;
            dst.set(bytes.subarray(headLen + from, headLen + from + len), from);
        }, 'test-list');
        return { list, read };
    };
    return { bytes, crc: frame.crc, headLen, open };
}

function sortedIds(rand: () => number, n: number, span: number): number[] {
    // Sorted, then each id kept once: the same ids as a Set sorted with a comparator, at a fraction of its CPU.
    const drawn = new Float64Array(n);
    for (let i = 0; i < n; i++) drawn[i] = Math.floor(rand() * span);
    drawn.sort();
    const ids: number[] = [];
    for (const id of drawn) if (ids.length === 0 || ids[ids.length - 1] !== id) ids.push(id);
    return ids;
}

describe.each(ENCODINGS)('blocked posting lists (%s)', (_encoding, encode) => {
    /** The list's bytes, masks made with the file's own factor. */
    const bodyOf = (ids: readonly number[]): Uint8Array => encode(ids, 40_503);

    it('leaves a short body unblocked, with the CRC of its bytes', () => {
        const body = bodyOf([1, 5, 9]);
        const frame = frameList(body);
        expect(frame.blocked).toBe(false);
        expect(frame.head.length).toBe(0);
        expect(checkedBody(body, false, frame.crc, 'f')).toBe(body);
        expect(() => checkedBody(body, false, frame.crc ^ 1, 'f')).toThrow(IndexFormatError);
    });

    it('decodes whole, in ranges and among candidates exactly as the whole body does', () => {
        const rand = mulberry32(17);
        for (let round = 0; round < 40; round++) {
            const local = sortedIds(rand, 3000 + Math.floor(rand() * 20_000), 400_000);
            const body = bodyOf(local);
            expect(body.length).toBeGreaterThan(LIST_BLOCK);
            const s = stored(body);
            const firstId = Math.floor(rand() * 1000);
            const want = decodePostings(body, firstId);
            const whole = decodePostings(s.open().list, firstId);
            expectSameItems(whole.ids, want.ids);
            expectSameItems(whole.masks, want.masks);
            // Ascending windows, each asked whole or among candidates, as windowed-ids.ts asks them.
            const plain = new PostingCursor(body, firstId);
            const blocked = new PostingCursor(s.open().list, firstId);
            for (let a = 0; a < 500_000; ) {
                const b = a + 1 + Math.floor(rand() * 60_000);
                if (rand() < 0.5) {
                    const x = plain.range(a, b);
                    const y = blocked.range(a, b);
                    expectSameItems(y.ids, x.ids);
                    expectSameItems(y.masks, x.masks);
                } else {
                    const among = Uint32Array.from(sortedIds(rand, Math.floor(rand() * 30), 500_000));
                    const x = plain.rangeAmong(a, b, among);
                    const y = blocked.rangeAmong(a, b, among);
                    expectSameItems(y.ids, x.ids);
                    expectSameItems(y.masks, x.masks);
                }
                a = b;
            }
            const among = Uint32Array.from(sortedIds(rand, 50, 500_000));
            expectSameItems(decodeAmong(s.open().list, firstId, among).ids, decodeAmong(body, firstId, among).ids);
        }
    });

    it('reads only the blocks holding the candidates asked for', () => {
        const local = Array.from({ length: 200_000 }, (_, k) => 2 * k);
        const body = bodyOf(local);
        const s = stored(body);
        const { list, read } = s.open();
        expect(list.blocks).toBeGreaterThan(50);
        const got = decodeAmong(list, 0, Uint32Array.from([10, 200_001, 399_998]));
        expect([...got.ids]).toEqual([10, 399_998]);
        // Three blocks (with the runs read after them) of more than fifty.
        expect(read.bytes).toBeLessThan(body.length / 2);
    });

    it('detects a corrupt block when a decoding reaches it, and a corrupt table at once', () => {
        const local = Array.from({ length: 100_000 }, (_, k) => 3 * k + 1);
        const body = bodyOf(local);
        const s = stored(body);
        const last = s.bytes.length - 10;
        s.bytes[last] = s.bytes[last]! ^ 0x40;
        // The start of the list decodes: its blocks are intact (and nothing past them is read).
        const early = new PostingCursor(s.open().list, 0).range(0, 1000);
        expect(early.ids.length).toBeGreaterThan(0);
        expect(() => decodePostings(s.open().list, 0)).toThrow(/block checksum mismatch/);
        expect(() => decodeAmong(s.open().list, 0, Uint32Array.from([3 * 99_999 + 1]))).toThrow(IndexFormatError);
        expect(() => checkedBody(s.bytes, true, s.crc, 'f')).toThrow(/block checksum mismatch/);
        s.bytes[last] = s.bytes[last]! ^ 0x40;
        const restored = checkedBody(s.bytes, true, s.crc, 'f');
        expect(restored).toBeInstanceOf(Uint8Array);
        expectSameItems(restored, body);
        // A table byte changed: the table's CRC (the dictionary's) no longer holds.
        s.bytes[5] = s.bytes[5]! ^ 1;
        expect(() => checkedBody(s.bytes, true, s.crc, 'f')).toThrow(/posting list checksum mismatch/);
        // A table that does not describe the body is refused however it is reached.
        expect(() => ListBytes.blocked(s.bytes.subarray(0, s.headLen), body.length + 1, () => undefined, 'f')).toThrow(/malformed/);
        expect(() => ListBytes.blocked(new Uint8Array(4), 0, () => undefined, 'f')).toThrow(/malformed/);
    });
});
