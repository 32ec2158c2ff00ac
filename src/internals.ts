/**
 * `@johannes.latzel/llm-chat-file/internals`: the engine, the search index and the pieces the
 * tools are built from, for benchmarks, tests and embedders that need them. Unlike the main
 * entry (src/index.ts), these may change in any release.
 */
export { Engine, DEFAULT_WORKER_NICE, type EngineOptions } from './engine/engine.js';
export { setBackgroundIdleMs, setOwnThreadsIdleMs } from './engine/background-pool.js';
export { SearchIndex, defaultIndexDir, type SearchIndexOptions } from './search-index/search-index.js';
export { TreeIndex, type IndexStatus, type IndexState } from './search-index/tree-index.js';
export type { SearchRequest, SearchHit, SearchOutcome, SearchStop, EntryType } from './search/shared/types.js';
export { DEFAULT_SKIP_DIRS } from './config/shared/configuration.js';
export { WorkspaceView, type CheckedPath } from './access/workspace.js';
export { EXIT_CODES } from './errors/shared/errors.js';
export { type ToolShared, type ToolCall } from './tools/base.js';
export {
    TOOL_NAMES,
    REFERENCE_TOOL_NAMES,
    OPTIONAL_TOOL_NAMES,
    type ToolName,
    type FileToolClass,
} from './tools/catalog.js';
export type { ToolDeclaration, ToolBehaviour } from './tools/declaration.js';
export { openAiStrictSchema, geminiSchema } from './hosts/adapters/schemas.js';
