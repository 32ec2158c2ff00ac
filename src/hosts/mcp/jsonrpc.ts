/**
 * Reading one JSON-RPC message from a line of the stdio transport (src/hosts/mcp/stdio.ts): the
 * message, or the error reply an invalid one gets. JSON-RPC 2.0 answers a message that is not
 * JSON with -32700 and one that is no valid message with -32600, with the message's id when it
 * can be read and null otherwise; MCP (2025-06-18 on) has no batches, so an array is refused too.
 */
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** An invalid message's reply: the id it answers (null when none can be read), code and message. */
export interface InvalidMessage {
    id: RequestId | null;
    code: number;
    message: string;
}

/** The message on `line`, or what to reply when it is not a valid JSON-RPC message. */
export function readMessage(line: string): { message: JSONRPCMessage } | { invalid: InvalidMessage } {
    let value: unknown;
    try {
        value = JSON.parse(line);
    } catch (err) {
        return { invalid: { id: null, code: ErrorCode.ParseError, message: `Parse error: the line is not JSON (${(err as Error).message}).` } };
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) return { message: parsed.data };
    const invalid = (id: RequestId | null, why: string): { invalid: InvalidMessage } => ({ invalid: { id, code: ErrorCode.InvalidRequest, message: `Invalid Request: ${why}` } });
    if (Array.isArray(value)) return invalid(null, 'a batch (a JSON array) is not supported: MCP removed JSON-RPC batches in 2025-06-18; send one message per line.');
    if (typeof value !== 'object' || value === null) return invalid(null, `a message is a JSON object, not ${kindOf(value)}.`);
    const m = value as Record<string, unknown>;
    // A reply never answers a response (an id there is the server's own) nor an unreadable id.
    const id = isRequestId(m.id) && !('result' in m || 'error' in m) ? m.id : null;
    return invalid(id, `${problemOf(m, parsed.error.issues)}.`);
}

