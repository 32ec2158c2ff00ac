/**
 * The MCP server's stdio transport (src/hosts/mcp/stdio.ts) on in-process streams: line framing with a
 * bounded buffer, the id read from an over-long line as it streams past (src/hosts/mcp/jsonrpc.ts), the
 * replies to invalid lines; and the request guard (src/hosts/mcp/guard.ts) through the SDK's in-memory
 * transport. test/hardening/mcp-protocol.test.ts runs the same classes against the real server process.
 */
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { IdScanner } from '../../../src/hosts/mcp/jsonrpc.js';
import { createMcpServer } from '../../../src/hosts/mcp/server.js';
import { LineTransport } from '../../../src/hosts/mcp/stdio.js';
import { makePackage, tempDir } from '../../support/helpers.js';

interface Wired {
    input: PassThrough;
    messages: JSONRPCMessage[];
    /** Replies the transport wrote itself, parsed. */
    replies: { id: unknown; error: { code: number; message: string } }[];
}

async function wire(maxMessageSize: number): Promise<Wired> {
    const input = new PassThrough();
    const output = new PassThrough();
    const t = new LineTransport(input, output, { maxMessageSize });
    const wired: Wired = { input, messages: [], replies: [] };
    t.onmessage = (m) => wired.messages.push(m);
    t.onerror = () => undefined;
    let partial = '';
    output.on('data', (d: Buffer) => {
        const lines = (partial + d.toString()).split('\n');
        partial = lines.pop()!;
        for (const l of lines) wired.replies.push(JSON.parse(l) as Wired['replies'][number]);
    });
    await t.start();
    return wired;
}

/** Writes `chunks` one by one and lets the transport and the output stream handle each. */
async function feed(w: Wired, chunks: (string | Buffer)[]): Promise<void> {
    for (const c of chunks) {
        w.input.write(c);
        await new Promise((r) => setImmediate(r));
    }
}

/** `text` in pieces of `size` bytes. */
const pieces = (text: string, size: number): Buffer[] => {
    const b = Buffer.from(text);
    const out: Buffer[] = [];
    for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
    return out;
};

const ping = (id: number | string): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

describe('LineTransport', () => {
    it('frames messages split across chunks and several in one chunk, CRLF and blank lines included', async () => {
        const w = await wire(1000);
        await feed(w, [...pieces(`${ping(1)}\n${ping(2)}\r\n\n${ping(3)}`, 7), '\n']);
        expect(w.messages.map((m) => (m as { id: number }).id)).toEqual([1, 2, 3]);
        expect(w.replies).toEqual([]);
    });

    it('takes a line of exactly the limit and skips one byte more with an error naming the limit, then goes on', async () => {
        const pad = (n: number): string => {
            const base = { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { x: '' } } };
            const s = JSON.stringify(base);
            return s.replace('"x":""', `"x":"${'y'.repeat(n - s.length)}"`);
        };
        const w = await wire(200);
        await feed(w, [`${pad(200)}\n`, `${pad(201).replace('"id":1', '"id":"two"')}\n`, `${ping(3)}\n`]);
        expect(w.messages.map((m) => (m as { id: unknown }).id)).toEqual([1, 3]);
        expect(w.replies).toEqual([{ jsonrpc: '2.0', id: 'two', error: { code: -32600, message: expect.stringContaining('200 bytes') } }]);
    });

    it('reads the top-level id of an over-long request wherever it is, ignoring ids nested in params', async () => {
        const w = await wire(64);
        const big = 'z'.repeat(5000);
        const lines = [
            `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"write_file","arguments":{"content":"${big}"}}}`,
            `{"jsonrpc":"2.0","method":"tools/call","params":{"id":1,"arguments":{"id":"no","content":"${big}\\"id\\":2"}},"id":"a\\"b"}`,
            `{ "method" : "x" , "params" : [ { "id" : 3 } , "${big}" ] , "id" : -7 }`,
            // A response's id is the server's own; an id that is no JSON-RPC id; no method; not JSON.
            `{"jsonrpc":"2.0","id":5,"result":{"text":"${big}"}}`,
            `{"jsonrpc":"2.0","id":{"n":1},"method":"x","params":{"t":"${big}"}}`,
            `{"jsonrpc":"2.0","id":6,"params":{"t":"${big}"}}`,
            `not json ${big}`,
        ];
        // Through 13-byte pieces: every boundary (in names, escapes, numbers) is crossed somewhere.
        await feed(w, lines.flatMap((l) => [...pieces(l, 13), '\n']));
        expect(w.replies.map((r) => r.id)).toEqual([41, 'a"b', -7, null, null, null, null]);
        expect(w.messages).toEqual([]);
    });

    it('answers lines that are not valid messages and passes the valid ones on', async () => {
        const w = await wire(1000);
        await feed(w, ['{ oops\n', '[]\n', `{"jsonrpc":"2.0","id":9}\n`, `{"jsonrpc":"2.0","id":1,"result":5}\n`, `{"jsonrpc":"2.0","id":2,"method":"ping","extra":1}\n`, `${ping(4)}\n`]);
        expect(w.replies.map((r) => [r.id, r.error.code])).toEqual([
            [null, -32700],
            [null, -32600],
            [9, -32600],
            [null, -32600],
            [2, -32600],
        ]);
        expect(w.replies[4]!.error.message).toContain('"extra"');
        expect(w.messages).toEqual([{ jsonrpc: '2.0', id: 4, method: 'ping' }]);
    });
});

