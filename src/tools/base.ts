import { ResultStatus, Tool, type PartialToolResult, type ToolResult } from './llm-chat.js';
import type { z } from 'zod';
import { FileConfiguration, SearchConfiguration } from '../config/shared/configuration.js';
import { envBoolean } from '../config/shared/env.js';
import type { WriteEvent } from '../search/backend.js';
import type { Engine } from '../engine/engine.js';
import { errors, escapeControls, toToolError, type ToolErrorKind } from '../errors/shared/errors.js';
import { textOfParts, type ContentPart } from '../content/parts.js';
import { capText } from '../print/budget.js';
import { FilePool } from '../fs/file-pool.js';
import type { CheckedPath, Workspace, WorkspaceView } from '../access/workspace.js';
import type { ToolDeclaration } from './declaration.js';
import { notFoundNote } from './not-found-note.js';
import { describeShape, SchemaParameters, withoutNullOptionals } from './schema.js';

/** What the tools of one package share. Every field is optional for a tool built on its own. */
export interface ToolShared {
    searchConfig?: SearchConfiguration;
    fileConfig?: FileConfiguration;
    filePool?: FilePool;
    /** The worker-pool engine for search and bulk reads (default `Engine.shared()`, loaded on first use). */
    engine?: Engine;
    /** Edits append a compact diff to their confirmation (default `LLM_CHAT_FS_EDIT_DIFF`, else false). */
    showDiff?: boolean;
    /** read_file shows Jupyter notebooks as cells without being asked (default `LLM_CHAT_FS_NOTEBOOKS`, else false). */
    notebooks?: boolean;
}

/** The shared context with defaults filled in. */
export interface ToolContext {
    workspace: Workspace;
    searchConfig: SearchConfiguration;
    fileConfig: FileConfiguration;
    filePool: FilePool;
    /**
     * The worker-pool engine. Start-up: a tool built without one loads the engine module (and
     * `Engine.shared()`) on the first call that needs it, so a call that never searches or reads
     * in bulk never loads it.
     */
    engine(): Promise<Engine>;
    /** Reports a change made through the tools to the engine's search backends; `undefined` when it has none. */
    reportWrite: ((event: WriteEvent) => void) | undefined;
    showDiff: boolean;
    notebooks: boolean;
}

// Tools built on their own on one Workspace share one FilePool, so a read by `new ReadFileTool(ws)`
// satisfies read-before-write for `new ReplaceFileLinesTool(ws)`, as the reference's examples do.
const poolsByWorkspace = new WeakMap<Workspace, { enabled?: FilePool; disabled?: FilePool }>();

function defaultPool(workspace: Workspace, fileConfig: FileConfiguration): FilePool {
    let pools = poolsByWorkspace.get(workspace);
    if (!pools) poolsByWorkspace.set(workspace, (pools = {}));
    const key = fileConfig.requireReadBeforeWrite ? 'enabled' : 'disabled';
    return (pools[key] ??= new FilePool(fileConfig));
}

let engineModule: Promise<typeof import('../engine/engine.js')> | undefined;

/** `Engine.shared()`, its module loaded on first use. */
async function sharedEngine(): Promise<Engine> {
    return (await (engineModule ??= import('../engine/engine.js'))).Engine.shared();
}

/** Closes `Engine.shared()` if a tool built without an engine has loaded it (a one-shot CLI call ends with it). */
export async function closeSharedEngine(): Promise<void> {
    if (engineModule) await (await engineModule).Engine.shared().close();
}

/** Fills in defaults for a tool built without a package (one FilePool per Workspace). */
export function toolContext(workspace: Workspace, shared: ToolShared = {}): ToolContext {
    const fileConfig = shared.fileConfig ?? new FileConfiguration();
    return {
        workspace,
        searchConfig: shared.searchConfig ?? new SearchConfiguration(),
        fileConfig,
        filePool: shared.filePool ?? defaultPool(workspace, fileConfig),
        engine: shared.engine ? () => Promise.resolve(shared.engine!) : sharedEngine,
        reportWrite: shared.engine && shared.engine.backends.length > 0 ? (e) => shared.engine!.reportWrite(e) : undefined,
        showDiff: shared.showDiff ?? envBoolean('LLM_CHAT_FS_EDIT_DIFF', false),
        notebooks: shared.notebooks ?? envBoolean('LLM_CHAT_FS_NOTEBOOKS', false),
    };
}

