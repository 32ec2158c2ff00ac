import path from 'node:path';

/**
 * @parcel/watcher itself, as watch-parcel.ts uses it: the module loaded on first use (its native
 * part may not load here), the ignore options it takes, how long it holds events, and its
 * subscriptions counted per root, because it crawls a tree anew only when none is on there.
 */

export type Watcher = typeof import('@parcel/watcher');
export type Subscription = Awaited<ReturnType<Watcher['subscribe']>>;
/** A subscription's callback. */
export type Callback = (err: Error | null, events: { path: string; type: string }[]) => void;

let watcherModule: Promise<Watcher | null> | undefined;
/** @parcel/watcher, or `null` when its native module cannot load here. */
export function loadWatcher(): Promise<Watcher | null> {
    return (watcherModule ??= import('@parcel/watcher').then(
        (m) => (m.default ?? m) as Watcher,
        () => null,
    ));
}

/**
 * The watcher's ignore option by name, while the directories left out are not known yet (before
 * a tree's first build): one regular expression matching a path whose last component is one of
 * the names, exactly as the walk compares them (no glob meaning). It leaves out files of those
 * names too (a worktree's or submodule's `.git` file), which the walk searches: a tree watched so
 * is not served until it is watched by path and listed again (tree-index.ts).
 * Perf: @parcel/watcher tests every path of its crawl against each ignore pattern with
 * std::regex; with one glob per name (picomatch's long expressions) subscribing to the Linux tree
 * took 1.4-2.1 s, with this expression 0.6-0.8 s, with no ignore option 0.3-0.4 s (load average 3-4).
 */
export function ignoreOf(skipDirs: readonly string[]): RegExp[] {
    if (skipDirs.length === 0) return [];
    const names = skipDirs.map(escapeRegExp);
    // The watcher matches it anywhere in the path; the anchors make it the last component.
    return [new RegExp(`(?:^|/)(?:${names.join('|')})$`)];
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * The watcher's ignore option by path: the directories (relative paths) the walk leaves out, as
 * @parcel/watcher's ignore paths (a prefix compare per path of its crawl: subscribing to the
 * Linux tree took 0.33-0.43 s against 0.47-0.62 s with {@link ignoreOf}'s expression, load 1).
 * A path the watcher's wrapper would take for a glob (`is-glob`: any of these characters) is
 * given as an expression matching that relative path alone.
 */
export function ignorePathsOf(root: string, dirs: Iterable<string>): (string | RegExp)[] {
    const globRoot = GLOB_CHARS.test(root);
    const out: (string | RegExp)[] = [];
    for (const rel of dirs) out.push(globRoot || GLOB_CHARS.test(rel) ? new RegExp(`^${escapeRegExp(rel)}$`) : path.join(root, rel));
    return out;
}

/** Characters that make the watcher's wrapper (`is-glob`) take a path for a glob. */
const GLOB_CHARS = /[*?[\]{}()!+@|\\]/;

/** Live subscriptions of this process by root (@parcel/watcher shares one crawl per root among them). */
const liveByRoot = new Map<string, number>();

/**
 * How long the old subscription stays on after the new one is on (milliseconds): longer than
 * @parcel/watcher holds a batch of events (its Debounce.hh MAX_WAIT_TIME, 500 ms), so a batch
 * the old one had gathered is still delivered.
 */
export const SWAP_OVERLAP_MS = 600;

/**
 * How long the watcher may still hold changes its tree already has (milliseconds): it updates
 * its tree as inotify reports, and delivers them batched after 50 to 500 ms (Debounce.hh); the
 * rest is margin for a busy machine.
 */
export const DELIVERY_MS = 1000;

/**
 * Subscribes `fn` to `root` with the ignore option `ignore`, counted among this process's live
 * subscriptions on the root; `crawls`: none was on, so @parcel/watcher crawled the tree for it.
 */
export async function subscribeCounted(w: Watcher, root: string, fn: Callback, ignore: (string | RegExp)[]): Promise<{ handle: Subscription; crawls: boolean }> {
    const crawls = (liveByRoot.get(root) ?? 0) === 0;
    const sub = await w.subscribe(root, fn, { ignore });
    liveByRoot.set(root, (liveByRoot.get(root) ?? 0) + 1);
    let on = true;
    const handle: Subscription = {
        unsubscribe: async () => {
            if (!on) return;
            on = false;
            liveByRoot.set(root, liveByRoot.get(root)! - 1);
            if (liveByRoot.get(root) === 0) liveByRoot.delete(root);
            await sub.unsubscribe();
        },
    };
    return { handle, crawls };
}
