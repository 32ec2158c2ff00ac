import { describe, expect, it } from 'vitest';
import { freeBuffer, releaseFreedMemory } from '../../../src/engine/release-memory.js';
import { until } from '../../support/helpers.js';

/** glibc's version, as Node's report gives it; absent with another C library. */
const glibc = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;

describe('releaseFreedMemory', () => {
    it('trims the C heap where glibc is the C library and does nothing elsewhere, never rejecting', async () => {
        // Memory the C heap frees: buffers above the pool's size, dropped at once.
        for (let i = 0; i < 64; i++) Buffer.alloc(1 << 20).fill(i);
        const ran = await releaseFreedMemory();
        expect(ran).toBe(process.platform === 'linux' && glibc !== undefined);
        // Called again at once (the pool idle again), it runs again.
        await expect(releaseFreedMemory()).resolves.toBe(ran);
    });
});

describe('freeBuffer', () => {
    it('detaches the buffer and hands its memory back without waiting for a garbage collection', async () => {
        const rss = (): number => process.memoryUsage.rss();
        const buffer = new ArrayBuffer(256 << 20);
        const view = new Uint8Array(buffer);
        view.fill(7);
        const held = rss();
        freeBuffer(buffer);
        expect(buffer.byteLength).toBe(0);
        expect(view.length).toBe(0);
        // Nothing here makes a collection happen: the pages leave once the message is dropped.
        await until(() => rss() < held - (128 << 20));
    });
});
