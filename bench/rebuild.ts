import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/engine/engine.js';
import type { SearchRequest } from '../src/search/shared/types.js';
import { SearchIndex } from '../src/search-index/search-index.js';
import type { TreeIndex } from '../src/search-index/tree-index.js';
import { benchArgs, fmtMB, fmtMs, intFlag, kernelTree, loadAverages, machine, median, raiseLimits, REPO, request, type BenchTree } from './common.js';
import { filesOf, linkedTree, sampleIdentifiers } from './linked-tree.js';
import { mulberry32 } from './tree.js';

/**
 * Rebuilds under continuous searches: a tree of `--scale` hard-linked copies of the Linux tree is
 * indexed, then a checkout replaces more files than a rebuild waits for, three times: with no
 * search running, with `--clients` clients searching selective identifiers without pause (the
 * index answers them from the old generation and the changed paths), and with clients searching
 * a pattern the index does not narrow (every one a scan of the whole tree, at the searches'
 * priority). Each rebuild is timed from the checkout to the index serving again; the target is
 * at most twice the idle one.
 *
 *   npm run bench -- rebuild [--scale 1] [--clients 2] [--files 2500] [--seed 1] [--work DIR] [--keep]
 *
 * Files are never written in place (they share inodes with the kernel tree): a checkout writes a
 * new file and renames it over the old one, as git does.
 */

const REBUILD_AFTER = 2000;

/** Waits until `tree` has rebuilt: it was building, and is ready with fewer changed paths than a rebuild waits for. */
function waitRebuilt(tree: TreeIndex): Promise<{ ms: number; state: string }> {
    const t0 = performance.now();
    let built = false;
    return new Promise((resolve) => {
        const check = (): void => {
            const st = tree.status();
            built ||= st.state === 'building';
            if (built && st.state !== 'building' && st.dirty < REBUILD_AFTER) resolve({ ms: performance.now() - t0, state: st.state });
            else setTimeout(check, 100);
        };
        check();
    });
}

export async function rebuildMain(argv: readonly string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const scale = intFlag(flags, 'scale', 1);
    const clients = intFlag(flags, 'clients', 2);
    const count = intFlag(flags, 'files', 2500);
    const rand = mulberry32(intFlag(flags, 'seed', 1));
    const kernel: BenchTree = kernelTree(flags);
    const work = path.resolve(flags.get('work') ?? path.join(os.tmpdir(), `lcf-rebuild-x${scale}`));
    const lines: string[] = [];
    const out = (s: string): void => {
        console.log(s);
        lines.push(s);
    };
    const root = linkedTree(kernel.root, work, scale);
    out(`# Rebuild under continuous searches, ${scale}× the Linux tree (${machine()})\n`);

    const limits = raiseLimits(kernel.largestFile);
    const tree0: BenchTree = { ...kernel, root: fs.realpathSync(root) };
    let idx!: SearchIndex;
    const engine = new Engine({ backends: [(e) => (idx = new SearchIndex(e.maxThreads, limits.file.maxFileSize, { dir: path.join(work, 'index'), rebuildAfter: REBUILD_AFTER }, e))] });
    const b0 = performance.now();
    const tree = (await idx.warm(tree0.root, [], [tree0.root]))!;
    await tree.settled();
    out(`First build: ${fmtMs(performance.now() - b0)} with its merge, ${tree.status().entries} entries, state ${tree.state} (load ${loadAverages()}).\n`);

    const cFiles = filesOf(path.join(root, 'c0'), '.c').map((rel) => path.join(root, 'c0', rel));
    const ids = sampleIdentifiers(cFiles, 400, rand);
    let next = 0;
    const checkout = (tag: string): void => {
        for (const file of cFiles.slice(next, next + count)) {
            fs.writeFileSync(`${file}.new`, `${fs.readFileSync(file, 'latin1')}\n/* ${tag} */\n`, 'latin1');
            fs.renameSync(`${file}.new`, file);
        }
        next += count;
    };
    const req = (pattern: string): SearchRequest => request(tree0, limits, 'on', { contentPattern: pattern });

    out('| searches during the rebuild | rebuild (checkout to serving again) | ratio to idle | index\'s build figure | searches done | answered by the index | search median | state | load |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |');
    let idle = 0;
    const round = async (label: string, pattern: (() => string) | null): Promise<void> => {
        let stop = false;
        const times: number[] = [];
        const answered0 = tree.counts.answered;
        const loops = pattern === null ? [] : Array.from({ length: clients }, async () => {
            while (!stop) {
                const s0 = performance.now();
                await engine.search(req(pattern()), { timeoutMs: 3_600_000 });
                times.push(performance.now() - s0);
            }
        });
        checkout(`rebuild-${label.replace(/\W+/g, '-')}`);
        const { ms, state } = await waitRebuilt(tree);
        stop = true;
        await Promise.all(loops);
        if (pattern === null) idle = ms;
        const answered = tree.counts.answered - answered0;
        out(`| ${label} | ${fmtMs(ms)} | ${idle > 0 ? `${(ms / idle).toFixed(2)}×` : '–'} | ${fmtMs(tree.status().buildMs ?? 0)} | ${times.length} | ${answered} | ${times.length > 0 ? fmtMs(median(times)) : '–'} | ${state} | ${loadAverages()} |`);
        await tree.settled();
    };
    await round('none (idle)', null);
    let k = 0;
    await round(`${clients} clients, selective identifiers`, () => ids[k++ % ids.length]!);
    // Answered by no index: one regex whose literals are too short to narrow (the scan path).
    await round(`${clients} clients, a pattern the index does not narrow`, () => '\\bx[a-z]_\\w+\\(');
    out(`\nRSS ${fmtMB(process.memoryUsage().rss)}. Target: every rebuild within 2× the idle one.`);

    await idx.close();
    await engine.close();
    if (!flags.has('keep')) fs.rmSync(work, { recursive: true, force: true });
    const file = path.join(REPO, 'bench', 'results', `rebuild-x${scale}-${new Date().toISOString().slice(0, 10)}.md`);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    console.log(`\nwritten to ${path.relative(REPO, file)}`);
}
