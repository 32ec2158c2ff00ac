/**
 * Requests the SDK's `Server` would take but should not, refused before it sees them:
 *
 * - Anything but `initialize` and `ping` before `initialize` (MCP lifecycle: the client sends no
 *   other request before the server's answer to `initialize`; the SDK's `Server` enforces nothing
 *   and would run a `tools/call`). A request is let through once a valid `initialize` has come, not
 *   only after `notifications/initialized`: the spec allows requests once `initialize` is answered.
 *   Notifications before `initialize` are dropped (a notification gets no reply).
 * - `tools/call`, `tools/list` and `initialize` whose params do not fit the protocol's schema: the
 *   SDK answers those with its validator's raw output (a JSON dump of issues, code -32603 for most);
 *   here one sentence naming the member, code -32602 (`arguments` that is not an object above all).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
    CallToolRequestSchema,
    ErrorCode,
    InitializeRequestSchema,
    ListToolsRequestSchema,
    isJSONRPCRequest,
    type JSONRPCMessage,
    type JSONRPCRequest,
    type MessageExtraInfo,
} from '@modelcontextprotocol/sdk/types.js';
import { kindOf } from './jsonrpc.js';

const SCHEMAS = { initialize: InitializeRequestSchema, 'tools/list': ListToolsRequestSchema, 'tools/call': CallToolRequestSchema } as const;

/** Options of {@link GuardedTransport}. */
export interface GuardOptions {
    /** Refuse requests before `initialize` (default true; false for a transport whose requests come without one, such as stateless HTTP). */
    requireInitialize?: boolean;
}

/** Wraps a transport: the requests described in the file comment are answered here with an error. */
export class GuardedTransport implements Transport {
    onclose?: () => void;
    onerror?: (error: Error) => void;
    onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
    setProtocolVersion?: (version: string) => void;
    private initialized: boolean;

    constructor(
        private readonly inner: Transport,
        options: GuardOptions = {},
    ) {
        this.initialized = options.requireInitialize === false;
        if (inner.setProtocolVersion) this.setProtocolVersion = (v) => inner.setProtocolVersion!(v);
    }

    get sessionId(): string | undefined {
        return this.inner.sessionId;
    }

    async start(): Promise<void> {
        const { onclose, onerror, onmessage } = this.inner;
        this.inner.onclose = () => {
            onclose?.();
            this.onclose?.();
        };
        this.inner.onerror = (error) => {
            onerror?.(error);
            this.onerror?.(error);
        };
        this.inner.onmessage = (message, extra) => {
            onmessage?.(message, extra);
            this.receive(message, extra);
        };
        await this.inner.start();
    }

    send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
        return this.inner.send(message, options);
    }

    close(): Promise<void> {
        return this.inner.close();
    }

    private receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
        if (isJSONRPCRequest(message)) {
            const refusal = this.refusal(message);
            if (refusal) {
                this.onerror?.(new Error(`${message.method} refused: ${refusal.message}`));
                this.inner.send({ jsonrpc: '2.0', id: message.id, error: refusal }).catch((err: unknown) => this.onerror?.(err as Error));
                return;
            }
        } else if (!this.initialized && 'method' in message) {
            this.onerror?.(new Error(`${message.method} ignored: it came before initialize.`));
            return;
        }
        this.onmessage?.(message, extra);
    }

    /** The error a request gets instead of being handled, if any. */
    private refusal(request: JSONRPCRequest): { code: number; message: string } | undefined {
        const schema = SCHEMAS[request.method as keyof typeof SCHEMAS] as (typeof SCHEMAS)[keyof typeof SCHEMAS] | undefined;
        const problem = schema ? paramsProblem(request, schema) : undefined;
        if (request.method === 'initialize') {
            if (problem) return { code: ErrorCode.InvalidParams, message: problem };
            this.initialized = true;
            return undefined;
        }
        if (!this.initialized && request.method !== 'ping') {
            return { code: ErrorCode.InvalidRequest, message: `Server not initialized: send initialize first (only ping may come before it); ${request.method} was not run.` };
        }
        return problem ? { code: ErrorCode.InvalidParams, message: problem } : undefined;
    }
}

/** What is wrong with the params of `request` for `schema`, in one sentence; `undefined` when they fit. */
function paramsProblem(request: JSONRPCRequest, schema: (typeof SCHEMAS)[keyof typeof SCHEMAS]): string | undefined {
    const params = request.params as Record<string, unknown> | undefined;
    if (request.method === 'tools/call' && params && 'arguments' in params) {
        const args = params.arguments;
        if (typeof args !== 'object' || args === null || Array.isArray(args)) {
            const tool = typeof params.name === 'string' ? `${params.name}'s` : "the tool's";
            return `Invalid params: \`arguments\` must be an object of ${tool} arguments by name, as its inputSchema in tools/list describes them; got ${kindOf(args)}.`;
        }
    }
    const parsed = schema.safeParse(request);
    if (parsed.success) return undefined;
    const issue = parsed.error.issues[0]!;
    return `Invalid params of ${request.method}: ${issue.path.map(String).join('.')}: ${issue.message}.`;
}

/** The SDK's `Server`, each transport it connects to wrapped in a {@link GuardedTransport}. */
export class GuardedServer extends Server {
    constructor(
        info: ConstructorParameters<typeof Server>[0],
        options: ConstructorParameters<typeof Server>[1],
        private readonly guard: GuardOptions = {},
    ) {
        super(info, options);
    }

    override connect(transport: Transport): Promise<void> {
        return super.connect(new GuardedTransport(transport, this.guard));
    }
}
