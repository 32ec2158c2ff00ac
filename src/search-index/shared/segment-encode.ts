import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { MOST_POSTING_BYTES as MOST, putPostings } from './posting-codec.js';
import { entryLength, frameList } from './posting-list.js';
import { writeAll } from '../../fs/shared/write-all.js';
import { DictBlocks } from './dict-blocks.js';
import { DICT_BLOCK, DICT_ENTRY, SEG_HEADER, segmentHeader } from './segment.js';

/**
 * Encoding of one segment file (layout: ./segment.ts) from per-gram posting lists. The postings
 * are handed to a sink in pieces of {@link POST_PIECE} bytes as they are encoded, at their file
 * positions, then the dictionary, block index and header: a build's thread holds one piece of
 * the postings, not the whole section and a copy of the file (memory: at ten times the Linux
 * tree, a 64 MB chunk's segment and its copy were ~40 MB a thread).
 */

/** Bytes of postings encoded before they are handed to the sink. */
const POST_PIECE = 1 << 20;
/**
 * The postings' piece and a list's body, kept for the thread's next segment (memory: made anew
 * per segment, a build thread's parts left them as garbage until its next full collection).
 */
let piece: Buffer | null = null;
let listBody = Buffer.allocUnsafe(1 << 16);
/** Bytes of a list's body kept after its segment. */
const KEEP_BODY = 1 << 22;

/** Takes `bytes` for file position `pos` (the buffer is reused after the call). */
export type SegmentSink = (bytes: Uint8Array, pos: number) => void;

/**
 * Encodes one segment into `sink`; returns its length in bytes.
 * @param keys - distinct gram keys, ascending.
 * @param lists - for `keys[i]`, the local file ids holding it: `ids.subarray(starts[i], starts[i + 1])`, ascending.
 * @param masks - each posting's packed masks (./masks.ts; 0: stored without masks), as `ids`.
 */
export function encodeSegmentTo(sink: SegmentSink, keys: Uint32Array, starts: Uint32Array, ids: Uint16Array | Uint32Array, masks: Uint16Array, firstId: number, fileCount: number): number {
    const n = keys.length;
    const blocks = Math.ceil(n / DICT_BLOCK);
    const blockIndexAt = SEG_HEADER;
    const dictAt = blockIndexAt + blocks * 8;
    const postAt = dictAt + n * DICT_ENTRY;
    let post = (piece ??= Buffer.allocUnsafe(POST_PIECE));
    // Postings before `post` were handed to the sink; `end` is past the last one encoded.
    let flushed = 0;
    let end = 0;
    let dictLen = 0;
    const dict = new DictBlocks(n, (bytes) => {
        sink(bytes, dictAt + dictLen);
        dictLen += bytes.length;
    });
    let body = listBody;
    for (let g = 0; g < n; g++) {
        const from = starts[g]!;
        const to = starts[g + 1]!;
        if (body.length < (to - from) * MOST) body = Buffer.allocUnsafe((to - from) * MOST);
        const len = putPostings(body, 0, ids, masks, from, to, -1);
        const frame = frameList(body.subarray(0, len));
        const stored = frame.head.length + len;
        if (post.length - (end - flushed) < stored) {
            if (end > flushed) sink(post.subarray(0, end - flushed), postAt + flushed);
            flushed = end;
            if (post.length < stored) post = Buffer.allocUnsafe(stored);
        }
        const start = end - flushed;
        post.set(frame.head, start);
        body.copy(post, start + frame.head.length, 0, len);
        dict.add(keys[g]!, end, entryLength(stored, frame.blocked), frame.crc, to - from);
        end += stored;
    }
    if (end > flushed) sink(post.subarray(0, end - flushed), postAt + flushed);
    // A list longer than the kept buffers grew them for this segment alone.
    if (body.length <= KEEP_BODY) listBody = body;
    dict.finish();
    const blockIndex = dict.blockIndex;
    sink(blockIndex, blockIndexAt);
    sink(segmentHeader({ grams: n, firstId, fileCount, blocks, blockIndexAt, dictAt, postAt, postLen: end, postings: starts[n] ?? 0, blockIndexCrc: crc32(blockIndex) }), 0);
    return postAt + end;
}

/** One segment file's bytes (see {@link encodeSegmentTo}). */
export function encodeSegment(keys: Uint32Array, starts: Uint32Array, ids: Uint16Array | Uint32Array, masks: Uint16Array, firstId: number, fileCount: number): Buffer {
    const parts: { bytes: Buffer; pos: number }[] = [];
    const length = encodeSegmentTo((bytes, pos) => parts.push({ bytes: Buffer.from(bytes), pos }), keys, starts, ids, masks, firstId, fileCount);
    const out = Buffer.alloc(length);
    for (const p of parts) p.bytes.copy(out, p.pos);
    return out;
}

/**
 * Writes one segment file `file` (created: it must not exist, mode 0600) as it is encoded;
 * returns its length. A failed write removes the file.
 */
export function writeSegment(file: string, keys: Uint32Array, starts: Uint32Array, ids: Uint16Array | Uint32Array, masks: Uint16Array, firstId: number, fileCount: number): number {
    const fd = fs.openSync(file, 'wx', 0o600);
    try {
        const sink: SegmentSink = (bytes, pos) => writeAll(fd, bytes, pos);
        const length = encodeSegmentTo(sink, keys, starts, ids, masks, firstId, fileCount);
        fs.closeSync(fd);
        return length;
    } catch (err) {
        fs.closeSync(fd);
        fs.rmSync(file, { force: true });
        throw err;
    }
}
