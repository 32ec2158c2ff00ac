/**
 * End to end: the CLI serves the tools over MCP on stdio; the SDK's client connects to it as a
 * subprocess and uses the tools as an MCP host would. The subprocess runs the up-to-date build
 * or else the source tree (`src/cli.ts` through tsx), never a possibly stale build
 * (support/child-source.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NAVIGATION_TOOL_NAMES, REFERENCE_TOOL_NAMES } from '../../src/tools/catalog.js';
import { SERVER_MALLOC_ARENAS } from '../../src/engine/malloc-arenas.js';
import { CHILD_BUILT, CHILD_NODE_ARGS, childModule } from '../support/child-source.js';
import { image, textPdf } from '../support/media-files.js';
import { until } from '../support/helpers.js';
import { ARENAS_READABLE, arenasIn } from '../support/malloc-arenas.js';

/** Node arguments that run the CLI: its up-to-date build, else src/cli.ts through tsx (support/child-source.ts). */
const NODE_CLI = [...CHILD_NODE_ARGS, childModule('src/cli.ts')];


/** Exponential backtracking on a line of 20 `x`: ~20 ms per line. */
const SLOW_PATTERN = '(x+x+)+[^x\\s]';

let root: string;
let client: Client;
let transport: StdioClientTransport;
let stderr = '';
const clientErrors: Error[] = [];
/** The server's thread arenas of the C heap once it answered `initialize` (support/malloc-arenas.ts). */
let arenasAtStart = 0;

/** User + system CPU time of process `pid` (all its threads), in clock ticks (usually 1/100 s). */
function cpuTicks(pid: number): number {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
}

/** Text items of a call result. */
const texts = (r: CallToolResult): string[] => r.content.map((c) => (c.type === 'text' ? c.text : `<${c.type}>`));

async function call(name: string, args: Record<string, unknown>, options: Parameters<Client['callTool']>[2] = {}): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
}

beforeAll(async () => {
    root = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'lcf-mcp-'));
    fs.writeFileSync(path.join(root, 'notes.txt'), 'alpha\nbeta\ngamma\n');
    fs.writeFileSync(path.join(root, 'shot.png'), await image(32, 16, 'png'));
    fs.writeFileSync(path.join(root, 'spec.pdf'), await textPdf(3, 2));
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src', 'main.ts'), 'export const x = 1; // TODO: rename\nexport const y = 2;\n');
    // A larger tree for the cancelled search: 120 files of 40 lines that a backtracking pattern
    // (SLOW_PATTERN, no literal for a prefilter to skip on) takes ~20 ms per line to reject:
    // minutes of CPU for the whole search, uncancelled.
    const slow = path.join(root, 'slow');
    for (let d = 0; d < 6; d++) {
        fs.mkdirSync(path.join(slow, `d${d}`), { recursive: true });
        for (let f = 0; f < 20; f++) fs.writeFileSync(path.join(slow, `d${d}`, `f${f}.txt`), `${'x'.repeat(20)}\n`.repeat(40));
    }
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('LLM_CHAT_FS_')) env[k] = v;
    env.LLM_CHAT_FS_SEARCH_TIMEOUT = '60000';
    transport = new StdioClientTransport({ command: process.execPath, args: [...NODE_CLI, 'mcp', '--write', root], cwd: root, env, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
    });
    client = new Client({ name: 'llm-chat-file-test', version: '1.0.0' });
    // Anything on the server's stdout that is not a protocol message shows up here.
    client.onerror = (err) => clientErrors.push(err);
    await client.connect(transport);
    if (ARENAS_READABLE && transport.pid !== null) arenasAtStart = arenasIn(fs.readFileSync(`/proc/${transport.pid}/maps`, 'utf8'));
});

