import type { Tool } from '../../tools/llm-chat.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
    CallToolRequestSchema,
    EmptyResultSchema,
    ErrorCode,
    ListToolsRequestSchema,
    McpError,
    type CallToolResult,
    type ContentBlock,
    type Tool as McpTool,
    type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { checkPositiveInt, envPositiveInt } from '../../config/shared/env.js';
import { allFailed, failedCall, inputSchemaOf, resultParts, runTool, type CallResult } from '../adapters/run.js';
import type { ContentPart } from '../../content/parts.js';
import type { FileToolPackage } from '../../package/package.js';
import { FileTool, type CallProgress } from '../../tools/base.js';
import { TUTORIAL } from '../../package/tutorial.js';
import { GuardedServer } from './guard.js';
import { useClientRoots } from './roots.js';
import { DEFAULT_MAX_MESSAGE_SIZE, LineTransport } from './stdio.js';


/**
 * The MCP annotations of a tool, from its declaration's behaviour (src/tools/catalog.ts);
 * `undefined` for a tool that is not a FileTool. `destructiveHint` only means something for a
 * tool that is not read-only (MCP defaults: destructive true, idempotent false), so only those
 * state it. `openWorldHint: false`: the tools act only on the configured directories.
 */
export function toolAnnotations(tool: Tool): ToolAnnotations | undefined {
    if (!(tool instanceof FileTool)) return undefined;
    const { title, behaviour: b } = tool.declaration;
    return b.readOnly
        ? { title, readOnlyHint: true, idempotentHint: b.idempotent, openWorldHint: false }
        : { title, readOnlyHint: false, destructiveHint: b.destructive, idempotentHint: b.idempotent, openWorldHint: false };
}

/** The package's name and version, from its package.json (three levels up in src/, four in dist/src/). */
function packageInfo(): { name: string; version: string } {
    for (const rel of ['../../../package.json', '../../../../package.json']) {
        try {
            const json = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
            if (json.name === '@johannes.latzel/llm-chat-file' && json.version) return { name: 'llm-chat-file', version: json.version };
        } catch {
            // not this level
        }
    }
    return { name: 'llm-chat-file', version: '0.0.0' };
}

/** Settles with `work`, or with `onAbort()` as soon as `signal` aborts (the work is then left to its own cancellation). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, onAbort: () => T): Promise<T> {
    if (signal.aborted) return Promise.resolve(onAbort());
    return new Promise<T>((resolve, reject) => {
        const abort = (): void => resolve(onAbort());
        signal.addEventListener('abort', abort, { once: true });
        work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
    });
}

/** One content part as an MCP content block (image and embedded resource blocks for media). */
function mcpBlock(part: ContentPart): ContentBlock {
    if (part.type !== 'resource') return part;
    const { uri, mimeType } = part;
    const resource = part.blob !== undefined ? { uri, blob: part.blob } : { uri, text: part.text };
    return { type: 'resource', resource: mimeType === undefined ? resource : { ...resource, mimeType } };
}

/**
 * Tool results as an MCP result: each result's content parts as content blocks (one text block
 * for a text result; image and resource blocks as the tool gave them); failed items start with
 * `Error: `; `isError` when every item failed. `structuredContent.results` gives each item's
 * status and, for a failed one, the kind of its failure (`ToolErrorKind`), in the order of the
 * items; an item of more than one block says how many (`blocks`).
 */
export function toCallToolResult(results: CallResult[]): CallToolResult {
    const blocks = results.map((r) => resultParts(r).map(mcpBlock));
    return {
        content: blocks.flat(),
        structuredContent: {
            results: results.map((r, i) => ({
                status: r.status,
                ...(r.status === 'error' && { kind: r.kind ?? 'io' }),
                ...(blocks[i]!.length !== 1 && { blocks: blocks[i]!.length }),
            })),
        },
        // A bulk read_file with one bad path out of ten is not a failed call: the other nine are content.
        isError: allFailed(results),
    };
}

/**
 * An MCP server (the SDK's low-level `Server`, not yet connected) that lists the package's tools
 * with their exact JSON schemas and annotations and runs them.
 *
 * - `tools/list`: name, description, `inputSchema` (the tool's JSON schema), `annotations`.
 * - `tools/call`: the content blocks of each result (see {@link toCallToolResult}); error items
 *   start with `Error: ` and the result has `isError: true` when every item is an error;
 *   `structuredContent.results` gives each item's status and error kind. An
 *   unknown tool name is a protocol error (`InvalidParams`), as in the SDK's `McpServer`.
 * - Cancellation: the request's `AbortSignal` (aborted by `notifications/cancelled`) reaches the
 *   tool through `FileTool.executeWithSignal`; the handler stops waiting at once either way.
 * - Progress: when the request carries `_meta.progressToken`, `notifications/progress` is sent at
 *   the start (progress 0), for each report of the tool, and at the end (progress = total).
 * - The package's tutorial is sent as the server's `instructions`.
 *
 * - With `options.roots`, the client's roots become the accesses (see {@link McpServerOptions.roots}).
 * - Requests before `initialize` (but `ping`) are refused, and `tools/call` params that are not
 *   the protocol's (`arguments` not an object) get a one-sentence error (src/hosts/mcp/guard.ts).
 * - `pkg` may be a function that loads the package: the server then answers `initialize` (with
 *   the package's default tutorial) without it, calls it once the client is initialized (or on
 *   the first request that needs the tools), and those requests wait for it.
 *
 * Connect it to a transport yourself, or use {@link runMcpStdio}.
 */
