import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { Bench, type Task } from 'tinybench';
import { Engine } from '../src/internals.js';
import type { ReadItem, SearchRequest } from '../src/search/shared/types.js';
import { fmtMs, fmtRatio, have, intFlag, machine, benchArgs, pickTree, raiseLimits, realRootsFor, request, runPeer, versionOf, type BenchTree, type Checks } from './common.js';

/**
 * tinybench suites for the hot paths, one per path (style point 11, after fast-glob's product
 * suites): each prints our figure and, where a peer exists, the peer's figure from the same run
 * and the ratio.
 *
 *   node dist/bench/suites.js [walk,name,content,read] [--tree synthetic|kernel] [--files 200000]
 *        [--iterations 5] [--read-files 2000]
 *
 * - walk: every entry, no filter (peer: fd -u -L .)
 * - name: name filter (peers: fd -u -i -L, fast-glob)
 * - content: literal found nowhere and a many-match regex (peer: rg -uu -i -n -L)
 * - read: Engine.readMany of N files (peers: fs.promises.readFile all at once, readFileSync loop)
 */

/** One benchmarked function: ours, or a peer of the ours in the same group. */
interface Entry {
    group: string;
    name: string;
    role: 'ours' | 'peer';
    fn: () => Promise<unknown>;
}

interface Suite {
    name: string;
    what: string;
    entries: Entry[];
}