afterAll(async () => {
    await client?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe('MCP server over stdio (llm-chat-file mcp)', () => {
    it('identifies itself and sends the tutorial as instructions', () => {
        expect(client.getServerVersion()?.name).toBe('llm-chat-file');
        expect(client.getInstructions()).toContain('read_file');
    });

    it('lists the tools with their JSON schemas and annotations', async () => {
        const { tools } = await client.listTools();
        // The MCP server turns code navigation on by default.
        expect(tools.map((t) => t.name).sort()).toEqual([...REFERENCE_TOOL_NAMES, ...NAVIGATION_TOOL_NAMES].sort());
        // What the five add to every tools/list answer (and so to every model call's context).
        const added = JSON.stringify(tools.filter((t) => (NAVIGATION_TOOL_NAMES as readonly string[]).includes(t.name))).length;
        expect(added).toBeLessThanOrEqual(6000);
        const byName = new Map(tools.map((t) => [t.name, t]));
        for (const t of tools) {
            expect(t.description, t.name).toBeTruthy();
            expect(t.inputSchema.type, t.name).toBe('object');
            expect(t.annotations?.openWorldHint, t.name).toBe(false);
        }
        const read = byName.get('read_file')!;
        expect(read.inputSchema.required).toEqual(['paths']);
        expect(Object.keys(read.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['paths', 'max_chars', 'start_line', 'end_line', 'line_numbers']));
        expect(byName.get('replace_file_lines')!.inputSchema.required).toEqual(expect.arrayContaining(['path', 'content', 'start_line']));
        for (const name of ['search_entries', 'list_directory', 'read_file', 'entry_info', 'file_access_info']) {
            expect(byName.get(name)!.annotations?.readOnlyHint, name).toBe(true);
        }
        for (const name of ['write_file', 'replace_file_lines', 'replace_file_content', 'delete_file', 'move_file']) {
            expect(byName.get(name)!.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
        }
        for (const name of ['insert_file_content', 'create_folder', 'switch_workspace']) {
            expect(byName.get(name)!.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: false });
        }
        expect(byName.get('write_file')!.annotations?.idempotentHint).toBe(true);
        expect(byName.get('replace_file_lines')!.annotations?.idempotentHint).toBe(false);
    });

    it('reads files: one content item per path, numbered lines on request', async () => {
        const r = await call('read_file', { paths: ['notes.txt', 'src/main.ts'] });
        expect(r.isError).toBe(false);
        expect(texts(r)).toHaveLength(2);
        expect(texts(r)[0]).toBe(`--- ${path.join(root, 'notes.txt')} (lines 1-3 of 3) ---\nalpha\nbeta\ngamma\n`);
        expect(texts(r)[1]).toContain('export const y = 2;');
        const numbered = await call('read_file', { paths: ['notes.txt'], start_line: 2, line_numbers: true });
        expect(texts(numbered)[0]).toBe(`--- ${path.join(root, 'notes.txt')} (lines 2-3 of 3) ---\n     2\tbeta\n     3\tgamma\n`);
    });

    it('keeps per-path results in a bulk read: a missing path is an error item, the call is not', async () => {
        const r = await call('read_file', { paths: ['notes.txt', 'missing.txt'] });
        expect(r.isError).toBe(false);
        expect(texts(r)[0]).toContain('alpha');
        expect(texts(r)[1]).toMatch(/^Error: File not found/);
    });

    it('reads an image as an image content block after its text line, and PDF pages as text', async () => {
        const png = fs.readFileSync(path.join(root, 'shot.png'));
        const r = await call('read_file', { paths: ['shot.png', 'notes.txt'] });
        expect(r.isError).toBeFalsy();
        expect(r.content.map((c) => c.type)).toEqual(['text', 'image', 'text']);
        expect(r.content[0]).toEqual({ type: 'text', text: `--- ${path.join(root, 'shot.png')} (image: PNG 32x16, sent as is image/png, ${png.length.toLocaleString('en-US')} bytes, about 1 token) ---` });
        expect(r.content[1]).toEqual({ type: 'image', data: png.toString('base64'), mimeType: 'image/png' });
        const pdf = await call('read_file', { paths: ['spec.pdf'], pages: '2' });
        expect(texts(pdf)).toEqual([`--- ${path.join(root, 'spec.pdf')} (PDF, page 2 of 3) ---\n[page 2]\nPage 2 line 1: the quick brown fox 2001\nPage 2 line 2: the quick brown fox 2002`]);
    });

    it('refuses an edit before a read, with isError and the hint to call read_file first', async () => {
        fs.writeFileSync(path.join(root, 'edit-me.txt'), 'one\ntwo\n');
        const refused = await call('replace_file_content', { path: 'edit-me.txt', old_content: 'two', new_content: 'TWO' });
        expect(refused.isError).toBe(true);
        expect(texts(refused)[0]).toMatch(/read_file/);
        expect(fs.readFileSync(path.join(root, 'edit-me.txt'), 'utf8')).toBe('one\ntwo\n');

        expect((await call('read_file', { paths: ['edit-me.txt'] })).isError).toBe(false);
        const edited = await call('replace_file_content', { path: 'edit-me.txt', old_content: 'two', new_content: 'TWO' });
        expect(edited.isError).toBe(false);
        expect(fs.readFileSync(path.join(root, 'edit-me.txt'), 'utf8')).toBe('one\nTWO\n');
    });

    it('marks invalid arguments as an error result that says what is expected', async () => {
        const r = await call('read_file', { paths: 42 });
        expect(r.isError).toBe(true);
        expect(texts(r)[0]).toMatch(/paths/);
    });

    it('rejects an unknown tool as a protocol error', async () => {
        await expect(call('no_such_tool', {})).rejects.toThrow(/no_such_tool/);
    });

    it('searches, and reports progress at start and end when the client asks', async () => {
        const progress: Progress[] = [];
        const r = await call('search_entries', { path: 'src', content_pattern: 'todo' }, { onprogress: (p) => progress.push(p) });
        expect(r.isError).toBe(false);
        expect(texts(r)[0]).toContain('src/main.ts:1:');
        expect(progress.length).toBeGreaterThanOrEqual(2);
        expect(progress[0]!.progress).toBe(0);
        const last = progress.at(-1)!;
        expect(last.total).toBe(last.progress);
        for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
    });

    it('cancels a long search when the client aborts, and keeps serving', async () => {
        const controller = new AbortController();
        const search = call('search_entries', { path: 'slow', content_pattern: SLOW_PATTERN, max_results: 10 }, { signal: controller.signal, timeout: 120_000 });
        setTimeout(() => controller.abort('user cancelled'), 300);
        await expect(search).rejects.toThrow();

        // The work stopped: the server process is idle again (workers end at the next file
        // boundary, or are terminated after a short grace). Linux: CPU time from /proc.
        // Measured over 1 s windows until one is quiet (at most 20: a loaded machine may take a
        // while to end the workers); uncancelled, the search would keep a worker busy for 60 s.
        if (transport.pid !== null && fs.existsSync(`/proc/${transport.pid}/stat`)) {
            let used = Infinity;
            for (let i = 0; i < 20 && used >= 15; i++) {
                const before = cpuTicks(transport.pid);
                await new Promise((r) => setTimeout(r, 1_000));
                // Cancelled: ~0 ticks. Uncancelled, a busy worker takes ~100 ticks a second (40-60 measured on a loaded 2-core machine).
                used = cpuTicks(transport.pid) - before;
            }
            expect(used).toBeLessThan(15);
        }

        // The main thread still answers at once...
        const read = await call('read_file', { paths: ['notes.txt'] });
        expect(read.isError).toBe(false);
        // ...and the cancelled search no longer holds the worker pool: a new search finishes long
        // before the cancelled one could have (or its 60 s timeout).
        const t0 = Date.now();
        const next = await call('search_entries', { path: 'slow/d0', name_pattern: '^f1\\.txt$' });
        expect(next.isError).toBe(false);
        expect(texts(next)[0]).toContain('slow/d0/f1.txt');
        // Far below the cancelled search's 60 s timeout, even on a loaded machine.
        expect(Date.now() - t0).toBeLessThan(45_000);
    });

    it.runIf(ARENAS_READABLE && CHILD_BUILT)('has capped the C heap at its arenas before the runtime made more than its first thread arena (Linux, glibc; the build)', () => {
        // One thread arena beside the main one: the cap (malloc-arenas.ts) was set before the
        // modules it does not need were loaded, whose loading gives the runtime's threads arenas.
        expect(arenasAtStart).toBeLessThanOrEqual(SERVER_MALLOC_ARENAS - 1);
        expect(arenasIn(fs.readFileSync(`/proc/${transport.pid}/maps`, 'utf8'))).toBeLessThanOrEqual(SERVER_MALLOC_ARENAS - 1);
    });

    it.runIf(ARENAS_READABLE)('keeps the C heap arenas it had when it answered initialize (Linux, glibc): the threads started since share them', () => {
        // The searches above started the pool's threads, each of which would take an arena of its own.
        expect(transport.pid).not.toBeNull();
        expect(arenasAtStart).toBeGreaterThan(0);
        expect(arenasIn(fs.readFileSync(`/proc/${transport.pid}/maps`, 'utf8'))).toBeLessThanOrEqual(arenasAtStart);
    });

    it('writes nothing but protocol messages to stdout', () => {
        expect(clientErrors, `server stderr:\n${stderr}`).toEqual([]);
    });
});

describe('MCP server transport failures', () => {
    it('answers a message above the size limit with an error naming it, says why on stderr, runs nothing, and exits 0 after a clean shutdown', async () => {
        const { spawn } = await import('node:child_process');
        const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'lcf-mcp-big-'));
        try {
            const env = { ...process.env, LLM_CHAT_FS_MAX_MESSAGE_SIZE: String(10 * 1024 * 1024) };
            const child = spawn(process.execPath, [...NODE_CLI, 'mcp', '--workspace', dir], { stdio: ['pipe', 'pipe', 'pipe'], env });
            let out = '';
            let err = '';
            child.stdout.on('data', (d: Buffer) => (out += d.toString()));
            child.stderr.on('data', (d: Buffer) => (err += d.toString()));
            // A server that exits early makes the writes after it fail: the assertions say why.
            child.stdin.on('error', () => undefined);
            const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
            const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
            const big = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'write_file', arguments: { path: 'x.txt', content: 'x'.repeat(11_000_000) } } };
            child.stdin.write(JSON.stringify(init) + '\n');
            child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
            child.stdin.write(JSON.stringify(big) + '\n');
            await new Promise<void>((resolve) => {
                const poll = (): void => (out.includes('"id":1') || child.exitCode !== null ? resolve() : void setTimeout(poll, 20));
                poll();
            });
            child.stdin.end();
            expect(await exited).toBe(0);
            const reply = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: number; error?: { code: number; message: string } }).find((r) => r.id === 1);
            expect(reply?.error?.code).toBe(-32600);
            expect(reply?.error?.message).toContain('10485760 bytes (LLM_CHAT_FS_MAX_MESSAGE_SIZE)');
            expect(err).toContain('larger than the server');
            expect(fs.readdirSync(dir)).toEqual([]);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it('exits 0 after a clean shutdown even if a malformed line came earlier, and keeps serving after it', async () => {
        const { spawn } = await import('node:child_process');
        const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'lcf-mcp-bad-'));
        try {
            fs.writeFileSync(path.join(dir, 'a.txt'), 'hello\n');
            const child = spawn(process.execPath, [...NODE_CLI, 'mcp', '--workspace', dir], { stdio: ['pipe', 'pipe', 'pipe'] });
            let out = '';
            let err = '';
            child.stdout.on('data', (d: Buffer) => (out += d.toString()));
            child.stderr.on('data', (d: Buffer) => (err += d.toString()));
            const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
            const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
            const read = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read_file', arguments: { paths: ['a.txt'] } } };
            child.stdin.write('{ this is not json\n');
            child.stdin.write(JSON.stringify(init) + '\n');
            child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
            child.stdin.write(JSON.stringify(read) + '\n');
            // Waits for the answer to the read before closing standard input (a clean shutdown).
            await new Promise<void>((resolve) => {
                const poll = (): void => (out.includes('"id":2') ? resolve() : void setTimeout(poll, 20));
                poll();
            });
            child.stdin.end();
            expect(await exited).toBe(0);
            expect(err).toMatch(/JSON/);
            expect(out).toContain('hello');
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});