export function createMcpServer(pkg: FileToolPackage | (() => Promise<FileToolPackage>), options: McpServerOptions = {}): Server {
    const info = packageInfo();
    const server = new GuardedServer(
        { name: info.name, version: info.version, title: 'llm-chat-file: filesystem tools' },
        { capabilities: { tools: { listChanged: false } }, instructions: (typeof pkg === 'function' ? TUTORIAL : pkg.tutorial()) ?? undefined },
        { requireInitialize: options.requireInitialize ?? true },
    );
    let loading: Promise<FileToolPackage> | undefined;
    const ready = (): Promise<FileToolPackage> => (loading ??= typeof pkg === 'function' ? pkg() : Promise.resolve(pkg));
    let tools: Promise<Map<string, Tool>> | undefined;
    const toolsReady = (): Promise<Map<string, Tool>> => (tools ??= ready().then((p) => new Map(p.tools().map((t) => [t.name, t]))));
    // Start-up: a package given as a function loads once the client has its `initialize` answer.
    const previous = server.oninitialized;
    server.oninitialized = () => {
        previous?.();
        void toolsReady().catch(() => undefined);
    };
    // With `roots`, a call waits until the roots asked for so far are in force.
    let rootsSettled: (() => Promise<void>) | undefined;

    server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [...(await toolsReady()).values()].map((t): McpTool => {
            const annotations = toolAnnotations(t);
            return {
                name: t.name,
                ...(annotations?.title ? { title: annotations.title } : {}),
                description: t.description,
                inputSchema: inputSchemaOf(t) as McpTool['inputSchema'],
                ...(annotations ? { annotations } : {}),
            };
        }),
    }));

    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
        const { name, arguments: args = {} } = request.params;
        const tools = await toolsReady();
        const tool = tools.get(name);
        if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found. Tools: ${[...tools.keys()].join(', ')}`);
        await rootsSettled?.();
        const token = request.params._meta?.progressToken;
        let last = 0;
        // Notifications are chained and awaited before the result: the client drops progress for
        // a request it has already seen answered.
        let sent: Promise<void> = Promise.resolve();
        const notify = (progress: number, total?: number, message?: string): void => {
            if (token === undefined || extra.signal.aborted) return;
            const params = { progressToken: token, progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) };
            sent = sent.then(() => extra.sendNotification({ method: 'notifications/progress', params })).catch(() => undefined);
        };
        // MCP requires progress to increase with every notification: reports that do not are dropped.
        const onProgress = (p: CallProgress): void => {
            if (!(p.progress > last)) return;
            last = p.progress;
            notify(p.progress, p.total !== undefined && p.total >= p.progress ? p.total : undefined, p.message);
        };
        notify(0, undefined, `${name} started`);
        const results = await untilAborted(runTool(tool, args, { signal: extra.signal, onProgress }), extra.signal, () =>
            failedCall(`Cancelled: the ${name} call was cancelled by the client.`, 'cancelled'),
        );
        notify(last + 1, last + 1, `${name} finished`);
        await sent;
        if (token !== undefined && !extra.signal.aborted) {
            // The SDK's client handles notifications a microtask late but responses at once: a
            // progress notification read in the same chunk as the response would arrive after
            // its handler is gone ("unknown token"). A ping answered by the client after it has
            // handled the notifications keeps them before the response. Bounded; errors ignored.
            await extra.sendRequest({ method: 'ping' }, EmptyResultSchema, { timeout: 2_000 }).catch(() => undefined);
        }
        return toCallToolResult(results);
    });
    if (options.roots === true) rootsSettled = useClientRoots(server, ready, options.onRootsError ?? ((m) => console.error(`llm-chat-file mcp: ${m}`)));
    return server;
}

/** Options of {@link createMcpServer} and {@link runMcpStdio}. */
export interface McpServerOptions {
    /**
     * Use the client's roots as the accesses (opt-in, as the reference MCP filesystem server
     * does): when the client declares the `roots` capability, the server asks for its roots after
     * `initialized` and again on each `notifications/roots/list_changed`. Every `file://` root
     * that is an existing directory becomes a writable access, the first one the workspace; the
     * accesses configured before (options, variables) are replaced while the client offers at
     * least one such root, and stay in force otherwise. Access rules are unchanged: paths are
     * decided on real paths and symlinks out of a root grant nothing. Default `false`.
     */
    roots?: boolean;
    /** Where a root that cannot be used, or a failed `roots/list`, is reported (default: standard error). */
    onRootsError?: (message: string) => void;
    /**
     * Refuse every request but `ping` until the client's `initialize` (default `true`, as the MCP
     * lifecycle has it). `false` only for a transport whose requests come without one (stateless HTTP).
     */
    requireInitialize?: boolean;
    /**
     * {@link runMcpStdio} only: the largest message taken, in bytes (default
     * `LLM_CHAT_FS_MAX_MESSAGE_SIZE`, else 64 MiB). A longer line is skipped without being held in
     * memory and answered with an error naming the limit.
     */
    maxMessageSize?: number;
}

