import type { PartialToolResult, PromptContainer, Tool, ToolPackage, ToolResult, ToolSuiteInterface } from '@johannes.latzel/llm-chat';
import { loadToolSuiteModule } from '../tools/llm-chat.js';

/** The hook builder of a suite (`suite.hook().before().do(handler)`), llm-chat's `ToolHookBuilder`. */
export type ToolHookBuilder = ReturnType<ToolSuiteInterface['hook']>;

/** The events a suite emits around each tool call (the values of llm-chat's `ToolEvent`). */
export const ToolEvent = { Before: 'before', After: 'after', Error: 'error' } as const;
/** Arguments of each {@link ToolEvent}'s handlers. */
export interface ToolEventMap {
    before: [name: string, args: Record<string, unknown>];
    after: [result: ToolResult];
    error: [name: string, error: Error];
}

/**
 * `ToolSuite` of the host's own `@johannes.latzel/llm-chat` copy, with the methods it has at
 * run time.
 *
 * llm-chat 0.7.0 defines `ToolSuite` (the registry whose `executeTool` runs a tool call) but its
 * package entry does not export it, and its `exports` map forbids deep imports. This module
 * loads the class from the same installed copy by file URL, so `new ToolSuite().add(pkg)` uses
 * the host's single copy of `Tool` and `ToolPackage`.
 */
export interface ToolSuiteLike {
    /** Registers a tool or package. Throws on a duplicate name. */
    add(item: Tool | ToolPackage): void;
    /** The tool named `name`, or `undefined`. */
    get(name: string): Tool | undefined;
    /** The registered tools as OpenAI Chat Completions definitions. */
    getTools(): unknown[];
    /** Runs the tool `name` with JSON arguments; emits the `before`/`after`/`error` events unless `silent`. */
    executeTool(name: string, args: string, silent?: boolean): Promise<ToolResult[]>;
    /** Removes every tool and package; also the event handlers unless `retainHooks`. */
    clear(retainHooks?: boolean): void;
    /** The hook builder for tool events: `suite.hook().after().do((result) => ...)` returns a disposable hook. */
    hook(): ToolHookBuilder;
    /** Adds an event handler. */
    on<E extends keyof ToolEventMap>(event: E, handler: (...args: ToolEventMap[E]) => void): void;
    /** Removes an event handler added with {@link on}. */
    off<E extends keyof ToolEventMap>(event: E, handler: (...args: ToolEventMap[E]) => void): void;
    /** Sets the prompt container that receives the packages' tutorials. */
    setTutorialContainer(container: PromptContainer): void;
    /** Rebuilds the tutorial entries in the tutorial container from the registered packages. */
    rebuildTutorials(): void;
}

const mod = await loadToolSuiteModule<{ ToolSuite: new () => ToolSuiteLike }>();

/** The llm-chat tool registry: `add(tool | package)`, `executeTool(name, argsJson)`, `getTools()`, `hook()`, `on()`/`off()`. */
export const ToolSuite: new () => ToolSuiteLike = mod.ToolSuite;
export type ToolSuite = ToolSuiteLike;
export type { PartialToolResult };
