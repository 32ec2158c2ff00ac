/**
 * The MCP server over stdio against messages no well-behaved client sends: invalid JSON-RPC,
 * requests before `initialize`, non-object tool arguments, lines above the message size limit.
 * Raw lines are written to the CLI's standard input (as in mcp.test.ts, support/child-source.ts)
 * and its replies read from standard output; every case ends with the server still serving.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHILD_NODE_ARGS, childModule } from '../support/child-source.js';

/** Node arguments that run the CLI: its up-to-date build, else src/cli.ts through tsx (support/child-source.ts). */
const NODE_CLI = [...CHILD_NODE_ARGS, childModule('src/cli.ts')];

const INITIALIZE = { jsonrpc: '2.0', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

interface Reply {
    jsonrpc: string;
    id: string | number | null;
    result?: { content?: { type: string; text: string }[]; isError?: boolean; tools?: unknown[] };
    error?: { code: number; message: string };
}

interface Server {
    child: ChildProcessWithoutNullStreams;
    dir: string;
    replies: Reply[];
    stderr(): string;
    /** Writes one line (a JSON value, or raw text as it is). */
    send(line: unknown): void;
    /** The reply with `id`; rejects if the server exits first. */
    reply(id: string | number): Promise<Reply>;
    /** Sends `initialize` (id 0) and `notifications/initialized`. */
    initialize(): Promise<void>;
}

const servers: Server[] = [];

afterEach(async () => {
    for (const s of servers.splice(0)) {
        if (s.child.exitCode === null) {
            const exited = new Promise((resolve) => s.child.once('exit', resolve));
            s.child.stdin.end();
            await exited;
        }
        fs.rmSync(s.dir, { recursive: true, force: true });
    }
});

function startServer(env: Record<string, string> = {}): Server {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'lcf-mcp-proto-'));
    const childEnv: Record<string, string> = { LLM_CHAT_FS_INDEX: 'false' };
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('LLM_CHAT_FS_')) childEnv[k] = v;
    const child = spawn(process.execPath, [...NODE_CLI, 'mcp', '--workspace', dir], { env: { ...childEnv, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    // A server that exits early makes the writes after it fail: the test's assertions say why.
    child.stdin.on('error', () => undefined);
    const replies: Reply[] = [];
    let err = '';
    let partial = '';
    const waiting = new Set<() => void>();
    child.stdout.on('data', (d: Buffer) => {
        const lines = (partial + d.toString()).split('\n');
        partial = lines.pop()!;
        for (const line of lines) if (line.trim() !== '') replies.push(JSON.parse(line) as Reply);
        for (const w of waiting) w();
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', () => {
        for (const w of waiting) w();
    });
    const server: Server = {
        child,
        dir,
        replies,
        stderr: () => err,
        send: (line) => void child.stdin.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`),
        reply: (id) =>
            new Promise((resolve, reject) => {
                const check = (): void => {
                    const found = replies.find((r) => r.id === id);
                    if (found) {
                        waiting.delete(check);
                        resolve(found);
                    } else if (child.exitCode !== null || child.signalCode !== null) {
                        waiting.delete(check);
                        reject(new Error(`the server exited (${child.exitCode ?? child.signalCode}) before replying to ${id}; stderr:\n${err}`));
                    }
                };
                waiting.add(check);
                check();
            }),
        initialize: async () => {
            server.send({ ...INITIALIZE, id: 0 });
            expect((await server.reply(0)).result).toBeDefined();
            server.send(INITIALIZED);
        },
    };
    servers.push(server);
    return server;
}

/** Peak resident memory (VmHWM) of process `pid`, in bytes. */
function peakRss(pid: number): number {
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return Number(m![1]) * 1024;
}

describe('MCP server: invalid JSON-RPC messages', () => {
    it('answers each with a JSON-RPC error (id null when it cannot be read) and keeps serving', async () => {
        const s = startServer();
        s.send('{ this is not json');
        s.send({ jsonrpc: '2.0', id: 7 });
        s.send([{ jsonrpc: '2.0', id: 8, method: 'ping' }]);
        s.send('5');
        s.send('"text"');
        s.send({ jsonrpc: '1.0', id: 9, method: 'ping' });
        s.send({ jsonrpc: '2.0', id: 10, method: 'ping' });
        expect((await s.reply(10)).result).toEqual({});
        const [parse, noMethod, batch, number, text, version] = s.replies;
        expect(parse).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
        expect(parse!.error!.message).toMatch(/parse error/i);
        expect(noMethod).toMatchObject({ id: 7, error: { code: -32600 } });
        expect(noMethod!.error!.message).toMatch(/method/);
        expect(batch).toMatchObject({ id: null, error: { code: -32600 } });
        expect(batch!.error!.message).toMatch(/batch/i);
        expect(number).toMatchObject({ id: null, error: { code: -32600 } });
        expect(text).toMatchObject({ id: null, error: { code: -32600 } });
        expect(version).toMatchObject({ id: 9, error: { code: -32600 } });
        expect(version!.error!.message).toMatch(/jsonrpc/);
        // Each error is one short sentence, not a validation dump.
        for (const r of s.replies.slice(0, 6)) expect(r.error!.message).not.toMatch(/invalid_union|"code"/);
        // Still serving: the session starts and a tool runs.
        await s.initialize();
        s.send({ jsonrpc: '2.0', id: 11, method: 'tools/list' });
        expect((await s.reply(11)).result!.tools!.length).toBeGreaterThan(0);
    });

    it('refuses tool arguments that are not an object with an invalid-params error naming `arguments`', async () => {
        const s = startServer();
        await s.initialize();
        const bad: [number, unknown, RegExp][] = [
            [1, ['notes.txt', 'hello'], /an array/],
            [2, 'notes.txt', /a string/],
            [3, 42, /a number/],
            [4, null, /null/],
        ];
        for (const [id, args] of bad) s.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'write_file', arguments: args } });
        for (const [id, , got] of bad) {
            const r = await s.reply(id);
            expect(r.error?.code, JSON.stringify(r)).toBe(-32602);
            expect(r.error!.message).toMatch(/`arguments` must be an object/);
            expect(r.error!.message).toMatch(got);
            expect(r.error!.message).not.toMatch(/invalid_type|expected record/);
        }
        expect(fs.readdirSync(s.dir)).toEqual([]);
        s.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'write_file', arguments: { path: 'notes.txt', content: 'hello' } } });
        expect((await s.reply(5)).result?.isError).toBe(false);
        expect(fs.readFileSync(path.join(s.dir, 'notes.txt'), 'utf8')).toBe('hello');
    });
});

describe('MCP server: lifecycle', () => {
    it('refuses tools/call and tools/list before initialize without running them; ping is answered', async () => {
        const s = startServer();
        s.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
        s.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write_file', arguments: { path: 'early.txt', content: 'x' } } });
        s.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
        expect((await s.reply(1)).result).toEqual({});
        for (const id of [2, 3]) {
            const r = await s.reply(id);
            expect(r.error?.code, JSON.stringify(r)).toBe(-32600);
            expect(r.error!.message).toMatch(/initialize/);
        }
        await s.initialize();
        s.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'write_file', arguments: { path: 'late.txt', content: 'y' } } });
        expect((await s.reply(4)).result?.isError).toBe(false);
        expect(fs.readdirSync(s.dir)).toEqual(['late.txt']);
    });
});

describe('MCP server: message size', () => {
    it('takes a write_file of 11 MB, above the SDK transport`s 10 MiB buffer and below the default limit', async () => {
        const s = startServer({ LLM_CHAT_FS_MAX_CHARS_PER_FILE: '12000000' });
        await s.initialize();
        const content = 'x'.repeat(11_000_000);
        s.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'write_file', arguments: { path: 'big.txt', content } } });
        const r = await s.reply(1);
        expect(r.result?.isError, JSON.stringify(r).slice(0, 500)).toBe(false);
        expect(fs.statSync(path.join(s.dir, 'big.txt')).size).toBe(11_000_000);
    });

    it('skips a line above the limit with an error naming the limit and its id, in bounded memory, and keeps serving', async () => {
        const limit = 1024 * 1024;
        const s = startServer({ LLM_CHAT_FS_MAX_MESSAGE_SIZE: String(limit) });
        await s.initialize();
        s.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
        await s.reply(1);
        const before = peakRss(s.child.pid!);
        // 256 MiB of content in one line, its id last (as the SDK's client orders a request's members).
        const lineBytes = 256 * 1024 * 1024;
        const head = '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_file","arguments":{"path":"huge.txt","content":"';
        const tail = '"}},"id":"big-1"}\n';
        const block = Buffer.alloc(1024 * 1024, 'x');
        const stdin = s.child.stdin;
        // Resolves at once when the server has gone (its reply then rejects, saying so).
        const write = (b: Buffer | string): Promise<void> =>
            new Promise((resolve) => {
                if (stdin.destroyed || stdin.write(b)) return resolve();
                const done = (): void => {
                    stdin.off('drain', done).off('close', done);
                    resolve();
                };
                stdin.once('drain', done).once('close', done);
            });
        await write(head);
        for (let sent = 0; sent < lineBytes && !stdin.destroyed; sent += block.length) await write(block);
        await write(tail);
        s.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
        const skipped = await s.reply('big-1');
        expect(skipped.error?.code, JSON.stringify(skipped)).toBe(-32600);
        expect(skipped.error!.message).toContain(String(limit));
        expect((await s.reply(2)).result).toEqual({});
        expect(fs.existsSync(path.join(s.dir, 'huge.txt'))).toBe(false);
        // Buffering the line would take 256 MiB at least; the skip holds at most the limit and a chunk.
        expect(peakRss(s.child.pid!) - before).toBeLessThan(96 * 1024 * 1024);
        // A line too long to be read is answered with id null.
        s.send('x'.repeat(limit + 1));
        s.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
        await s.reply(3);
        expect(s.replies.find((r) => r.id === null)?.error?.message).toContain(String(limit));
    });
});

describe('MCP server: invalid configuration', () => {
    // Every LLM_CHAT_FS_* variable the server reads is checked before it answers anything, so a
    // client sees a server that did not start rather than one that dies after `initialize`.
    it.each(['LLM_CHAT_FS_INDEX_SYMBOLS', 'LLM_CHAT_FS_INDEX', 'LLM_CHAT_FS_NAVIGATION', 'LLM_CHAT_FS_MAX_CHARS_PER_FILE', 'LLM_CHAT_FS_MAX_MESSAGE_SIZE'])(
        'stops at start-up with exit code 2 on an invalid %s, answering nothing',
        async (name) => {
            // The index on, so that a variable only its build reads is read in today's start-up too.
            const s = startServer({ LLM_CHAT_FS_INDEX: 'true', [name]: 'banana' });
            const closed = new Promise<number | null>((resolve) => s.child.once('close', (code) => resolve(code)));
            s.send({ ...INITIALIZE, id: 0 });
            s.send(INITIALIZED);
            s.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
            expect(await closed, s.stderr()).toBe(2);
            expect(s.replies).toEqual([]);
            expect(s.stderr()).toContain(name);
        },
    );
});