describe('MCP server fed by a pipe that closes at once', () => {
    it('answers every request read before the end of standard input, a last line without a line break too, then exits 0', async () => {
        const { spawn } = await import('node:child_process');
        const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'lcf-mcp-pipe-'));
        try {
            fs.writeFileSync(path.join(dir, 'a.txt'), 'hello pipe\n');
            const child = spawn(process.execPath, [...NODE_CLI, 'mcp', '--workspace', dir], { stdio: ['pipe', 'pipe', 'pipe'] });
            let out = '';
            child.stdout.on('data', (d: Buffer) => (out += d.toString()));
            child.stderr.on('data', () => undefined);
            const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
            const lines = [
                { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
                { jsonrpc: '2.0', method: 'notifications/initialized' },
                { jsonrpc: '2.0', id: 2, method: 'tools/list' },
                { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'read_file', arguments: { paths: ['a.txt'] } } },
            ].map((m) => JSON.stringify(m));
            // All at once, the last without its line break, and the pipe closed right after (printf ... | llm-chat-file mcp).
            child.stdin.end(`${lines.join('\n')}`);
            expect(await exited).toBe(0);
            const ids = out.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: number }).id);
            expect(ids.sort()).toEqual([1, 2, 3]);
            expect(out).toContain('hello pipe');
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});

