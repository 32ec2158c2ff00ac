/**
 * The gate between the watcher's crawl and a tree check run alongside it (crawl-gate.ts): a
 * name waited for is let through once published, anything once the crawl ended with the watcher
 * on, nothing once it ended with the watcher off; names it cannot carry wait for the end.
 */
import { describe, expect, it } from 'vitest';
import { CrawlGate, CrawlGateWriter, newCrawlGate } from '../../../src/search-index/shared/crawl-gate.js';

describe('crawl gate', () => {
    it('lets a published name through, and the root as the empty name', () => {
        const sab = newCrawlGate();
        const w = new CrawlGateWriter(sab);
        w.watched(new Uint8Array(0));
        w.watched(Buffer.from('drivers'));
        w.watched(Buffer.from('caf\u00e9'));
        const g = new CrawlGate(sab);
        expect(g.waitFor('')).toBe(true);
        expect(g.waitFor('drivers')).toBe(true);
        expect(g.waitFor('caf\u00e9')).toBe(true);
    });

    it('lets everything through once the crawl ended with the watcher on, nothing once it ended off', () => {
        const on = newCrawlGate();
        new CrawlGateWriter(on).end(true);
        expect(new CrawlGate(on).waitFor('never published')).toBe(true);
        const off = newCrawlGate();
        const w = new CrawlGateWriter(off);
        w.watched(Buffer.from('a'));
        w.end(false);
        // Failed wins over a published name: nothing the check found can be used.
        expect(new CrawlGate(off).waitFor('a')).toBe(false);
        // The first end holds.
        w.end(true);
        expect(new CrawlGate(off).waitFor('b')).toBe(false);
    });

    it('publishes nothing it cannot carry (not UTF-8, a NUL, past its capacity, after the end): those wait for the end', () => {
        const sab = newCrawlGate();
        // The count of bytes published (the gate's third word): what a waiting thread reads.
        const used = (): number => new Int32Array(sab)[2]!;
        const w = new CrawlGateWriter(sab);
        w.watched(Buffer.from([0x63, 0x61, 0x66, 0xe9])); // latin1 "café": the check spells it otherwise
        w.watched(Buffer.from('a\0b'));
        expect(used()).toBe(0);
        const long = Buffer.alloc(40_000, 0x61);
        w.watched(long);
        expect(used()).toBe(40_001);
        w.watched(long); // no room left for a second one
        expect(used()).toBe(40_001);
        w.watched(Buffer.from('fits'));
        expect(used()).toBe(40_006);
        const g = new CrawlGate(sab);
        expect(g.waitFor('fits')).toBe(true);
        expect(g.waitFor(long.toString())).toBe(true);
        w.end(true);
        w.watched(Buffer.from('late'));
        expect(used()).toBe(40_006);
        expect(g.waitFor('caf\uFFFD')).toBe(true);
    });
});
