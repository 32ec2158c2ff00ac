/**
 * `npm run bench -- symbols-mcp --work DIR [--dir TREE] [--runs 5]`: `find_symbol` through the MCP
 * server (`llm-chat-file mcp`, its defaults, the index in `DIR/index` with its symbol table on),
 * over stdio with the official SDK client, on the Linux tree (or TREE). Run it after
 * `symbols-index` on the same DIR so the server reopens that index and table. The table is taken
 * as loaded once a name mentioned in thousands of files (`PAGE_SIZE`) is answered in under a
 * second, which a parse of those files cannot do; then each name of symbols-index's list is asked
 * `--runs` times (after one call not counted), and the server's resident memory read from /proc.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { benchArgs, fmtMs, intFlag, kernelTree, loadAverages, machine, median, REPO } from './common.js';
import { EXACT, REGEX } from './symbols-index.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function symbolsMcpMain(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const work = flags.get('work');
    if (work === undefined || !fs.existsSync(path.join(work, 'index'))) throw new Error('--work DIR: the folder a symbols-index run made (DIR/index)');
    const root = kernelTree(flags).root;
    const runs = intFlag(flags, 'runs', 5);
    const transport = new StdioClientTransport({
        command: process.execPath,
        args: [path.join(REPO, 'dist/src/cli.js'), 'mcp', '--workspace', root],
        env: { ...(process.env as Record<string, string>), LLM_CHAT_FS_INDEX_DIR: path.join(work, 'index'), LLM_CHAT_FS_INDEX_SYMBOLS: 'true' },
        stderr: 'ignore',
    });
    const client = new Client({ name: 'bench-symbols-mcp', version: '1' });
    await client.connect(transport);
    const rss = (): number => Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${transport.pid}/status`, 'utf8'))![1]) / 1024);
    const call = async (args: Record<string, unknown>): Promise<{ ms: number; lines: number; error: boolean }> => {
        const t0 = performance.now();
        const r = await client.callTool({ name: 'find_symbol', arguments: args });
        const ms = performance.now() - t0;
        const text = (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
        return { ms, lines: text.split('\n').length, error: r.isError === true };
    };
    const report: string[] = [];
    const say = (line: string): void => {
        console.log(line);
        report.push(line);
    };
    say(`# find_symbol through the MCP server (${machine()}, load average ${loadAverages()})\n`);
    say(`\`npm run bench -- symbols-mcp --work ${work} --runs ${runs}\`; tree ${root}, index in ${path.join(work, 'index')}.\n`);
    const t0 = Date.now();
    for (;;) {
        const r = await call({ name: 'PAGE_SIZE' });
        if (!r.error && r.ms < 1000) break;
        if (Date.now() - t0 > 30 * 60_000) throw new Error('the symbol table did not answer within 30 minutes');
        await sleep(5000);
    }
    say(`Table answering after ${fmtMs(Date.now() - t0)}; server resident memory ${rss()} MB.\n`);
    const rows: string[] = ['| query | median | lines |', '| --- | ---: | ---: |'];
    const medians = async (list: Record<string, unknown>[]): Promise<number[]> => {
        const out: number[] = [];
        for (const q of list) {
            await call(q);
            const xs: { ms: number; lines: number; error: boolean }[] = [];
            for (let i = 0; i < runs; i++) xs.push(await call(q));
            const m = median(xs.map((x) => x.ms));
            rows.push(`| \`${JSON.stringify(q)}\` | ${fmtMs(m)} | ${xs[0]!.error ? 'error' : xs[0]!.lines} |`);
            out.push(m);
        }
        return out;
    };
    const exact = await medians(EXACT.map((name) => ({ name })));
    const regex = await medians(REGEX.map((name) => ({ name, regex: true })));
    say(rows.join('\n'));
    say(`\n- exact names: median of medians **${fmtMs(median(exact))}** (target ≤ 20 ms through MCP)`);
    say(`- regex names: median of medians **${fmtMs(median(regex))}**`);
    say(`- server resident memory after the calls: ${rss()} MB; load average ${loadAverages()}`);
    await client.close();
    fs.writeFileSync(path.join(REPO, 'bench', 'results', `symbols-mcp-${new Date().toISOString().slice(0, 10)}.md`), `${report.join('\n')}\n`);
}
