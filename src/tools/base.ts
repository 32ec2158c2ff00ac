import { ResultStatus, Tool, ToolParameterProperty, ToolParameters, type PartialToolResult, type ToolResult } from '../llm-chat.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import { z } from 'zod';
import { FileConfiguration, SearchConfiguration } from '../config/configuration.js';
import { envBoolean } from '../config/env.js';
import { Engine } from '../engine/engine.js';
import { errors, escapeControls, toToolError } from '../errors.js';
import { FilePool } from '../file-pool.js';
import { reportWrites, SearchIndex } from '../search-index/search-index.js';
import type { Workspace, WorkspaceView } from '../workspace.js';

/** What the tools of one package share. Every field is optional for a tool built on its own. */
export interface ToolShared {
    searchConfig?: SearchConfiguration;
    fileConfig?: FileConfiguration;
    filePool?: FilePool;
    /** The worker-pool engine for search and bulk reads. */
    engine?: Engine;
    /** Edits append a compact diff to their confirmation (default `LLM_CHAT_FS_EDIT_DIFF`, else false). */
    showDiff?: boolean;
}

/** The shared context with defaults filled in. */
export interface ToolContext {
    workspace: Workspace;
    searchConfig: SearchConfiguration;
    fileConfig: FileConfiguration;
    filePool: FilePool;
    engine: Engine;
    showDiff: boolean;
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

/** Fills in defaults for a tool built without a package (one FilePool per Workspace). */
export function toolContext(workspace: Workspace, shared: ToolShared = {}): ToolContext {
    const fileConfig = shared.fileConfig ?? new FileConfiguration();
    return {
        workspace,
        searchConfig: shared.searchConfig ?? new SearchConfiguration(),
        fileConfig,
        filePool: shared.filePool ?? defaultPool(workspace, fileConfig),
        engine: shared.engine ?? Engine.shared(),
        showDiff: shared.showDiff ?? envBoolean('LLM_CHAT_FS_EDIT_DIFF', false),
    };
}

/**
 * ToolParameters whose JSON is the full JSON schema generated from a zod schema (ranges, enums).
 * Start-up: the JSON schema is generated on first use (a one-shot CLI call never needs the 13).
 */
class SchemaParameters extends ToolParameters {
    #schema: Record<string, unknown> | undefined;
    readonly #source: z.ZodType;
    constructor(source: z.ZodType) {
        super({}, []);
        this.#source = source;
        // llm-chat's `properties` and `required` are plain fields: computed from the schema when read.
        Object.defineProperty(this, 'properties', {
            configurable: true,
            enumerable: true,
            get: () => {
                const props = (this.toJSON().properties ?? {}) as Record<string, { description?: string }>;
                return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, new ToolParameterProperty(v.description ?? k)]));
            },
        });
        Object.defineProperty(this, 'required', {
            configurable: true,
            enumerable: true,
            get: () => (this.toJSON().required as string[] | undefined) ?? [],
        });
    }
    override toJSON(): Record<string, unknown> {
        return (this.#schema ??= jsonSchemaOf(this.#source));
    }
}

/**
 * JSON schema (draft 2020-12, without `$schema`) of a tool's arguments. The bounds zod adds to
 * every integer (`minimum: -9007199254740991`, `maximum: 9007199254740991`, JavaScript's safe
 * integer range) say nothing a model needs and cost tokens on every request: they are left out.
 */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
    const { $schema: _, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
    return dropSafeIntegerBounds(rest) as Record<string, unknown>;
}

function dropSafeIntegerBounds(node: unknown): unknown {
    if (Array.isArray(node)) return node.map(dropSafeIntegerBounds);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
        if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
        if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
        // `enum`, `const` and `default` hold values, not schemas.
        out[key] = key === 'enum' || key === 'const' || key === 'default' ? value : dropSafeIntegerBounds(value);
    }
    return out;
}

/**
 * `args` without the optional arguments whose value is `null`: strict function-calling modes
 * (OpenAI strict, the Responses API) send `null` for an optional argument not given, so `null`
 * means "not given" for any argument that may be left out. A required argument sent as `null`
 * is kept, and refused by the schema as before. Anything but a plain object is returned as is.
 */
export function withoutNullOptionals(schema: z.ZodObject, args: unknown): unknown {
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return args;
    const shape = schema.shape as Record<string, z.ZodType | undefined>;
    let out: Record<string, unknown> | undefined;
    for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
        if (value !== null || !shape[key]?.safeParse(undefined).success) continue;
        out ??= { ...(args as Record<string, unknown>) };
        delete out[key];
    }
    return out ?? args;
}

/** Progress of one call: `progress` grows with each report; `total` when known (same unit). */
export interface CallProgress {
    progress: number;
    total?: number;
    message?: string;
}

/**
 * What a host passes down to one tool call beyond its arguments (see {@link FileTool.executeWithSignal}).
 * Tools and the engine read it with {@link currentCall}.
 */
export interface CallOptions {
    /** Aborted when the caller gives up (an MCP client's `notifications/cancelled`, an AI SDK abort). */
    signal?: AbortSignal;
    /** Called with progress reports; hosts forward them (MCP `notifications/progress`). Must not throw. */
    onProgress?: (progress: CallProgress) => void;
}

// One store per call: tool instances are shared by concurrent calls, so the signal cannot live on `this`.
const callStore = new AsyncLocalStorage<CallOptions>();
/** Lines a call adds after its success result (a write that reached several hard links). */
const noteStore = new AsyncLocalStorage<string[]>();

