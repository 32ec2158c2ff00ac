import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine } from '../src/engine/engine.js';
import type { SearchOutcome, SearchRequest } from '../src/search/shared/types.js';
import { SearchIndex } from '../src/search-index/search-index.js';
import type { TreeIndex } from '../src/search-index/tree-index.js';
import { benchArgs, fmtMB, fmtMs, intFlag, kernelTree, machine, median, raiseLimits, REPO, request, loadAverages, type BenchTree } from './common.js';
import { filesOf, linkedTree, sampleIdentifiers } from './linked-tree.js';
import { mulberry32 } from './tree.js';

/**
 * Freshness under churn: a tree of `--scale` hard-linked copies of the Linux tree, indexed, then
 * changed as monorepos change (a whole copy removed, copied in again, a big directory renamed, a
 * checkout that replaces thousands of files, the rename undone), and after each change the same
 * searches right away through the index and through the scan path: every difference is a stale
 * answer.
 *
 *   npm run bench -- churn [--scale 10] [--searches 6] [--seed 1] [--work DIR] [--keep]
 *
 * Files are never written in place (they share inodes with the kernel tree): a checkout writes a
 * new file and renames it over the old one, as git does.
 */

interface Step {
    name: string;
    run: () => void;
    /** Patterns this change makes or removes matches of. */
    tokens: string[];
}

const loadLine = (): string => `load ${loadAverages()}`;

function shape(o: SearchOutcome): string {
    return JSON.stringify({ hits: o.hits, skipped: o.skipped, tooLarge: o.tooLarge, stop: o.stop });
}

/** Waits until the tree is ready with fewer changed paths than a rebuild waits for (the index answers again). */
function waitServing(tree: TreeIndex, limit: number): Promise<number> {
    const t0 = performance.now();
    return new Promise((resolve) => {
        const check = (): void => {
            const st = tree.status();
            if (st.state === 'failed' || (st.state === 'ready' && st.dirty < limit)) resolve(performance.now() - t0);
            else setTimeout(check, 200);
        };
        check();
    });
}