async function main(argv: string[]): Promise<void> {
    const { flags, words } = benchArgs(argv);
    const wanted = words.length > 0 ? words.flatMap((w) => w.split(',')) : ['walk', 'name', 'content', 'read'];
    const iterations = intFlag(flags, 'iterations', 5);
    const tree = await pickTree(flags);
    const limits = raiseLimits(tree.largestFile);
    const engine = new Engine();
    const FD = have('fdfind') ? 'fdfind' : 'fd';
    const search = (checks: Checks, extra: Partial<SearchRequest>) => async (): Promise<number> => {
        const out = await engine.search(request(tree, limits, checks, extra), { timeoutMs: limits.search.timeoutMs });
        if (out.stop !== 'done') throw new Error(`search stopped: ${out.stop}`);
        return out.hits.length;
    };
    const peer = (cmd: string, args: string[]) => async (): Promise<number> => (await runPeer(cmd, args)).lines;
    const both = (group: string, label: string, extra: Partial<SearchRequest>): Entry[] => [
        { group, name: `ours: ${label} (checks on)`, role: 'ours', fn: search('on', extra) },
        { group, name: `ours: ${label} (checks off)`, role: 'ours', fn: search('off', extra) },
    ];

    const suites: Suite[] = [];
    if (wanted.includes('walk')) {
        suites.push({
            name: 'walk',
            what: 'directory walk, every entry returned',
            entries: [...both('every entry', 'every entry', {}), { group: 'every entry', name: `peer: ${FD} -u -L .`, role: 'peer', fn: peer(FD, ['-u', '-L', '.', tree.root]) }],
        });
    }
    if (wanted.includes('name')) {
        const g = `name ~ ${tree.name}`;
        suites.push({
            name: 'name',
            what: `name filter \`${tree.name}\` (case-insensitive)`,
            entries: [
                ...both(g, `name_pattern ${tree.name}`, { namePattern: tree.name }),
                { group: g, name: `peer: ${FD} -u -i -L ${tree.name}`, role: 'peer', fn: peer(FD, ['-u', '-i', '-L', tree.name, tree.root]) },
                {
                    group: g,
                    name: `peer: fast-glob **/*${tree.name}*`,
                    role: 'peer',
                    fn: async () => (await fg.glob(`**/*${tree.name}*`, { cwd: tree.root, dot: true, onlyFiles: false, caseSensitiveMatch: false, followSymbolicLinks: true, suppressErrors: true })).length,
                },
            ],
        });
    }
    if (wanted.includes('content')) {
        suites.push({
            name: 'content',
            what: 'content scan of every file',
            entries: [
                ...both('literal', `literal ${tree.absent}`, { contentPattern: tree.absent }),
                { group: 'literal', name: `peer: rg -uu -i -n -L ${tree.absent}`, role: 'peer', fn: peer('rg', ['-uu', '-i', '-n', '-L', tree.absent, tree.root]) },
                ...both('regex', `regex ${tree.manyRegex}`, { contentPattern: tree.manyRegex }),
                { group: 'regex', name: `peer: rg -uu -i -n -L '${tree.manyRegex}'`, role: 'peer', fn: peer('rg', ['-uu', '-i', '-n', '-L', tree.manyRegex, tree.root]) },
            ],
        });
    }
    if (wanted.includes('read')) {
        const n = intFlag(flags, 'read-files', 2000);
        const files = firstFiles(tree, n);
        const items: ReadItem[] = files.map((f) => ({ shown: f, real: f }));
        const read = (checks: Checks) => async (): Promise<number> => {
            const out = await engine.readMany(items, { maxBytes: limits.file.maxFileSize, realRoots: realRootsFor(tree.root, checks), timeoutMs: 600_000 });
            return out.filter((o) => o.ok).length;
        };
        const g = `read ${files.length}`;
        suites.push({
            name: 'read',
            what: `bulk read of ${files.length} files (the first in path order, up to 1 MB each)`,
            entries: [
                { group: g, name: `ours: Engine.readMany × ${files.length} (checks on)`, role: 'ours', fn: read('on') },
                { group: g, name: `ours: Engine.readMany × ${files.length} (checks off)`, role: 'ours', fn: read('off') },
                { group: g, name: 'peer: Promise.all(fs.promises.readFile)', role: 'peer', fn: async () => (await Promise.all(files.map((f) => fs.promises.readFile(f)))).length },
                { group: g, name: 'peer: fs.readFileSync loop (blocks the event loop)', role: 'peer', fn: async () => files.map((f) => fs.readFileSync(f)).length },
            ],
        });
    }

    console.log(`# Hot-path suites: ${tree.description}`);
    console.log(`${machine()}; ${versionOf('rg')}; ${versionOf(FD)}; tinybench, ${iterations} iterations per task after 1 warm-up; ratio = our p50 / the group's first peer p50.\n`);
    for (const suite of suites) {
        const bench = new Bench({ name: suite.name, iterations, time: 0, warmup: true, warmupIterations: 1, warmupTime: 0, throws: true });
        for (const e of suite.entries) bench.add(e.name, e.fn);
        const tasks = await bench.run();
        console.log(`## ${suite.name}: ${suite.what}\n`);
        console.log('| group | task | p50 | mean ± rme | vs peer |');
        console.log('| --- | --- | ---: | ---: | ---: |');
        for (const e of suite.entries) {
            const t = tasks.find((x) => x.name === e.name)!;
            const p50 = p50Of(t);
            const firstPeer = suite.entries.find((x) => x.group === e.group && x.role === 'peer');
            const peerP50 = firstPeer ? p50Of(tasks.find((x) => x.name === firstPeer.name)!) : NaN;
            const r = t.result;
            const mean = r.state === 'completed' ? `${fmtMs(r.latency.mean)} ± ${r.latency.rme.toFixed(0)}%` : r.state;
            console.log(`| ${e.group} | ${e.name} | ${fmtMs(p50)} | ${mean} | ${e.role === 'ours' ? fmtRatio(p50, peerP50) : e.name === firstPeer?.name ? '1.00×' : fmtRatio(p50, peerP50)} |`);
        }
        console.log('');
    }
    await engine.close();
}

function p50Of(t: Task): number {
    const r = t.result;
    if (r.state !== 'completed') throw new Error(`${t.name}: ${r.state === 'errored' ? r.error.message : r.state}`);
    return r.latency.p50;
}

/** The first `n` regular files of the tree in sorted path order, up to 1 MB each. */
function firstFiles(tree: BenchTree, n: number): string[] {
    const out: string[] = [];
    const visit = (dir: string): void => {
        const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const d of entries) {
            if (out.length >= n) return;
            const p = path.join(dir, d.name);
            if (d.isDirectory()) visit(p);
            else if (d.isFile() && fs.statSync(p).size <= 1 << 20) out.push(p);
        }
    };
    visit(tree.root);
    return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
    main(process.argv.slice(2)).catch((err: unknown) => {
        console.error(err instanceof Error ? (err.stack ?? err.message) : err);
        process.exitCode = 1;
    });
}

export { main as suitesMain };
