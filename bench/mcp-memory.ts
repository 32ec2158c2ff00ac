/**
 * `npm run bench -- mcp-memory --work DIR [--settle 60000]`: resident memory of the MCP server
 * (`llm-chat-file mcp`, its defaults, the index on) serving the tree `DIR/tree` (else the Linux tree) with its index in
 * `DIR/index` (built by the server on the first run; a later run reopens it). Through the official
 * SDK client over stdio: a search repeated every 10 s until the index answers it (the peak seen
 * meanwhile), `--settle` ms more, then four searches and 3 s idle; the server's VmRSS from /proc
 * after each step, and every second throughout. The server merges the build's segments in the
 * background after it first serves them (src/search-index/merge.ts), for minutes at ten times the
 * Linux tree: the bench tells from the index's manifest whether that merge still runs, and reports
 * the figure during the merge and after it apart (when the merge still ran at the first
 * measurement, it waits for its end and measures again), each with the highest memory seen then.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { benchArgs, intFlag, keptWork, machine, REPO, loadAverages, MEMORY_PATTERNS } from './common.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Whether the index in `indexDir` serves segments a merge has yet to join (a manifest naming more than one build segment, `seg-*`); `null`: no manifest yet. */
export function merging(indexDir: string): boolean | null {
    let seen = false;
    const walk = (dir: string, depth: number): boolean => {
        for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
            const p = path.join(dir, e.name);
            if (e.isDirectory() && depth < 3 && !e.name.startsWith('gen-') && walk(p, depth + 1)) return true;
            if (e.name !== 'manifest.json' || !e.isFile()) continue;
            const text = fs.readFileSync(p, 'utf8').trimEnd();
            const segments = (JSON.parse(text.slice(0, text.lastIndexOf('\n'))) as { segments: string[] }).segments;
            seen = true;
            if (segments.filter((s) => !s.startsWith('merged-')).length > 1) return true;
        }
        return false;
    };
    const running = fs.existsSync(indexDir) && walk(indexDir, 0);
    return running ? true : seen ? false : null;
}

export async function mcpMemoryMain(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const { work, root } = keptWork(flags);
    const settle = flags.has('settle') ? intFlag(flags, 'settle', 1) : 0;
    const indexDir = path.join(work, 'index');
    const transport = new StdioClientTransport({
        command: process.execPath,
        args: [path.join(REPO, 'dist/src/cli.js'), 'mcp', '--workspace', root],
        env: { ...(process.env as Record<string, string>), LLM_CHAT_FS_INDEX_DIR: indexDir },
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
    const stateOf = (): string => (merging(indexDir) ? 'the merge running' : 'the merge done');
    console.log(`# MCP server memory (${machine()})\n`);
    console.log(`Tree ${root}, index in ${indexDir}; server started: ${rss()} MB.\n`);
    const t0 = Date.now();
    let peak = 0;
    for (;;) {
        const r = await search('gniibe');
        peak = Math.max(peak, rss());
        if (r.ok) break;
        if (Date.now() - t0 > 30 * 60_000) throw new Error('the index did not answer within 30 minutes');
        await sleep(10_000);
    }
    const answered = Date.now();
    console.log(`- index answering after ${answered - t0} ms; highest resident memory seen before: ${peak} MB`);
    // The highest memory seen while the merge ran and after it, sampled every second from the index's first answer:
    // before it, a manifest left by an earlier generation would label the build's own peak as after the merge.
    const peaks = { merging: 0, merged: 0 };
    const sampler = setInterval(() => {
        const state = merging(indexDir);
        if (state !== null) peaks[state ? 'merging' : 'merged'] = Math.max(peaks[state ? 'merging' : 'merged'], rss());
    }, 1000);
    await sleep(settle);
    console.log(`- after ${settle} ms more: ${rss()} MB (${stateOf()})`);
    /** Four searches and 3 s idle; the figure, labelled by whether the merge ran throughout, had ended before or ended meanwhile. */
    const measure = async (): Promise<void> => {
        const before = merging(indexDir) === true;
        for (const p of MEMORY_PATTERNS) {
            const r = await search(p);
            console.log(`- search_entries \`${p}\`: ${r.ms.toFixed(0)} ms${r.ok ? '' : ' (error)'}`);
        }
        console.log(`- after the searches: ${rss()} MB`);
        await sleep(3000);
        const after = merging(indexDir) === true;
        const when = before && after ? 'during the merge' : !before ? 'after the merge' : 'as the merge ended';
        console.log(`- after 3 s idle, ${when}: ${rss()} MB (load average ${loadAverages()}; target ≤ 250 MB)`);
    };
    await measure();
    if (merging(indexDir) === true) {
        while (merging(indexDir) === true) {
            if (Date.now() - answered > 60 * 60_000) throw new Error('the merge did not end within an hour');
            await sleep(2000);
        }
        console.log(`- merge done ${Date.now() - answered} ms after the index first answered`);
        await measure();
    }
    clearInterval(sampler);
    console.log(`- highest resident memory seen (every second) while the merge ran: ${peaks.merging} MB; after it: ${peaks.merged} MB`);
    await client.close();
}