/** Adds a line after the success result of the tool call running in this async context. */
export function addResultNote(note: string): void {
    noteStore.getStore()?.push(note);
}

/** The options of the tool call running in this async context; `{}` outside `executeWithSignal`. */
export function currentCall(): CallOptions {
    return callStore.getStore() ?? {};
}

export const ok = (result: string): PartialToolResult => ({ status: ResultStatus.Success, result });
export const fail = (result: string): PartialToolResult => ({ status: ResultStatus.Error, result });

/**
 * Base of the 13 tools: arguments are checked against a zod schema (the same schema is shown to
 * the model), each call runs against one workspace snapshot, and every failure becomes an error
 * result; nothing is thrown to the caller.
 */
export abstract class FileTool<S extends z.ZodObject> extends Tool {
    protected readonly ctx: ToolContext;
    readonly #parameters: SchemaParameters;
    /** The argument schema (zod); its JSON schema is what `toOpenAI()` shows. */
    readonly schema: S;

    constructor(name: string, description: string, schema: S, workspace: Workspace, shared?: ToolShared) {
        const parameters = new SchemaParameters(schema);
        super(name, description, parameters);
        this.#parameters = parameters;
        this.schema = schema;
        this.ctx = toolContext(workspace, shared);
    }

    /** The JSON schema of the arguments (a fresh copy). */
    jsonSchema(): Record<string, unknown> {
        return structuredClone(this.#parameters.toJSON());
    }

    /**
     * `execute(args)` with a cancellation signal and a progress listener for this call only; the
     * tool (and the engine it calls) read them with {@link currentCall}. A signal already aborted
     * gives an error result without running the tool. Never throws.
     */
    async executeWithSignal(args: Record<string, unknown>, signal?: AbortSignal, onProgress?: CallOptions['onProgress']): Promise<ToolResult[]> {
        if (signal?.aborted) return [{ tool: this.name, status: ResultStatus.Error, result: `Cancelled: the ${this.name} call was cancelled before it started.` }];
        const options: CallOptions = {};
        if (signal) options.signal = signal;
        if (onProgress) options.onProgress = onProgress;
        return callStore.run(options, () => this.execute(args));
    }

    /** The cancellation signal and progress listener of the current call (`{}` for a plain `execute`). */
    protected get call(): CallOptions {
        return currentCall();
    }

    protected override async onExecute(args: Record<string, unknown>): Promise<PartialToolResult> {
        try {
            const parsed = this.parse(args);
            const notes: string[] = [];
            const index = this.ctx.engine.searchIndex;
            // Changes through the tools reach the search index before and after they happen.
            const reported = index instanceof SearchIndex ? reportWrites(this.ctx.workspace.view(), index) : null;
            let result: PartialToolResult;
            try {
                result = await noteStore.run(notes, () => this.run(parsed, reported?.view ?? this.ctx.workspace.view()));
            } finally {
                reported?.done();
            }
            if (notes.length > 0 && result.status === ResultStatus.Success && typeof result.result === 'string') {
                return { ...result, result: `${result.result}\n${notes.join('\n')}` };
            }
            return result;
        } catch (err) {
            return fail(describeFailure(err, pathArgument(args)));
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

    /** The tool's work, against one workspace snapshot. Throw ToolError for failures. */
    protected abstract run(args: z.infer<S>, view: WorkspaceView): Promise<PartialToolResult>;
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

/** `{ path: string (required), recursive?: boolean }` style summary of a JSON schema. */
function describeShape(schema: Record<string, unknown>): string {
    type Prop = { type?: string; items?: { type?: string }; enum?: unknown[]; anyOf?: Prop[] };
    const props = (schema.properties ?? {}) as Record<string, Prop>;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const typeOf = (v: Prop): string =>
        v.enum
            ? v.enum.map((e) => JSON.stringify(e)).join(' | ')
            : v.anyOf
              ? v.anyOf.map(typeOf).join(' | ')
              : v.type === 'array'
                ? `${v.items?.type ?? 'unknown'}[]`
                : (v.type ?? 'unknown');
    const parts = Object.entries(props).map(([k, v]) => `${k}${required.has(k) ? '' : '?'}: ${typeOf(v)}`);
    return parts.length === 0 ? 'no arguments ({})' : `{ ${parts.join(', ')} }`;
}

/** zod helpers shared by the tools' schemas. */
export const arg = {
    path: (what = 'File path') => z.string().describe(`${what} (absolute, or relative to the workspace root; "." is the workspace root)`),
    line: (desc: string) => z.number().int().min(1).describe(desc),
    count: (desc: string) => z.number().int().min(1).describe(desc),
    isoDate: (desc: string) =>
        z
            .string()
            .refine(isIsoDate, { message: 'expected an ISO 8601 date-time such as 2025-01-31T12:00:00Z' })
            .describe(desc),
};

const isoDateTime = z.iso.datetime({ offset: true, local: true });
const isoDay = z.iso.date();

/**
 * True for an ISO 8601 date-time (`2025-01-31T12:00:00Z`, an offset such as `+02:00`, fractions of
 * a second; without an offset it is local time) or a calendar date (`2025-01-31`, midnight UTC), as
 * zod's `z.iso` validators define them, whose date is a real calendar day. `"1"` or `"Jan 1 2025"`,
 * which `Date.parse` accepts, are refused.
 */
function isIsoDate(s: string): boolean {
    return (isoDay.safeParse(s).success || isoDateTime.safeParse(s).success) && isoDay.safeParse(s.slice(0, 10)).success && !Number.isNaN(Date.parse(s));
}
