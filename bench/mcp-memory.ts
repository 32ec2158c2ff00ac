/**
 * `npm run bench -- mcp-memory --work DIR [--settle 150000]`: resident memory of the MCP server
 * (`llm-chat-file mcp`, its defaults, the index on) serving the tree `DIR/tree` (else the Linux tree) with its index in
 * `DIR/index` (built by the server on the first run; a later run reopens it). Through the official
 * SDK client over stdio: a search repeated every 10 s until the index answers it (the peak seen
 * meanwhile), `--settle` ms for a background merge, then four searches and 3 s idle; the server's
 * VmRSS from /proc after each step.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { benchArgs, intFlag, keptWork, machine, REPO, loadAverages, MEMORY_PATTERNS } from './common.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function mcpMemoryMain(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const { work, root } = keptWork(flags);
    const settle = flags.has('settle') ? intFlag(flags, 'settle', 1) : 0;
    const transport = new StdioClientTransport({
        command: process.execPath,
        args: [path.join(REPO, 'dist/src/cli.js'), 'mcp', '--workspace', root],
        env: { ...(process.env as Record<string, string>), LLM_CHAT_FS_INDEX_DIR: path.join(work, 'index') },
        stderr: 'ignore',
    });
    const client = new Client({ name: 'bench-mcp-memory', version: '1' });
    await client.connect(transport);
    const rss = (): number => Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${transport.pid}/status`, 'utf8'))![1]) / 1024);
    const search = async (p: string): Promise<{ ms: number; ok: boolean }> => {
        const t0 = performance.now();
        const r = await client.callTool({ name: 'search_entries', arguments: { path: root, content_pattern: p } });
        return { ms: performance.now() - t0, ok: r.isError !== true };
    };
    console.log(`# MCP server memory (${machine()})\n`);
    console.log(`Tree ${root}, index in ${path.join(work, 'index')}; server started: ${rss()} MB.\n`);
    const t0 = Date.now();
    let peak = 0;
    for (;;) {
        const r = await search('gniibe');
        peak = Math.max(peak, rss());
        if (r.ok) break;
        if (Date.now() - t0 > 30 * 60_000) throw new Error('the index did not answer within 30 minutes');
        await sleep(10_000);
    }
    console.log(`- index answering after ${Date.now() - t0} ms; highest resident memory seen before: ${peak} MB`);
    await sleep(settle);
    console.log(`- after ${settle} ms more: ${rss()} MB`);
    for (const p of MEMORY_PATTERNS) {
        const r = await search(p);
        console.log(`- search_entries \`${p}\`: ${r.ms.toFixed(0)} ms${r.ok ? '' : ' (error)'}`);
    }
    console.log(`- after the searches: ${rss()} MB`);
    await sleep(3000);
    console.log(`- after 3 s idle: ${rss()} MB (load average ${loadAverages()})`);
    await client.close();
}
