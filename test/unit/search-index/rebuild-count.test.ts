/**
 * What counts toward a tree's next rebuild (rebuild-count.ts, through changes.ts): while a build
 * runs, only the changes since it began (the paths noted before it are in its table), so no event
 * during a rebuild asks for a second one unless the new table would start past the limit.
 */
import { describe, expect, it } from 'vitest';
import { Changes } from '../../../src/search-index/watch/changes.js';
import { RebuildCount } from '../../../src/search-index/watch/rebuild-count.js';
import { tempDir } from '../../support/helpers.js';

/** Changes of a tree with no watcher subscribed (pure bookkeeping), and the rebuilds it asked for. */
function changesOf(rebuildAfter: number): { c: Changes; asked: () => number } {
    let asked = 0;
    const c = new Changes(tempDir('lcf-rebuild-count-'), rebuildAfter, { onChange: () => undefined, onRebuild: () => asked++, onLost: () => undefined }, 'parcel');
    return { c, asked: () => asked };
}

const paths = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}.c`);

describe('rebuild count', () => {
    it('past the limit a rebuild is asked for; during the build only the paths changed since it began count', () => {
        const { c, asked } = changesOf(100);
        for (const p of paths('burst/n', 100)) c.note(p);
        expect(asked()).toBe(0);
        c.note('burst/n100.c');
        expect(asked()).toBe(1);
        for (const p of paths('burst/n', 150)) c.note(p);
        const before = asked();
        const start = c.buildBegins();
        expect(start.seq).toBe(c.seq);
        // Two paths written by turns, thousands of times: two changed paths, far below the limit.
        for (let i = 0; i < 5_000; i++) c.note(i % 2 ? 'burst/x.c' : 'burst/y.c');
        // A path of the table changed again after the build began counts once: the build may have missed it.
        c.note('burst/n0.c');
        c.note('burst/n0.c');
        for (const p of paths('late/f', 97)) c.note(p);
        expect(asked()).toBe(before);
        // The 101st path changed since the build began: the new table would start past the limit.
        c.note('late/f97.c');
        expect(asked()).toBe(before + 1);
        c.settle(start);
        expect([...c.dirty.keys()].sort()).toEqual(['burst/n0.c', 'burst/x.c', 'burst/y.c', ...paths('late/f', 98)].sort());
        expect(c.overRebuildLimit).toBe(true);
    });

    it('served, the build leaves only its later changes counted, and none asks for a rebuild below the limit', () => {
        const { c, asked } = changesOf(100);
        for (const p of paths('a/f', 150)) c.note(p);
        const before = asked();
        const start = c.buildBegins();
        c.note('a/x.c');
        c.settle(start);
        expect([...c.dirty.keys()]).toEqual(['a/x.c']);
        expect(c.overRebuildLimit).toBe(false);
        for (const p of paths('b/f', 99)) c.note(p);
        expect(asked()).toBe(before);
        c.note('b/f99.c');
        expect(asked()).toBe(before + 1);
    });

    it('a build that ends unserved counts every changed path again', () => {
        const { c, asked } = changesOf(100);
        for (const p of paths('a/f', 150)) c.note(p);
        c.buildBegins();
        c.note('a/x.c');
        const before = asked();
        c.buildEnded();
        c.note('a/y.c');
        expect(asked()).toBe(before + 1);
        expect(c.dirty.size).toBe(152);
        expect(c.overRebuildLimit).toBe(true);
    });

    it('events inside skipped directories count from the build\'s start while it runs, and after it is served', () => {
        const n = new RebuildCount();
        n.dropped = 40;
        const start = n.begin(7);
        expect(start).toEqual({ seq: 7, dropped: 40 });
        // Before the build: 40 events and 10 paths, past a limit of 30; during it, none yet.
        expect(n.over(10, 30)).toBe(false);
        n.dropped += 30;
        expect(n.over(0, 30)).toBe(false);
        n.dropped++;
        expect(n.over(0, 30)).toBe(true);
        n.noted(undefined);
        n.noted(3);
        n.noted(8);
        // Two paths clean or changed before the start count; one changed since (seq 8) was counted already.
        expect(n.over(0, 32)).toBe(true);
        expect(n.over(0, 33)).toBe(false);
        n.served(start);
        expect(n.dropped).toBe(31);
        expect(n.over(2, 33)).toBe(false);
        expect(n.over(3, 33)).toBe(true);
    });
});