/** What makes `m`, an object, no JSON-RPC message, in a few words. */
function problemOf(m: Record<string, unknown>, issues: readonly { path: PropertyKey[]; message: string }[]): string {
    if (m.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
    if ('id' in m && !isRequestId(m.id)) return '"id" must be a string or an integer';
    if ('method' in m) {
        if (typeof m.method !== 'string') return '"method" must be a string';
        if ('params' in m && (typeof m.params !== 'object' || m.params === null || Array.isArray(m.params))) return '"params" must be an object';
    } else if ('result' in m || 'error' in m) {
        return 'a response needs an "id" and either an object "result" or an "error" with a code and a message';
    } else {
        return 'id' in m ? 'a request needs a "method"' : 'a message needs a "method"';
    }
    const extra = Object.keys(m).filter((k) => !['jsonrpc', 'id', 'method', 'params'].includes(k));
    if (extra.length > 0) return `unexpected member ${JSON.stringify(extra[0])}`;
    const issue = issues.find((i) => i.path.length > 1) ?? issues[0];
    return issue ? `${issue.path.map(String).join('.') || 'message'}: ${issue.message}` : 'not a JSON-RPC 2.0 message';
}

/** `an array`, `a number`, `null`, ... */
export function kindOf(value: unknown): string {
    if (value === null) return 'null';
    if (Array.isArray(value)) return 'an array';
    return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isRequestId(id: unknown): id is RequestId {
    return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** The longest member name or id kept, in bytes: longer ones are not what the scanner looks for. */
const MAX_CAPTURE = 256;

/**
 * The top-level `id` of a line too long to keep, read as its bytes stream past: a JSON scanner
 * that holds only the few bytes of the member names and the id it is after, so the line is never
 * buffered. `id()` gives it only for a request (a `method` member, no `result` or `error`), and
 * only when the line began as an object; anything else gives null.
 */
export class IdScanner {
    private started = false;
    private failed = false;
    private depth = 0;
    private inString = false;
    private escaped = false;
    /** At depth 1: a member name is next (after `{` or `,`), or its value (after `:`). */
    private expectName = false;
    private capture: number[] | undefined;
    private captureIsName = false;
    private lastName = '';
    private idText: string | undefined;
    private sawMethod = false;
    private sawResponse = false;
    private overflow = false;
    /** The chunk being scanned and its next quote and backslash (-2: not searched yet, -1: none). */
    private chunk: Uint8Array | undefined;
    private view: Buffer | undefined;
    private nextQuote = -2;
    private nextSlash = -2;

    feed(bytes: Uint8Array): void {
        for (let i = 0; i < bytes.length && !this.failed; i++) {
            if (this.inString) {
                i = this.inStringAt(bytes, i);
                continue;
            }
            const b = bytes[i]!;
            if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) {
                if (this.capture && !this.captureIsName) this.endNumber();
                continue;
            }
            if (!this.started) {
                this.started = true;
                if (b !== 0x7b) this.failed = true;
            }
            if (this.capture && !this.captureIsName) {
                if ((b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2b || b === 0x2e || b === 0x65 || b === 0x45) {
                    if (this.capture.length < MAX_CAPTURE) this.capture.push(b);
                    continue;
                }
                this.endNumber();
            }
            if (b === QUOTE) {
                this.inString = true;
                const asName = this.depth === 1 && this.expectName;
                const asId = this.depth === 1 && !this.expectName && this.lastName === 'id';
                this.capture = asName || asId ? [] : undefined;
                this.captureIsName = asName;
            } else if (b === 0x7b || b === 0x5b) {
                this.depth++;
                this.expectName = b === 0x7b && this.depth === 1;
            } else if (b === 0x7d || b === 0x5d) {
                this.depth--;
            } else if (this.depth === 1 && b === 0x3a) {
                this.expectName = false;
            } else if (this.depth === 1 && b === 0x2c) {
                this.expectName = true;
                this.lastName = '';
            } else if (this.depth === 1 && !this.expectName && this.lastName === 'id' && ((b >= 0x30 && b <= 0x39) || b === 0x2d)) {
                this.capture = [b];
                this.captureIsName = false;
            }
        }
    }

    /** The request's id, or null. */
    id(): RequestId | null {
        if (this.failed || this.idText === undefined || !this.sawMethod || this.sawResponse) return null;
        try {
            const id = JSON.parse(this.idText) as unknown;
            return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : null;
        } catch {
            return null;
        }
    }

    /**
     * Skips string content from `i` to the next quote or backslash (memchr; each found position
     * is kept for the chunk, so a chunk of many short strings is searched once); returns the
     * index last consumed.
     */
    private inStringAt(bytes: Uint8Array, i: number): number {
        if (this.escaped) {
            this.escaped = false;
            this.keep(bytes, i, i + 1);
            return i;
        }
        if (this.chunk !== bytes) {
            this.chunk = bytes;
            this.view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
            this.nextQuote = this.nextSlash = -2;
        }
        if (this.nextQuote !== -1 && this.nextQuote < i) this.nextQuote = this.view!.indexOf(QUOTE, i);
        if (this.nextSlash !== -1 && this.nextSlash < i) this.nextSlash = this.view!.indexOf(BACKSLASH, i);
        const { nextQuote: quote, nextSlash: slash } = this;
        const stop = quote === -1 ? slash : slash === -1 ? quote : Math.min(quote, slash);
        this.keep(bytes, i, stop === -1 ? bytes.length : stop + 1);
        if (stop === -1) return bytes.length - 1;
        if (stop === slash) {
            this.escaped = true;
            return stop;
        }
        this.inString = false;
        if (this.capture) this.endString();
        return stop;
    }

    /** Adds `bytes[from, to)` to the capture under way, if any (the closing quote is dropped at its end). */
    private keep(bytes: Uint8Array, from: number, to: number): void {
        if (!this.capture) return;
        if (this.capture.length + (to - from) > MAX_CAPTURE) {
            this.overflow = true;
            return;
        }
        for (let k = from; k < to; k++) this.capture.push(bytes[k]!);
    }

    private endString(): void {
        // The capture ends with the closing quote.
        const text = Buffer.from(this.capture!.slice(0, -1)).toString('utf8');
        const overflow = this.overflow;
        this.capture = undefined;
        this.overflow = false;
        if (overflow) return;
        if (this.captureIsName) {
            // Names with escapes are not the plain ones looked for: they stay unmatched.
            this.lastName = text;
            if (text === 'method') this.sawMethod = true;
            if (text === 'result' || text === 'error') this.sawResponse = true;
        } else {
            this.idText = `"${text}"`;
        }
    }

    private endNumber(): void {
        this.idText = Buffer.from(this.capture!).toString('latin1');
        this.capture = undefined;
    }
}