/** Progress of one call: `progress` grows with each report; `total` when known (same unit). */
export interface CallProgress {
    progress: number;
    total?: number;
    message?: string;
}

/**
 * What a host passes down to one tool call beyond its arguments (see {@link FileTool.executeWithSignal}).
 */
export interface CallOptions {
    /** Aborted when the caller gives up (an MCP client's `notifications/cancelled`, an AI SDK abort). */
    signal?: AbortSignal;
    /** Called with progress reports; hosts forward them (MCP `notifications/progress`). Must not throw. */
    onProgress?: (progress: CallProgress) => void;
}

/**
 * One running tool call as its `run` sees it: the host's {@link CallOptions} and the lines the
 * call adds after its success result (a write that reached several hard links).
 *
 * Perf: passed as an argument, not through an `AsyncLocalStorage`. On Node 20 the first
 * `AsyncLocalStorage.run` turns on async_hooks' promise hooks for the whole process, for good:
 * every promise of the host then runs JavaScript hooks when made, awaited and settled (a
 * recursive listing of 200,000 entries, one promise per entry read: 488 ms with them, 385 ms
 * without).
 */
export interface ToolCall extends CallOptions {
    /** Lines added after the success result, in order. */
    readonly notes: string[];
}

/**
 * A tool's result; a failed one carries the {@link ToolErrorKind} of its failure. A result given
 * as content parts carries them in `parts`, and `result` is their text for hosts that take only
 * strings (llm-chat's `ToolResult`): the text parts and a line for each part left out.
 */
export type FileToolResult = ToolResult & { kind?: ToolErrorKind; parts?: ContentPart[] };

/** A success result: a string (one text part) or content parts (see {@link FileToolResult}). */
export function ok(result: string | readonly ContentPart[]): PartialToolResult {
    if (typeof result === 'string') return { status: ResultStatus.Success, result };
    // llm-chat's `execute` copies every field of the partial result, `parts` included.
    return { status: ResultStatus.Success, result: textOfParts(result), parts: [...result] } as PartialToolResult;
}

/** An error result of `kind`; llm-chat's `execute` keeps the field on the {@link FileToolResult}. */
export const fail = (result: string, kind: ToolErrorKind): PartialToolResult => ({ status: ResultStatus.Error, result, kind }) as PartialToolResult;

/** The error result for any thrown value, naming `path` (see {@link describeFailure}), with its kind. */
export function failure(err: unknown, path = ''): PartialToolResult {
    const e = toToolError(err, path);
    return fail(escapeControls(e.message), e.kind);
}

/**
 * Base of the tools: each is built from its {@link ToolDeclaration} (name, description, zod
 * schema, behaviour; the same schema is shown to the model), each call runs against one workspace
 * snapshot, and every failure becomes an error result with its kind; nothing is thrown to the caller.
 */
export abstract class FileTool<S extends z.ZodObject> extends Tool {
    protected readonly ctx: ToolContext;
    readonly #parameters: SchemaParameters;
    /** The tool's declaration (see src/tools/catalog.ts). */
    readonly declaration: ToolDeclaration<string, S>;
    /** The argument schema (zod); its JSON schema is what `toOpenAI()` shows. */
    readonly schema: S;

    /** Builds the tool its class declares (a subclass's static `declaration`, see src/tools/catalog.ts). */
    constructor(workspace: Workspace, shared?: ToolShared) {
        const declaration = (new.target as unknown as { declaration?: ToolDeclaration<string, S> }).declaration;
        if (declaration === undefined) throw new TypeError(`${new.target.name} has no static declaration (see declareTool).`);
        const parameters = new SchemaParameters(declaration.schema);
        super(declaration.name, declaration.description, parameters);
        this.#parameters = parameters;
        this.declaration = declaration;
        this.schema = declaration.schema;
        this.ctx = toolContext(workspace, shared);
    }

