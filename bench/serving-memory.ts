/**
 * `npm run bench -- serving-memory --work DIR [--tree DIR] [--runs 3]`: resident memory of a
 * process serving an index it reopens from `DIR/index` (made by `index-queries --keep --work
 * DIR`; the tree is `DIR/tree`, else the kernel tree), each run in a fresh process: after the
 * reopen, after four content searches and a GC, and after 3 s idle. Prints each run and the
 * load average; the host's heap and the table's buffers are shown apart from the rest.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs, intFlag, keptWork, machine, loadAverages, MEMORY_PATTERNS } from './common.js';


interface Sample {
    rss: number;
    heapUsed: number;
    arrayBuffers: number;
}

/** One run, in this process: reopen, search, GC, idle; prints a JSON line of the samples. */
async function child(work: string, root: string): Promise<void> {
    const { Engine } = await import('../src/engine/engine.js');
    const { AccessType, SearchEntriesTool, Workspace } = await import('../src/index.js');
    const { SearchIndex } = await import('../src/search-index/search-index.js');
    const sample = (): Sample => {
        const m = process.memoryUsage();
        return { rss: m.rss, heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers };
    };
    let idx!: InstanceType<typeof SearchIndex>;
    const engine = new Engine({ backends: [(e) => (idx = new SearchIndex(e.maxThreads, 64 << 20, { dir: path.join(work, 'index') }))] });
    const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: root }], skipDirs: [], resolveSymlinks: true });
    const tool = new SearchEntriesTool(ws, { engine });
    const tree = await idx.warm(root, [], [root]);
    if (tree?.state !== 'ready') throw new Error(`index not ready: ${tree?.state}`);
    const opened = sample();
    for (const p of MEMORY_PATTERNS) await tool.execute({ path: root, content_pattern: p });
    (globalThis as { gc?: () => void }).gc?.();
    const served = sample();
    await new Promise((r) => setTimeout(r, 3000));
    const idle = sample();
    process.stdout.write(`${JSON.stringify({ opened, served, idle, entries: tree.status().entries })}\n`);
    process.exit(0);
}

export async function servingMemoryMain(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const { work, root } = keptWork(flags);
    if (flags.has('child')) return child(work, root);
    const runs = intFlag(flags, 'runs', 3);
    const mb = (b: number): string => `${Math.round(b / 1048576)} MB`;
    console.log(`# Serving memory (${machine()}, load average ${loadAverages()})\n`);
    console.log(`Index in ${path.join(work, 'index')} of ${root}; searches: ${MEMORY_PATTERNS.join(', ')}.\n`);
    console.log('| run | entries | reopened | after the searches and a GC | after 3 s idle | host heap | buffers |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    const script = fileURLToPath(new URL('./run.js', import.meta.url));
    for (let r = 1; r <= runs; r++) {
        const out = spawnSync(process.execPath, ['--expose-gc', script, 'serving-memory', '--child', '--work', work, '--tree', root], { encoding: 'utf8' });
        if (out.status !== 0) throw new Error(`run ${r} failed: ${out.stderr}`);
        const s = JSON.parse(out.stdout.trim().split('\n').pop()!) as { opened: Sample; served: Sample; idle: Sample; entries: number };
        console.log(`| ${r} | ${s.entries} | ${mb(s.opened.rss)} | ${mb(s.served.rss)} | ${mb(s.idle.rss)} | ${mb(s.idle.heapUsed)} | ${mb(s.idle.arrayBuffers)} |`);
    }
    console.log(`\nLoad average after: ${loadAverages()}.`);
}
