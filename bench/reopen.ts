/**
 * `npm run bench -- reopen --work DIR [--tree DIR] [--changed 100] [--runs 3] [--only tree]`: how long a fresh
 * process takes to reopen the index an `index-queries --keep --work DIR` run left in `DIR/index`
 * (the tree is `DIR/tree`, else the kernel tree) after `--changed` files changed while no process
 * watched, with the inotify watcher (no snapshot: the tree is checked against the stored table).
 * Each run alternates two fresh processes: the tree check (workers/search-index/index-check.ts)
 * and the walk-and-compare it replaced (`LLM_CHAT_FILE_NATIVE_AT=0`: no statx, so the check
 * falls back to it; `--only tree`: the tree check alone). Prints wall time, the process's CPU time (every thread), paths noted, load.
 *
 * The trees are hard links to the kernel corpus: a file is never written in place. A changed file
 * is a new file renamed over the old one (its original kept as a hard link beside the index), and
 * is put back by renaming that link over it; the directories' times are restored too.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs, fmtMs, intFlag, keptWork, loadAverages, machine, median } from './common.js';

interface RunResult {
    ms: number;
    openMs: number;
    userMs: number;
    systemMs: number;
    dirty: number;
    state: string;
    from: string;
}

/** One reopen, in this process: prints a JSON line. */
async function child(work: string, root: string): Promise<void> {
    const { Engine } = await import('../src/engine/engine.js');
    const { SearchIndex } = await import('../src/search-index/search-index.js');
    let idx!: InstanceType<typeof SearchIndex>;
    const engine = new Engine({ backends: [(e) => (idx = new SearchIndex(e.maxThreads, 64 << 20, { dir: path.join(work, 'index'), watcher: 'inotify', merge: false }))] });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const tree = await idx.warm(root, [], [root]);
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const st = tree!.status();
    const r: RunResult = { ms, openMs: st.openMs ?? NaN, userMs: cpu.user / 1000, systemMs: cpu.system / 1000, dirty: st.dirty, state: st.state, from: st.reopenedFrom ?? 'built' };
    process.stdout.write(`${JSON.stringify(r)}\n`);
    await idx.close();
    await engine.close();
    process.exit(0);
}

/** The first `n` `.c` files under `dir` in sorted walk order (relative to `root`). */
function pickFiles(root: string, dir: string, n: number): string[] {
    const out: string[] = [];
    const walk = (d: string): void => {
        for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
            if (out.length >= n) return;
            const p = path.join(d, e.name);
            if (e.isDirectory()) walk(p);
            else if (e.isFile() && e.name.endsWith('.c')) out.push(path.relative(root, p));
        }
    };
    walk(dir);
    return out;
}

/** Replaces `files` with new ones (a line added), never writing the old ones; returns what puts them back. */
function change(root: string, files: readonly string[], saved: string): () => void {
    fs.mkdirSync(saved, { recursive: true });
    const dirs = new Map<string, fs.Stats>();
    for (const f of files) {
        const d = path.dirname(path.join(root, f));
        if (!dirs.has(d)) dirs.set(d, fs.statSync(d));
    }
    files.forEach((f, i) => {
        const p = path.join(root, f);
        fs.linkSync(p, path.join(saved, String(i)));
        fs.writeFileSync(`${p}.bench-new`, Buffer.concat([fs.readFileSync(p), Buffer.from('\n/* changed by the reopen bench */\n')]));
        fs.renameSync(`${p}.bench-new`, p);
    });
    return () => {
        files.forEach((f, i) => fs.renameSync(path.join(saved, String(i)), path.join(root, f)));
        for (const [d, st] of dirs) fs.utimesSync(d, st.atime, st.mtime);
    };
}

export async function reopenMain(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const { work, root } = keptWork(flags);
    if (flags.has('child')) return child(work, root);
    const runs = intFlag(flags, 'runs', 3);
    const n = intFlag(flags, 'changed', 100);
    const net = fs.existsSync(path.join(root, 'c0')) ? path.join(root, 'c0', 'drivers', 'net') : path.join(root, 'drivers', 'net');
    const files = pickFiles(root, net, n);
    const script = fileURLToPath(new URL('./run.js', import.meta.url));
    console.log(`# Reopen after ${files.length} changed files (${machine()})\n`);
    console.log(`\`npm run bench -- reopen ${argv.join(' ')}\`: index in ${path.join(work, 'index')} of ${root}; inotify watcher (no snapshot), merge off; each run a fresh process per check, alternating.\n`);
    console.log('| run | check | reopen | index\'s openMs | CPU user + system (all threads) | paths noted | load average before |\n| --- | --- | ---: | ---: | ---: | ---: | --- |');
    const all: Record<string, RunResult[]> = { 'tree check': [], 'walk-and-compare': [] };
    for (let r = 1; r <= runs; r++) {
        for (const [name, env] of [['walk-and-compare', { LLM_CHAT_FILE_NATIVE_AT: '0' }], ['tree check', {}]] as const) {
            if (flags.get('only') === 'tree' && name !== 'tree check') continue;
            const load = loadAverages();
            const restore = change(root, files, path.join(work, 'reopen-bench-saved'));
            let out;
            try {
                out = spawnSync(process.execPath, [script, 'reopen', '--child', '--work', work, '--tree', root], { encoding: 'utf8', env: { ...process.env, ...env } });
            } finally {
                restore();
            }
            if (out.status !== 0) throw new Error(`run ${r} (${name}) failed: ${out.stderr}`);
            const s = JSON.parse(out.stdout.trim().split('\n').pop()!) as RunResult;
            if (s.state !== 'ready' || s.from !== 'listing') throw new Error(`run ${r} (${name}): state ${s.state}, reopened from ${s.from}`);
            all[name]!.push(s);
            console.log(`| ${r} | ${name} | ${fmtMs(s.ms)} | ${s.openMs} ms | ${fmtMs(s.userMs)} + ${fmtMs(s.systemMs)} | ${s.dirty} | ${load} |`);
        }
    }
    console.log('');
    for (const [name, rs] of Object.entries(all)) {
        if (rs.length === 0) continue;
        console.log(`- ${name}: median reopen ${fmtMs(median(rs.map((s) => s.ms)))}, median CPU ${fmtMs(median(rs.map((s) => s.userMs + s.systemMs)))}`);
    }
    console.log(`\nLoad average after: ${loadAverages()}.`);
}