describe('MCP server with a search index that cannot be kept', () => {
    it('answers searches by scanning and says once on stderr why the index failed', async () => {
        const { spawn } = await import('node:child_process');
        const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'lcf-mcp-noindex-'));
        const child = { kill: (): void => undefined } as { kill: () => void };
        try {
            const tree = path.join(dir, 'tree');
            fs.mkdirSync(tree);
            fs.writeFileSync(path.join(tree, 'a.txt'), 'needle here\n');
            // The index directory would be made under a regular file: every mkdir there fails.
            fs.writeFileSync(path.join(dir, 'not-a-dir'), 'x');
            const env: Record<string, string> = {};
            for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('LLM_CHAT_FS_')) env[k] = v;
            env.LLM_CHAT_FS_INDEX_DIR = path.join(dir, 'not-a-dir', 'index');
            const server = spawn(process.execPath, [...NODE_CLI, 'mcp', '--workspace', tree], { stdio: ['pipe', 'pipe', 'pipe'], env });
            child.kill = () => server.kill();
            let out = '';
            let err = '';
            server.stdout.on('data', (d: Buffer) => (out += d.toString()));
            server.stderr.on('data', (d: Buffer) => (err += d.toString()));
            const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
            const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
            const search = (id: number): object => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_entries', arguments: { content_pattern: 'needle' } } });
            server.stdin.write(JSON.stringify(init) + '\n');
            server.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
            server.stdin.write(JSON.stringify(search(2)) + '\n');
            await until(() => out.includes('"id":2'));
            expect(out).toContain('a.txt:1: needle here');
            await until(() => err.includes('search index'));
            server.stdin.write(JSON.stringify(search(3)) + '\n');
            await until(() => out.includes('"id":3'));
            server.stdin.end();
            expect(await exited).toBe(0);
            const lines = err.split('\n').filter((l) => l.includes('search index'));
            expect(lines).toEqual([expect.stringMatching(new RegExp(`^llm-chat-file: the search index of ${tree.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} failed \\(.+\\); searches scan the tree instead\\.$`))]);
            expect(out.split('a.txt:1: needle here').length).toBe(3);
        } finally {
            child.kill();
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});
