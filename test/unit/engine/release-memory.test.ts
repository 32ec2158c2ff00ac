import { describe, expect, it } from 'vitest';
import { releaseFreedMemory } from '../../../src/engine/release-memory.js';

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
