/**
 * The scan path as the reference the search index tests compare with: `search_entries` built as
 * FileToolPackage builds it, without an index, on one engine for the whole test file, on the
 * fork's shared pool (helpers.ts).
 */
import type { Tool } from '@johannes.latzel/llm-chat';
import { AccessType, FileConfiguration, FileToolPackage, SearchConfiguration, SearchEntriesTool, Workspace } from '../../src/index.js';
import { Engine } from '../../src/engine/engine.js';
import { afterEachFile } from './cleanup.js';
import { SHARED_POOL } from './helpers.js';

let engine: Engine | undefined;
afterEachFile(async () => {
    await engine?.close();
    engine = undefined;
});

/**
 * File limits with an output budget no compared output reaches: the index tests compare whole
 * outputs of thousands of lines, which the default budget (100,000 characters) would cut.
 */
export const WIDE_OUTPUT = (): FileConfiguration => new FileConfiguration(undefined, undefined, undefined, { maxCharsPerCall: 1_000_000_000 });

/**
 * Search timeout of the index tests' compared packages: long enough that a search runs to its end
 * on a machine busy with other work (a timeout is not what they check, and a search cut short on
 * one side only would differ from the other for nothing).
 */
export const COMPARED_TIMEOUT_MS = 600_000;

/**
 * `search_entries` of a package with no index on a workspace with write access to `root` (as the
 * compared package's), with `searchConfig`, on this file's engine (`new Engine()`'s defaults, as a
 * package's).
 */
export function scanPathSearch(root: string, searchConfig: SearchConfiguration): Tool {
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    return new SearchEntriesTool(ws, { searchConfig, fileConfig: WIDE_OUTPUT(), engine: (engine ??= new Engine(SHARED_POOL)) });
}

/** A package without an index on a workspace with write access to `root`, on this file's engine (closing it leaves the engine running). */
export function scanPathPackage(root: string, searchConfig: SearchConfiguration): FileToolPackage {
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    return new FileToolPackage(ws, searchConfig, WIDE_OUTPUT(), undefined, { index: false, engine: (engine ??= new Engine(SHARED_POOL)) });
}

/** Runs `tool` with `args`: `status: result` of its one result. */
export async function statusAndResult(tool: Tool, args: Record<string, unknown>): Promise<string> {
    const [r] = await tool.execute(args);
    return `${r!.status}: ${r!.result}`;
}
