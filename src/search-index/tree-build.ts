import fsp from 'node:fs/promises';
import path from 'node:path';
import { buildGeneration } from './build.js';
import { listedSince } from './reopen.js';
import { removeOldGenerations, writeManifest } from './store.js';
import type { IndexState } from './status.js';
import type { TreeState } from './tree-state.js';

/**
 * One build of a tree's index as its TreeIndex runs it (tree-index.ts; the generation itself is
 * build.ts's): the watcher first made to watch every directory there is, then the new generation
 * built, served and stored in place of the old one, and the watcher then leaving out what the
 * walk left out. The watcher is made ready before the walk, so no change falls between the two.
 */

export const NO_WATCHER = 'file watcher unavailable: searches use the scan path';
const SHARED_CRAWL = 'another index of this process watches this tree (its watcher crawl is shared): searches use the scan path';

/**
 * Builds a new generation of `s`'s tree and serves it (the caller holds the build lock);
 * `progress` is called as the build goes on. True when the watcher lost events during the build
 * (see the end). Changes noted since the build started stay dirty.
 * @throws Error when the tree cannot be watched or built, or the index was closed meanwhile.
 */
export async function buildAndServe(s: TreeState, progress: () => void): Promise<boolean> {
    const { changes, opts } = s;
    s.filesDone = 0;
    s.filesTotal = 0;
    s.phase = 'walk';
    s.set('building');
    // Every event queued before the build begins is noted first (inotify): its table holds those
    // changes, so they are settled with it rather than left dirty and counted after it.
    changes.drain();
    // A build starts from a crawl that watches every directory there is (Changes.renew;
    // nothing is served meanwhile), and from a subscription made anew if it was lost.
    if (changes.watching && (changes.reportedSinceCrawl || changes.blind || changes.sharedCrawl)) await changes.renew().catch(() => false);
    if (opts.watch && !changes.watching) await changes.subscribe(opts.skipDirs, s.manifest?.skippedDirs ?? null);
    if (opts.watch && !changes.watching) throw new Error(NO_WATCHER);
    if (changes.sharedCrawl) throw new Error(SHARED_CRAWL);
    const start = changes.buildBegins();
    changes.blind = false;
    const g = await buildGeneration({
        ...opts,
        root: s.root,
        closed: () => s.state === 'closed',
        sharedNice: () => s.sharedNice(),
        progress: (phase, done, total) => {
            s.phase = phase;
            if (phase === 'content') [s.filesDone, s.filesTotal] = [done, total];
            progress();
        },
    });
    if ((s.state as IndexState) === 'closed') {
        for (const seg of g.segs) seg.close();
        g.table.close();
        throw new Error('index closed during the build');
    }
    const blind = changes.blind;
    const oldGen = s.manifest?.gen;
    s.serve({ m: g.manifest, table: g.table, segs: g.segs });
    // Changes noted since the build started stay dirty; earlier ones are in the new generation.
    changes.settle(start);
    changes.blind = blind;
    // The watcher leaves out by path what this walk left out. Until a first build it left
    // them out by name (files of those names unreported): a crawl of its own by path, then
    // the tree listed again and compared with the new table (nothing is served meanwhile).
    if (changes.byName) {
        await changes.watchByPath(g.manifest.skippedDirs, 'fresh').catch(() => false);
        if (!changes.watching) throw new Error(NO_WATCHER);
        await changes.noteAll(await listedSince(s.reopenContext(), g.manifest.gen));
    } else await changes.watchByPath(g.manifest.skippedDirs, 'swap');
    await writeManifest(opts.dir, g.manifest);
    if (oldGen !== undefined && oldGen !== g.manifest.gen) await fsp.rm(path.join(opts.dir, oldGen), { recursive: true, force: true });
    await removeOldGenerations(opts.dir, g.manifest.gen);
    s.phase = undefined;
    // Events lost during the build: with inotify the new table serves once a check of the tree has
    // found what they were (recover.ts; searches take the scan path until then); @parcel/watcher
    // cannot say what it missed, so the index has failed until the rebuild that follows.
    const failed = blind && changes.watcher !== 'inotify';
    s.set(failed ? 'failed' : 'ready', failed ? 'file watcher failed during the build' : undefined);
    return blind;
}