describe('IdScanner', () => {
    it('agrees with JSON.parse on the id of a request, whatever the piece size', () => {
        const texts = [
            '{"id":1,"method":"m"}',
            '{"method":"m","id":"x\\\\"}',
            '{"method":"m","id":"\\u0041"}',
            '{"method":"m","params":{"a":[1,{"id":2}],"b":"}{[]"},"id":3}',
            '{"method":"m","id":1.5}',
            '{"method":"m","id":null}',
            '{"method":"m","id":12345678901234567890}',
            '{"id":7}',
            '{"id":8,"method":"m","error":{}}',
            '[{"id":1,"method":"m"}]',
        ];
        for (const text of texts) {
            const v = JSON.parse(text) as Record<string, unknown>;
            const valid = !Array.isArray(v) && 'method' in v && !('result' in v || 'error' in v) && (typeof v.id === 'string' || Number.isSafeInteger(v.id));
            for (const size of [1, 2, 3, 5, 100]) {
                const s = new IdScanner();
                for (const p of pieces(text, size)) s.feed(p);
                expect(s.id(), `${text} in pieces of ${size}`).toEqual(valid ? v.id : null);
            }
        }
    });
});

/** A server on a fresh package, and the client end of an in-memory transport to it with the messages it got. */
async function rawSession(options?: Parameters<typeof createMcpServer>[1]) {
    const fx = makePackage(tempDir());
    const [a, b] = InMemoryTransport.createLinkedPair();
    const server = createMcpServer(fx.pkg, options);
    await server.connect(a);
    const got: JSONRPCMessage[] = [];
    b.onmessage = (m) => got.push(m);
    await b.start();
    return { fx, server, b, got };
}

describe('the request guard of createMcpServer', () => {
    it('lets requests through before initialize when told to (a transport without sessions)', async () => {
        const { server, b, got } = await rawSession({ requireInitialize: false });
        await b.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
        await expect.poll(() => got.length).toBe(1);
        expect(got[0]).toMatchObject({ id: 1, result: { tools: expect.any(Array) } });
        await server.close();
    });

    it('says that arguments must be an object of the tool\'s arguments, naming no parameter another tool has', async () => {
        const { server, b, got } = await rawSession({ requireInitialize: false });
        await b.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_file', arguments: [1] } });
        await expect.poll(() => got.length).toBe(1);
        expect(got[0]).toMatchObject({ id: 1, error: { code: -32602, message: "Invalid params: `arguments` must be an object of read_file's arguments by name, as its inputSchema in tools/list describes them; got an array." } });
        await server.close();
    });

    it('refuses a request before initialize by default, and serves after it', async () => {
        const { fx, b, got } = await rawSession();
        await b.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
        await expect.poll(() => got.length).toBe(1);
        expect(got[0]).toMatchObject({ id: 1, error: { code: -32600, message: expect.stringMatching(/initialize/) } });
        await b.close();
        const client = new Client({ name: 't', version: '1' });
        const [c, d] = InMemoryTransport.createLinkedPair();
        await Promise.all([createMcpServer(fx.pkg).connect(c), client.connect(d)]);
        expect((await client.listTools()).tools.length).toBeGreaterThan(0);
        await client.close();
    });
});

describe('LineTransport at the end of its input', () => {
    it('calls onEnd once every request read was answered or cancelled, after reading a last line without a line break', async () => {
        const input = new PassThrough();
        const output = new PassThrough();
        let ended = 0;
        const t = new LineTransport(input, output, { onEnd: () => ended++ });
        const got: JSONRPCMessage[] = [];
        t.onmessage = (m) => got.push(m);
        await t.start();
        input.write('{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
        input.write('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
        input.write('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"y"}}\n');
        // A cancelled request gets no answer: it is not waited for. The last line has no line break.
        input.end('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}');
        await new Promise((resolve) => setImmediate(resolve));
        expect(got.map((m) => ('id' in m ? m.id : 'note'))).toEqual([1, 'note', 2, 3, 4, 'note']);
        expect(ended).toBe(0);
        await t.send({ jsonrpc: '2.0', id: 1, result: {} });
        await t.send({ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'x' } });
        // A notification from the server answers nothing.
        await t.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } } as JSONRPCMessage);
        expect(ended).toBe(0);
        await t.send({ jsonrpc: '2.0', id: 4, result: {} });
        expect(ended).toBe(1);
        await t.send({ jsonrpc: '2.0', id: 5, result: {} });
        expect(ended).toBe(1);
    });
});