export async function churnMain(argv: readonly string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const scale = intFlag(flags, 'scale', 10);
    const perStep = intFlag(flags, 'searches', 6);
    const rand = mulberry32(intFlag(flags, 'seed', 1));
    const kernel: BenchTree = kernelTree(flags);
    const work = path.resolve(flags.get('work') ?? path.join(os.tmpdir(), `lcf-churn-x${scale}`));
    const root = path.join(work, 'tree');
    const lines: string[] = [];
    const out = (s: string): void => {
        console.log(s);
        lines.push(s);
    };
    const t0 = performance.now();
    linkedTree(kernel.root, work, scale);
    out(`# Churn, ${scale}× the Linux tree (${machine()})\n\nTree: ${scale} hard-linked copies of ${kernel.root} in ${root}, made in ${fmtMs(performance.now() - t0)}.\n`);

    const limits = raiseLimits(kernel.largestFile);
    const tree0: BenchTree = { ...kernel, root: fs.realpathSync(root) };
    let idx!: SearchIndex;
    const indexed = new Engine({ backends: [(e) => (idx = new SearchIndex(e.maxThreads, limits.file.maxFileSize, { dir: path.join(work, 'index') }))] });
    const plain = new Engine();
    const b0 = performance.now();
    const tree = (await idx.warm(tree0.root, [], [tree0.root]))!;
    out(`Build: ${fmtMs(performance.now() - b0)}, ${tree.status().entries} entries, state ${tree.state}; RSS ${fmtMB(process.memoryUsage().rss)} (${loadLine()}).\n`);

    const req = (extra: Partial<SearchRequest>): SearchRequest => request(tree0, limits, 'on', extra);
    const last = `c${scale - 1}`;
    const checkout = (dir: string, count: number, tag: string): void => {
        for (const [i, rel] of filesOf(path.join(root, dir), '.c').slice(0, count).entries()) {
            const file = path.join(root, dir, rel);
            fs.writeFileSync(`${file}.new`, `${fs.readFileSync(file, 'latin1')}\n/* ${tag}${i} */\n`, 'latin1');
            fs.renameSync(`${file}.new`, file);
        }
    };
    const mv = (from: string, to: string): void => fs.renameSync(path.join(root, from), path.join(root, to));
    const steps: Step[] = [
        {
            name: 'new directory c0/churn-new with 100 files',
            run: () => {
                fs.mkdirSync(path.join(root, 'c0/churn-new/deep'), { recursive: true });
                for (let i = 0; i < 100; i++) fs.writeFileSync(path.join(root, 'c0/churn-new/deep', `n${i}.c`), `int churnNewToken${i};\n`);
            },
            tokens: ['churnNewToken\\d+', 'churnNewToken77\\b'],
        },
        { name: 'mv c0/fs/ext4 c0/fs/ext4-moved', run: () => mv('c0/fs/ext4', 'c0/fs/ext4-moved'), tokens: ['ext4_(get|put)_group_desc\\b'] },
        { name: 'checkout: 1,000 files of c0/fs replaced', run: () => checkout('c0/fs', 1000, 'churnSmallCheckout'), tokens: ['churnSmallCheckout\\d+', 'churnSmallCheckout999\\b'] },
        { name: 'mv c0/fs/ext4-moved c0/fs/ext4', run: () => mv('c0/fs/ext4-moved', 'c0/fs/ext4'), tokens: ['ext4_(get|put)_group_desc\\b'] },
        { name: `rm -rf ${last}`, run: () => fs.rmSync(path.join(root, last), { recursive: true }), tokens: [] },
        { name: `cp -al (kernel) ${last}`, run: () => execFileSync('cp', ['-al', kernel.root, path.join(root, last)]), tokens: [] },
        { name: 'mv c0/drivers c0/drivers-moved', run: () => mv('c0/drivers', 'c0/drivers-moved'), tokens: [] },
        { name: 'checkout: 3,000 files of c0/drivers-moved/net replaced', run: () => checkout('c0/drivers-moved/net', 3000, 'churnCheckoutToken'), tokens: ['churnCheckoutToken\\d+', 'churnCheckoutToken42\\b'] },
        { name: 'mv c0/drivers-moved c0/drivers', run: () => mv('c0/drivers-moved', 'c0/drivers'), tokens: ['churnCheckoutToken7\\b'] },
    ];

    const c0 = path.join(root, 'c0');
    const ids = sampleIdentifiers(filesOf(c0, '.c').map((rel) => path.join(c0, rel)), perStep * steps.length * 2, rand);
    out('| change | change took | searches right after | answered by the index | stale (differ from the scan path) | index median | scan median |\n| --- | --- | --- | --- | --- | --- | --- |');
    let stale = 0;
    let checks = 0;
    const round = async (name: string, ms: number, tokens: string[]): Promise<void> => {
        const patterns = [...tokens, ...ids.splice(0, perStep)];
        let answered = 0;
        let bad = 0;
        const ti: number[] = [];
        const ts: number[] = [];
        for (const p of patterns) {
            const before = tree.counts.answered;
            const a0 = performance.now();
            const a = await indexed.search(req({ contentPattern: p }), { timeoutMs: 3_600_000 });
            ti.push(performance.now() - a0);
            if (tree.counts.answered > before) answered++;
            const s0 = performance.now();
            const s = await plain.search(req({ contentPattern: p }), { timeoutMs: 3_600_000 });
            ts.push(performance.now() - s0);
            if (shape(a) !== shape(s)) {
                bad++;
                console.error(`stale: ${name}: ${p}: index ${a.hits.length} hits, scan ${s.hits.length}`);
            }
        }
        stale += bad;
        checks += patterns.length;
        out(`| ${name} | ${fmtMs(ms)} | ${patterns.length} | ${answered} | ${bad} | ${fmtMs(median(ti))} | ${fmtMs(median(ts))} |`);
    };
    for (const [i, step] of steps.entries()) {
        const c0 = performance.now();
        step.run();
        await round(step.name, performance.now() - c0, step.tokens);
        // Once the mass changes begin, the index is let catch up before the next one.
        if (i >= 4) {
            const waited = await waitServing(tree, 2000);
            await round(`  then served again after ${fmtMs(waited)} (${tree.state})`, 0, step.tokens);
        }
    }
    out(`\n${stale} stale answers in ${checks} searches (${loadLine()}); RSS ${fmtMB(process.memoryUsage().rss)}.`);

    await idx.close();
    await indexed.close();
    await plain.close();
    if (!flags.has('keep')) fs.rmSync(work, { recursive: true, force: true });
    const file = path.join(REPO, 'bench', 'results', `churn-x${scale}-${new Date().toISOString().slice(0, 10)}.md`);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    console.log(`\nwritten to ${path.relative(REPO, file)}`);
}