/**
 * Serves the package over stdio until the client closes standard input or the process gets
 * SIGINT/SIGTERM, then closes the server and the package's worker pool.
 *
 * Standard output carries protocol messages only: `console.log`, `console.info` and
 * `console.debug` are redirected to standard error while the server runs.
 * Invalid lines and lines above `maxMessageSize` are answered with a JSON-RPC error and written
 * to standard error; the session goes on (see src/hosts/mcp/stdio.ts).
 * With `pkg` a function, the server answers `initialize` before loading the package (start-up:
 * the tools, the engine and the index are not needed to answer it; see {@link createMcpServer});
 * a package that fails to load is reported on standard error and ends the server with exit code 1.
 * @returns when the server has closed, an exit code: 0 after a clean shutdown (end of standard
 *   input, SIGINT, SIGTERM), even if invalid or over-long lines came earlier; 1 when a
 *   transport failure closed the connection.
 * @throws Error for an invalid `maxMessageSize` or `LLM_CHAT_FS_MAX_MESSAGE_SIZE`, before serving.
 */
export async function runMcpStdio(pkg: FileToolPackage | (() => Promise<FileToolPackage>), options: McpServerOptions = {}): Promise<number> {
    const maxMessageSize =
        options.maxMessageSize === undefined
            ? envPositiveInt('LLM_CHAT_FS_MAX_MESSAGE_SIZE', DEFAULT_MAX_MESSAGE_SIZE)
            : checkPositiveInt('maxMessageSize', options.maxMessageSize);
    // Security/robustness: a stray console.log would corrupt the JSON-RPC stream on stdout.
    console.log = console.error;
    console.info = console.error;
    console.debug = console.error;
    // The transport waits for 'drain' once per response written while stdout is full: with
    // many concurrent calls that is more than Node's default of 10 listeners, which is no leak.
    process.stdout.setMaxListeners(0);
    let loading: Promise<FileToolPackage> | undefined = typeof pkg === 'function' ? undefined : Promise.resolve(pkg);
    let loadFailed = false;
    const load = (): Promise<FileToolPackage> => {
        if (loading) return loading;
        loading = (pkg as () => Promise<FileToolPackage>)();
        loading.catch((err: unknown) => {
            console.error(`llm-chat-file mcp: the tools could not be loaded: ${err instanceof Error ? err.message : String(err)}`);
            loadFailed = true;
            shutdown();
        });
        return loading;
    };
    const server = createMcpServer(typeof pkg === 'function' ? load : pkg, options);
    let closing = false;
    // Whether the connection was closed by the transport itself (a fatal error) rather than by a
    // clean shutdown: the end of standard input or a signal.
    let closedByTransport = false;
    const closed = new Promise<void>((resolve) => {
        server.onclose = () => {
            closedByTransport = !closing;
            resolve();
        };
    });
    // Every transport error is written to stderr. An invalid or over-long line is answered and the
    // session goes on; a failure that closes the connection makes the exit code 1 instead of
    // vanishing silently.
    server.onerror = (err: Error) => {
        console.error(`llm-chat-file mcp: ${err.message}`);
    };
    const shutdown = (): void => {
        if (closing) return;
        closing = true;
        void server.close().catch(() => undefined);
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    try {
        const limitName = `${maxMessageSize} bytes (${options.maxMessageSize === undefined ? 'LLM_CHAT_FS_MAX_MESSAGE_SIZE' : 'maxMessageSize'})`;
        // The end of standard input shuts down once every request read has been answered.
        await server.connect(new LineTransport(process.stdin, process.stdout, { maxMessageSize, limitName, onEnd: shutdown }));
        await closed;
    } finally {
        process.off('SIGINT', shutdown);
        process.off('SIGTERM', shutdown);
        // The transport only pauses stdin; an open pipe would keep the process alive after SIGTERM.
        process.stdin.destroy();
        await loading?.then((p) => p.close(), () => undefined);
    }
    return closedByTransport || loadFailed ? 1 : 0;
}
