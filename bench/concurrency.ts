/**
 * `npm run bench -- concurrency [--calls 50] [--rounds 20] [--cli dist/src/cli.js] [--tree DIR]`:
 * the MCP server under concurrent calls, through the official MCP client over stdio.
 *
 * For `read_file` (one file of the tree each call) and `search_entries` (a content search with
 * `max_results: 20` over the tree), `--rounds` rounds of `--calls` calls in flight at once, each
 * scenario in a fresh server process. Reports calls per second (all calls / wall time), p50 and
 * p99 latency of one call in milliseconds, and the server's peak resident memory (VmHWM of
 * /proc/PID/status: main thread plus worker threads) in MB.
 *
 * Default tree: the `kernel/` directory of the Linux 6.1 source when present (about 500 C files),
 * else this repository's `src/`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REPO, benchArgs, intFlag, loadAverages } from './common.js';

const KERNEL = '/root/.cache/llm-chat-file-corpora/linux-source-6.1/kernel';

interface Scenario {
    name: string;
    /** Arguments of call `i`. */
    args: (i: number) => Record<string, unknown>;
}

function peakRssMb(pid: number): number {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
    return kb / 1024;
}

const percentile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

async function runScenario(cli: string, tree: string, scenario: Scenario, calls: number, rounds: number) {
    const transport = new StdioClientTransport({
        command: process.execPath,
        args: [cli, 'mcp', '--read', tree],
        env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith('LLM_CHAT_FS_'))),
        stderr: 'inherit',
    });
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(transport);
    const pid = transport.pid!;
    // Warm-up: one round, not counted (pool start, first reads).
    await Promise.all(Array.from({ length: calls }, (_, i) => client.callTool({ name: 'file_access_info', arguments: {} }).then(() => scenario.args(i))));
    const latencies: number[] = [];
    let failed = 0;
    const t0 = performance.now();
    for (let r = 0; r < rounds; r++) {
        await Promise.all(
            Array.from({ length: calls }, async (_, i) => {
                const start = performance.now();
                const res = await client.callTool({ name: scenario.name, arguments: scenario.args(r * calls + i) }, undefined, { timeout: 120_000 });
                latencies.push(performance.now() - start);
                if (res.isError) failed++;
            }),
        );
    }
    const wall = performance.now() - t0;
    const rss = peakRssMb(pid);
    await client.close();
    latencies.sort((a, b) => a - b);
    return { callsPerSecond: (calls * rounds) / (wall / 1000), p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), rss, failed };
}

function filesUnder(root: string, limit: number): string[] {
    const out: string[] = [];
    const walk = (dir: string): void => {
        for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
            if (out.length >= limit) return;
            const p = path.join(dir, e.name);
            if (e.isDirectory()) walk(p);
            else if (e.isFile() && fs.statSync(p).size < 200_000) out.push(p);
        }
    };
    walk(root);
    return out;
}

export async function concurrencyMain(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const calls = intFlag(flags, 'calls', 50);
    const rounds = intFlag(flags, 'rounds', 20);
    const cli = path.resolve(REPO, flags.get('cli') ?? 'dist/src/cli.js');
    const tree = path.resolve(flags.get('tree') ?? (fs.existsSync(KERNEL) ? KERNEL : path.join(REPO, 'src')));
    const files = filesUnder(tree, 400);
    const scenarios: Scenario[] = [
        { name: 'read_file', args: (i) => ({ paths: [files[i % files.length]!] }) },
        { name: 'search_entries', args: () => ({ path: tree, content_pattern: 'struct', max_results: 20 }) },
    ];
    console.log(
        `${calls} concurrent calls x ${rounds} rounds per tool, MCP server over stdio (${cli}), tree ${tree} (${files.length} files read), ` +
            `Node ${process.version}, ${os.availableParallelism()} cores`,
    );
    console.log('| tool | calls/s | p50 ms | p99 ms | peak RSS MB | failed calls | load average |');
    console.log('| --- | --- | --- | --- | --- | --- | --- |');
    for (const s of scenarios) {
        const r = await runScenario(cli, tree, s, calls, rounds);
        const load = loadAverages();
        console.log(`| \`${s.name}\` | ${r.callsPerSecond.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.rss.toFixed(0)} | ${r.failed} | ${load} |`);
    }
}
