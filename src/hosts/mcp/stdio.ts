/**
 * The MCP server's stdio transport: one JSON-RPC message per line on standard input, replies on
 * standard output. Not the SDK's StdioServerTransport, which keeps appending to one buffer
 * (copying it on every chunk), closes the connection once a line passes 10 MiB, and reports
 * invalid lines only to `onerror`, so the client waits for a reply that never comes. Here a line
 * is held in pieces up to the limit and then only scanned for its id (src/hosts/mcp/jsonrpc.ts) as it
 * streams past; every invalid or over-long line is answered, and the session goes on.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { IdScanner, readMessage } from './jsonrpc.js';

/**
 * The default largest message, in bytes (64 MiB), well above what the tools take: a `write_file`
 * of 10 Mi characters (a file of the default `maxFileSize`, with `maxCharsPerFile` raised that
 * far) fits even with every character JSON-escaped as `\uXXXX`, 6 bytes each.
 */
export const DEFAULT_MAX_MESSAGE_SIZE = 64 * 1024 * 1024;

const NEWLINE = 0x0a;

/** Options of {@link LineTransport}. */
export interface LineTransportOptions {
    /** The longest line taken, in bytes without its line break (default {@link DEFAULT_MAX_MESSAGE_SIZE}). */
    maxMessageSize?: number;
    /** Names the limit in the reply to an over-long line (default: its number of bytes). */
    limitName?: string;
    /** Called once standard input has ended and every request read from it has been answered. */
    onEnd?: () => void;
}

/** A stdio {@link Transport} with a bounded line buffer that answers invalid and over-long lines. */
export class LineTransport implements Transport {
    onclose?: () => void;
    onerror?: (error: Error) => void;
    onmessage?: (message: JSONRPCMessage) => void;

    private readonly max: number;
    private readonly limitName: string;
    private started = false;
    /** The current line's pieces and their length, while it is within the limit. */
    private parts: Buffer[] = [];
    private size = 0;
    /** Set while the rest of an over-long line streams past. */
    private skipping: IdScanner | undefined;
    /** Requests read and not answered yet: a pipe closed right after its last request still gets every answer. */
    private readonly pending = new Set<RequestId>();
    private inputEnded = false;
    private onEnd: (() => void) | undefined;

    constructor(
        private readonly stdin: Readable = process.stdin,
        private readonly stdout: Writable = process.stdout,
        options: LineTransportOptions = {},
    ) {
        this.max = options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE;
        this.limitName = options.limitName ?? `${this.max} bytes`;
        this.onEnd = options.onEnd;
    }

    async start(): Promise<void> {
        if (this.started) throw new Error('LineTransport already started (Server.connect starts it).');
        this.started = true;
        this.stdin.on('data', this.onData);
        this.stdin.on('error', this.onStreamError);
        this.stdin.once('end', this.onInputEnd);
        this.stdin.once('close', this.onInputEnd);
    }

    async close(): Promise<void> {
        this.stdin.off('data', this.onData);
        this.stdin.off('error', this.onStreamError);
        this.stdin.off('end', this.onInputEnd);
        this.stdin.off('close', this.onInputEnd);
        if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
        this.parts = [];
        this.size = 0;
        this.skipping = undefined;
        this.onclose?.();
    }

    send(message: JSONRPCMessage): Promise<void> {
        const answered = 'id' in message && ('result' in message || 'error' in message) ? message.id : undefined;
        return new Promise<void>((resolve) => {
            if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
            else this.stdout.once('drain', resolve);
        }).then(() => {
            if (answered !== undefined && this.pending.delete(answered)) this.settle();
        });
    }

    /** The end of standard input: a last line without a line break is read, then the answers awaited. */
    private readonly onInputEnd = (): void => {
        if (this.inputEnded) return;
        this.inputEnded = true;
        if (this.size > 0 || this.skipping) this.endLine();
        this.settle();
    };

    private settle(): void {
        if (!this.inputEnded || this.pending.size > 0 || this.onEnd === undefined) return;
        const onEnd = this.onEnd;
        this.onEnd = undefined;
        onEnd();
    }

    private readonly onStreamError = (error: Error): void => {
        this.onerror?.(error);
    };

    private readonly onData = (chunk: Buffer | string): void => {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        let start = 0;
        while (start <= bytes.length) {
            const nl = bytes.indexOf(NEWLINE, start);
            this.take(bytes.subarray(start, nl === -1 ? bytes.length : nl));
            if (nl === -1) break;
            this.endLine();
            start = nl + 1;
        }
    };

    /** Adds a piece of the current line: kept while the line is within the limit, scanned past after. */
    private take(piece: Buffer): void {
        if (piece.length === 0) return;
        if (this.skipping) {
            this.skipping.feed(piece);
        } else if (this.size + piece.length > this.max) {
            this.skipping = new IdScanner();
            for (const p of this.parts) this.skipping.feed(p);
            this.skipping.feed(piece);
            this.parts = [];
            this.size = 0;
        } else {
            this.parts.push(piece);
            this.size += piece.length;
        }
    }

    private endLine(): void {
        if (this.skipping) {
            const id = this.skipping.id();
            this.skipping = undefined;
            const message = `Invalid Request: the message is larger than the server's limit of ${this.limitName}; the line was skipped.`;
            this.reply(id, ErrorCode.InvalidRequest, message);
            return;
        }
        const line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
        this.parts = [];
        this.size = 0;
        const text = line.toString('utf8').replace(/\r$/, '');
        // Blank lines carry no message.
        if (text.trim() === '') return;
        const read = readMessage(text);
        if ('invalid' in read) {
            this.reply(read.invalid.id, read.invalid.code, read.invalid.message);
            return;
        }
        const m = read.message as { id?: RequestId; method?: string; params?: { requestId?: RequestId } };
        if (m.method !== undefined && m.id !== undefined) this.pending.add(m.id);
        // A cancelled request gets no answer (MCP): it is not waited for.
        if (m.method === 'notifications/cancelled' && m.params?.requestId !== undefined && this.pending.delete(m.params.requestId)) this.settle();
        try {
            this.onmessage?.(read.message);
        } catch (err) {
            this.onerror?.(err instanceof Error ? err : new Error(String(err)));
        }
    }

    /** Answers a line that carried no valid message, and reports it (the server writes it to stderr). */
    private reply(id: RequestId | null, code: number, message: string): void {
        this.onerror?.(new Error(message));
        // JSON-RPC's error reply to an unreadable id is id null, which the SDK's message type leaves out.
        this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage).catch((err: unknown) => this.onStreamError(err as Error));
    }
}