    /** The JSON schema of the arguments (a fresh copy). */
    jsonSchema(): Record<string, unknown> {
        return structuredClone(this.#parameters.toJSON());
    }

    /** llm-chat's `execute`, typed: a failed result carries its kind. */
    override execute(args: Record<string, unknown>): Promise<FileToolResult[]> {
        return super.execute(args);
    }

    /** Options {@link executeWithSignal} hands to the `onExecute` its `execute` call starts (synchronously). */
    #pending: CallOptions | undefined;

    /**
     * `execute(args)` with a cancellation signal and a progress listener for this call only; the
     * tool's `run` gets them in its {@link ToolCall}. A signal already aborted gives an error
     * result (kind `cancelled`) without running the tool. Never throws.
     */
    async executeWithSignal(args: Record<string, unknown>, signal?: AbortSignal, onProgress?: CallOptions['onProgress']): Promise<FileToolResult[]> {
        if (signal?.aborted) return [{ tool: this.name, ...fail(`Cancelled: the ${this.name} call was cancelled before it started.`, 'cancelled') }];
        const options: CallOptions = {};
        if (signal) options.signal = signal;
        if (onProgress) options.onProgress = onProgress;
        // llm-chat's `execute` calls `onExecute` before its first await, and `onExecute` takes the
        // options at once: concurrent calls on one tool each get their own.
        this.#pending = options;
        let running: Promise<FileToolResult[]>;
        try {
            running = this.execute(args);
        } finally {
            this.#pending = undefined;
        }
        return running;
    }

    protected override async onExecute(args: Record<string, unknown>): Promise<PartialToolResult> {
        const call: ToolCall = { ...this.#pending, notes: [] };
        this.#pending = undefined;
        try {
            const parsed = this.parse(args);
            // Changes through the tools reach the search backends before and after they happen.
            const report = this.ctx.reportWrite;
            const touched: CheckedPath[] = [];
            const tell = (c: CheckedPath, phase: WriteEvent['phase']): void => {
                report!({ path: c.real, phase });
                if (c.abs !== c.real) report!({ path: c.abs, phase });
            };
            const view = report === undefined ? this.ctx.workspace.view() : this.ctx.workspace.view((c) => (touched.push(c), tell(c, 'before')));
            let result: PartialToolResult;
            try {
                result = await this.run(parsed, view, call);
            } finally {
                for (const c of touched) tell(c, 'after');
            }
            const notes = call.notes;
            if (notes.length > 0 && result.status === ResultStatus.Success && typeof result.result === 'string') {
                const parts = (result as { parts?: ContentPart[] }).parts;
                if (parts) return { ...result, ...ok([...parts, { type: 'text', text: notes.join('\n') }]) };
                result = { ...result, result: `${result.result}\n${notes.join('\n')}` };
            }
            // The last guard of the call's output budget: the tools that list files or hits cut
            // their lists themselves, with notes that say how to get the rest (src/print/budget.ts).
            const limit = this.ctx.fileConfig.maxCharsPerCall;
            if (typeof result.result === 'string' && result.result.length > limit && result.next === undefined && !('parts' in result)) {
                return { ...result, result: capText(result.result, limit) };
            }
            return result;
        } catch (err) {
            const shown = pathArgument(args);
            const failed = failure(err, shown);
            if ((failed as FileToolResult).kind !== 'not_found') return failed;
            const note = await notFoundNote(this.ctx.workspace.view(), shown, this.name);
            return note === '' ? failed : { ...failed, result: `${failed.result}\n${note}` };
        }
    }

    /** Checks `args`, turning zod's issues into one message naming each bad argument and the expected shape. */
    protected parse(args: unknown): z.infer<S> {
        // No arguments at all means `{}`; `null` (like any non-object) is refused with the expected shape.
        const result = this.schema.safeParse(args === undefined ? {} : withoutNullOptionals(this.schema, args));
        if (result.success) return result.data;
        const details = result.error.issues
            .map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message))
            .join('; ');
        throw errors.invalidArgument(this.name, `${details}. Expected ${describeShape(this.jsonSchema())}.`);
    }

    /** The tool's work, against one workspace snapshot, for one {@link ToolCall}. Throw ToolError for failures. */
    protected abstract run(args: z.infer<S>, view: WorkspaceView, call: ToolCall): Promise<PartialToolResult>;
}

/** The path a failure most likely concerns: the `path` argument, else move_file's `source`. */
function pathArgument(args: Record<string, unknown> | undefined): string {
    for (const key of ['path', 'source'] as const) if (typeof args?.[key] === 'string') return args[key];
    return '';
}

/**
 * One failure message for any thrown value, naming `path` (the user's path). Control characters
 * are escaped, so no name or text in a message can start a line of its own.
 */
export function describeFailure(err: unknown, path = ''): string {
    return escapeControls(toToolError(err, path).message);
}

