import { ResultStatus, type Tool, type ToolResult } from '../llm-chat.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
    CallToolRequestSchema,
    EmptyResultSchema,
    ErrorCode,
    ListToolsRequestSchema,
    McpError,
    RootsListChangedNotificationSchema,
    type CallToolResult,
    type Tool as McpTool,
    type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { AccessType, DirectoryConfiguration, type Access } from '../config/configuration.js';
import { allFailed, inputSchemaOf, resultText } from '../adapters/shared.js';
import type { FileToolPackage } from '../package.js';
import { FileTool, type CallProgress } from '../tools/base.js';

/**
 * MCP annotations of the 13 tools. `destructiveHint` and `idempotentHint` only mean something for
 * tools that are not read-only (MCP defaults: destructive true, idempotent false), so every
 * writing tool states both. Idempotent = a repeat with the same arguments changes nothing more
 * (a repeated delete or move fails and changes nothing; repeated line edits or inserts would).
 * `openWorldHint: false`: the tools act only on the configured directories.
 */
export const TOOL_ANNOTATIONS: Readonly<Record<string, ToolAnnotations>> = {
    search_entries: { title: 'Search files and directories', readOnlyHint: true, idempotentHint: true },
    list_directory: { title: 'List a directory', readOnlyHint: true, idempotentHint: true },
    read_file: { title: 'Read files', readOnlyHint: true, idempotentHint: true },
    entry_info: { title: 'Entry metadata', readOnlyHint: true, idempotentHint: true },
    file_access_info: { title: 'Accessible directories', readOnlyHint: true, idempotentHint: true },
    write_file: { title: 'Write a file', readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    replace_file_lines: { title: 'Replace lines', readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    insert_file_content: { title: 'Insert text', readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    replace_file_content: { title: 'Replace text', readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    delete_file: { title: 'Delete a file or directory', readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    move_file: { title: 'Move or rename', readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    create_folder: { title: 'Create a directory', readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    switch_workspace: { title: 'Switch workspace', readOnlyHint: false, destructiveHint: false, idempotentHint: true },
};

/** The package's name and version, from its package.json (two levels up in src/, three in dist/src/). */
function packageInfo(): { name: string; version: string } {
    for (const rel of ['../../package.json', '../../../package.json']) {
        try {
            const json = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
            if (json.name === '@johannes.latzel/llm-chat-file' && json.version) return { name: 'llm-chat-file', version: json.version };
        } catch {
            // not this level
        }
    }
    return { name: 'llm-chat-file', version: '0.0.0' };
}

/** Runs `tool` with the call's signal and progress listener when it supports them. */
function runTool(tool: Tool, args: Record<string, unknown>, signal: AbortSignal, onProgress: (p: CallProgress) => void): Promise<ToolResult[]> {
    return tool instanceof FileTool ? tool.executeWithSignal(args, signal, onProgress) : tool.execute(args);
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

/** Tool results as an MCP result: one text item per result; failed items start with `Error: `; `isError` when every item failed. */
export function toCallToolResult(results: ToolResult[]): CallToolResult {
    return {
        content: results.map((r) => ({ type: 'text' as const, text: resultText(r) })),
        // A bulk read_file with one bad path out of ten is not a failed call: the other nine are content.
        isError: allFailed(results),
    };
}

/**
 * An MCP server (the SDK's low-level `Server`, not yet connected) that lists the package's tools
 * with their exact JSON schemas and annotations and runs them.
 *
 * - `tools/list`: name, description, `inputSchema` (the tool's JSON schema), `annotations`.
 * - `tools/call`: one text content item per result (read_file gives one per path); error items
 *   start with `Error: ` and the result has `isError: true` when every item is an error. An
 *   unknown tool name is a protocol error (`InvalidParams`), as in the SDK's `McpServer`.
 * - Cancellation: the request's `AbortSignal` (aborted by `notifications/cancelled`) reaches the
 *   tool through `FileTool.executeWithSignal`; the handler stops waiting at once either way.
 * - Progress: when the request carries `_meta.progressToken`, `notifications/progress` is sent at
 *   the start (progress 0), for each report of the tool, and at the end (progress = total).
 * - The package's tutorial is sent as the server's `instructions`.
 *
 * - With `options.roots`, the client's roots become the accesses (see {@link McpServerOptions.roots}).
 *
 * Connect it to a transport yourself, or use {@link runMcpStdio}.
 */
export function createMcpServer(pkg: FileToolPackage, options: McpServerOptions = {}): Server {
    const info = packageInfo();
    const server = new Server(
        { name: info.name, version: info.version, title: 'llm-chat-file: filesystem tools' },
        { capabilities: { tools: { listChanged: false } }, instructions: pkg.tutorial() ?? undefined },
    );
    const tools = new Map(pkg.tools().map((t) => [t.name, t]));
    // With `roots`, a call waits until the roots asked for so far are in force.
    let rootsSettled: (() => Promise<void>) | undefined;

    server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [...tools.values()].map((t): McpTool => {
            const annotations = TOOL_ANNOTATIONS[t.name];
            return {
                name: t.name,
                ...(annotations?.title ? { title: annotations.title } : {}),
                description: t.description,
                inputSchema: inputSchemaOf(t) as McpTool['inputSchema'],
                ...(annotations ? { annotations: { ...annotations, openWorldHint: false } } : {}),
            };
        }),
    }));

    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
        const { name, arguments: args = {} } = request.params;
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
        const results = await untilAborted(runTool(tool, args, extra.signal, onProgress), extra.signal, () => [
            { tool: name, status: ResultStatus.Error, result: `Cancelled: the ${name} call was cancelled by the client.` },
        ]);
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
    if (options.roots === true) rootsSettled = useClientRoots(server, pkg, options.onRootsError ?? ((m) => console.error(`llm-chat-file mcp: ${m}`)));
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
}

/** The client's `file://` roots that are existing directories, as accesses; reports the others. */
async function rootsAsAccesses(roots: readonly { uri: string }[], report: (message: string) => void): Promise<Access[]> {
    const accesses: Access[] = [];
    for (const { uri } of roots) {
        let dir: string;
        try {
            dir = fileURLToPath(uri);
        } catch {
            report(`root ${uri} skipped: not a local file:// URI.`);
            continue;
        }
        try {
            if ((await fs.stat(dir)).isDirectory()) accesses.push({ type: AccessType.Write, path: dir });
            else report(`root ${uri} skipped: not a directory.`);
        } catch (err) {
            report(`root ${uri} skipped: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (err as Error).message}.`);
        }
    }
    return accesses;
}

/** How long the server waits for the client's answer to `roots/list`, in milliseconds. */
const ROOTS_TIMEOUT_MS = 5_000;

/** Installs the roots handling; returns a function whose promise settles when the latest roots request has. */
function useClientRoots(server: Server, pkg: FileToolPackage, report: (message: string) => void): () => Promise<void> {
    const initial = pkg.workspace.configuration;
    let sequence = 0;
    let pending: Promise<void> = Promise.resolve();
    const refresh = async (): Promise<void> => {
        if (server.getClientCapabilities()?.roots === undefined) return;
        const mine = ++sequence;
        let roots;
        try {
            roots = (await server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS })).roots;
        } catch (err) {
            report(`roots/list failed: ${(err as Error).message}`);
            return;
        }
        const accesses = await rootsAsAccesses(roots, report);
        // A later list_changed overtook this one.
        if (mine !== sequence) return;
        pkg.workspace.reconfigure(
            accesses.length > 0
                ? new DirectoryConfiguration(accesses, [...initial.skipDirs], initial.resolveSymlinks, accesses[0]!.path)
                : initial,
        );
    };
    const start = (): void => {
        pending = refresh().catch((err: unknown) => report(`roots not applied: ${(err as Error).message}`));
    };
    const previous = server.oninitialized;
    server.oninitialized = () => {
        previous?.();
        start();
    };
    server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
        start();
        return Promise.resolve();
    });
    return () => pending;
}

/**
 * Serves the package over stdio until the client closes standard input or the process gets
 * SIGINT/SIGTERM, then closes the server and the package's worker pool.
 *
 * Standard output carries protocol messages only: `console.log`, `console.info` and
 * `console.debug` are redirected to standard error while the server runs.
 * Transport errors (such as a message above the SDK's 10 MiB read buffer, which closes the
 * connection) are written to standard error.
 * @returns when the server has closed, an exit code: 0 after a clean shutdown (end of standard
 *   input, SIGINT, SIGTERM), even if malformed lines came earlier; 1 when a transport failure
 *   closed the connection.
 */
export async function runMcpStdio(pkg: FileToolPackage, options: McpServerOptions = {}): Promise<number> {
    // Security/robustness: a stray console.log would corrupt the JSON-RPC stream on stdout.
    console.log = console.error;
    console.info = console.error;
    console.debug = console.error;
    // The SDK's transport waits for 'drain' once per response written while stdout is full: with
    // many concurrent calls that is more than Node's default of 10 listeners, which is no leak.
    process.stdout.setMaxListeners(0);
    const server = createMcpServer(pkg, options);
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
    // Every transport error is written to stderr. A malformed line is answered and the session
    // goes on; a failure that closes the connection (for example a message above the SDK's
    // 10 MiB read buffer) makes the exit code 1 instead of vanishing silently.
    server.onerror = (err: Error) => {
        console.error(`llm-chat-file mcp: ${err.message}`);
    };
    const shutdown = (): void => {
        if (closing) return;
        closing = true;
        void server.close().catch(() => undefined);
    };
    process.stdin.once('end', shutdown);
    process.stdin.once('close', shutdown);
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    try {
        await server.connect(new StdioServerTransport());
        await closed;
    } finally {
        process.stdin.off('end', shutdown);
        process.stdin.off('close', shutdown);
        process.off('SIGINT', shutdown);
        process.off('SIGTERM', shutdown);
        // The transport only pauses stdin; an open pipe would keep the process alive after SIGTERM.
        process.stdin.destroy();
        await pkg.close();
    }
    return closedByTransport ? 1 : 0;
}
