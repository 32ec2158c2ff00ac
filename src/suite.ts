import type { PartialToolResult, Tool, ToolPackage, ToolResult } from '@johannes.latzel/llm-chat';

/**
 * `ToolSuite` of the host's own `@johannes.latzel/llm-chat` copy.
 *
 * llm-chat 0.7.0 defines `ToolSuite` (the registry whose `executeTool` runs a tool call) but its
 * package entry does not export it, and its `exports` map forbids deep imports. This module
 * loads the class from the same installed copy by file URL, so `new ToolSuite().add(pkg)` uses
 * the host's single copy of `Tool` and `ToolPackage`.
 */
export interface ToolSuiteLike {
    add(item: Tool | ToolPackage): void;
    get(name: string): Tool | undefined;
    getTools(): unknown[];
    executeTool(name: string, args: string, silent?: boolean): Promise<ToolResult[]>;
    clear(retainHooks?: boolean): void;
}

const entry = import.meta.resolve('@johannes.latzel/llm-chat');
const mod = (await import(new URL('./tools/suite.js', entry).href)) as { ToolSuite: new () => ToolSuiteLike };

/** The llm-chat tool registry: `add(tool | package)`, `executeTool(name, argsJson)`, `getTools()`. */
export const ToolSuite: new () => ToolSuiteLike = mod.ToolSuite;
export type ToolSuite = ToolSuiteLike;
export type { PartialToolResult };
