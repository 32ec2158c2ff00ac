/**
 * `npm run bench -- startup [--runs 15] [--cli dist/src/cli.js]`: start-up time of the front
 * ends, each run in a fresh process, side by side with `node -e 0`:
 *
 * - one-shot CLI: `llm-chat-file list_directory {"path":"."}` in a small directory, process
 *   start to exit;
 * - MCP server: `llm-chat-file mcp`, process start to the `initialize` response on stdout, and to
 *   the `tools/list` response sent right after it (the server loads the tools after `initialize`).
 *
 * Prints medians, minimums and 90th percentiles in milliseconds, and the load average.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, benchArgs, intFlag } from './common.js';

function stats(ms: number[]): { median: number; min: number; p90: number } {
    const s = [...ms].sort((a, b) => a - b);
    const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
    return { median: at(0.5), min: s[0]!, p90: at(0.9) };
}

function timeExit(args: string[], cwd: string): number {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.toString()}`);
    return ms;
}

/**
 * Starts the MCP server and resolves with the milliseconds until its `initialize` response, and
 * until its `tools/list` response (sent, after `notifications/initialized`, once `initialize` is answered).
 */
function timeInitialize(cli: string, cwd: string): Promise<{ initialize: number; toolsList: number }> {
    return new Promise((resolve, reject) => {
        const t0 = process.hrtime.bigint();
        const child = spawn(process.execPath, [cli, 'mcp', '--workspace', cwd], { cwd, stdio: ['pipe', 'pipe', 'inherit'] });
        let out = '';
        let initialize = 0;
        child.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString();
            const lines = out.split('\n');
            if (initialize === 0 && lines.length > 1) {
                initialize = Number(process.hrtime.bigint() - t0) / 1e6;
                const reply = JSON.parse(lines[0]!) as { id?: number; result?: unknown };
                if (reply.id !== 1 || !reply.result) return reject(new Error(`unexpected reply: ${out}`));
                child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
                child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
            }
            if (lines.length < 3) return;
            const toolsList = Number(process.hrtime.bigint() - t0) / 1e6;
            const reply = JSON.parse(lines[1]!) as { id?: number; result?: { tools?: unknown[] } };
            child.stdin.end();
            child.once('exit', () => (reply.id === 2 && reply.result?.tools?.length ? resolve({ initialize, toolsList }) : reject(new Error(`unexpected reply: ${out}`))));
        });
        child.once('error', reject);
        const request = {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
        };
        child.stdin.write(`${JSON.stringify(request)}\n`);
    });
}

export async function startupMain(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const runs = intFlag(flags, 'runs', 15);
    const cli = path.resolve(REPO, flags.get('cli') ?? 'dist/src/cli.js');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lcf-startup-'));
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), `file ${i}\n`);
    const node: number[] = [];
    const oneShot: number[] = [];
    const mcp: number[] = [];
    const mcpTools: number[] = [];
    // Interleaved, so that a change of machine load hits all three alike; one warm-up round first.
    for (let i = 0; i <= runs; i++) {
        const n = timeExit(['-e', '0'], dir);
        const c = timeExit([cli, 'list_directory', '{"path":"."}'], dir);
        const m = await timeInitialize(cli, dir);
        if (i === 0) continue;
        node.push(n);
        oneShot.push(c);
        mcp.push(m.initialize);
        mcpTools.push(m.toolsList);
    }
    fs.rmSync(dir, { recursive: true, force: true });
    const row = (name: string, ms: number[]): string => {
        const s = stats(ms);
        return `| ${name} | ${s.median.toFixed(0)} | ${s.min.toFixed(0)} | ${s.p90.toFixed(0)} |`;
    };
    console.log(`Start-up, ${runs} runs each (${cli}), Node ${process.version}, ${os.availableParallelism()} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log('| process | median ms | min ms | p90 ms |');
    console.log('| --- | --- | --- | --- |');
    console.log(row('`node -e 0`', node));
    console.log(row('one-shot CLI: `list_directory`', oneShot));
    console.log(row('MCP server: start to `initialize` response', mcp));
    console.log(row('MCP server: start to `tools/list` response', mcpTools));
}
