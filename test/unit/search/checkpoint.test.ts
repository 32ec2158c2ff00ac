/**
 * src/search/shared/checkpoint.ts: the shared buffer where a task with a risky pattern records
 * its hits and progress, read back after the task was terminated.
 */
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_BYTES, CheckpointWriter, readCheckpoint } from '../../../src/search/shared/checkpoint.js';
import type { SearchHit } from '../../../src/search/shared/types.js';

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
