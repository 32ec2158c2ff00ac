/**
 * llm-chat-file: filesystem tools for LLM agents, with a workspace and read/write access control.
 * See README.md for the user's manual and ARCHITECTURE.md for the code map.
 */
export { AccessType, DirectoryConfiguration, FileConfiguration, SearchConfiguration, DEFAULT_SKIP_DIRS, type Access } from './common/config/configuration.js';
export { Workspace, WorkspaceView, type WorkspaceOptions, type CheckedPath } from './workspace.js';
export { FilePool } from './file-pool.js';
export { ToolError, EXIT_CODES, type ToolErrorKind } from './common/errors.js';
export { FileTool, type FileToolResult, type ToolShared, type CallOptions, type CallProgress, type ToolCall } from './tools/base.js';
// The tools' declarations: each class has a static `declaration` (name, title, description, schema, behaviour).
export {
    TOOL_NAMES,
    REFERENCE_TOOL_NAMES,
    OPTIONAL_TOOL_NAMES,
    type ToolName,
    type ToolDeclaration,
    type ToolBehaviour,
    type FileToolClass,
} from './tools/catalog.js';
export { ReadFileTool } from './tools/read-file.js';
export { WriteFileTool } from './tools/write-file.js';
export { ReplaceFileLinesTool } from './tools/replace-file-lines.js';
export { InsertFileContentTool } from './tools/insert-file-content.js';
export { ReplaceFileContentTool } from './tools/replace-file-content.js';
export { SearchEntriesTool } from './tools/search-entries.js';
export { ListDirectoryTool } from './tools/list-directory.js';
export { CreateFolderTool } from './tools/create-folder.js';
export { DeleteFileTool } from './tools/delete-file.js';
export { MoveFileTool } from './tools/move-file.js';
export { FileAccessInfoTool } from './tools/file-access-info.js';
export { EntryInfoTool } from './tools/entry-info.js';
export { SwitchWorkspaceTool } from './tools/switch-workspace.js';
export { EditFileTool } from './tools/edit-file.js';
export { FileToolPackage, type FileToolPackageOptions } from './package.js';
export { SearchIndex, defaultIndexDir, type SearchIndexOptions } from './search-index/search-index.js';
export { TreeIndex, type IndexStatus, type IndexState } from './search-index/tree-index.js';
export { Engine, DEFAULT_WORKER_NICE, type EngineOptions } from './engine/engine.js';
export type { SearchRequest, SearchHit, SearchOutcome, SearchStop, EntryType } from './common/search/types.js';
export { ToolSuite, ToolEvent, type ToolSuiteLike, type ToolEventMap, type ToolHookBuilder } from './suite.js';
export { MISSING_PEER_MESSAGE } from './llm-chat.js';
// Hosts without a framework. The MCP server (`/mcp`) and the AI SDK adapter (`/ai-sdk`) are
// subpath exports, so that this entry loads neither the MCP SDK nor the optional `ai` package.
export {
    openAiTools,
    openAiResponsesTools,
    openAiToolMessage,
    openAiFunctionCallOutput,
    type OpenAiFunctionTool,
    type OpenAiResponsesTool,
    type OpenAiToolOptions,
    type OpenAiToolMessage,
    type OpenAiFunctionCallOutput,
    type OpenAiOutputContent,
} from './adapters/openai.js';
export { createDispatcher, type Dispatcher, type DispatchResult } from './adapters/dispatch.js';
export { runTool, resultParts, type CallResult } from './adapters/run.js';
export { geminiTools, geminiFunctionResponse, type GeminiFunctionDeclaration, type GeminiFunctionResponsePart } from './adapters/gemini.js';
export { anthropicTools, anthropicToolResult, type AnthropicTool, type AnthropicToolResultBlock, type AnthropicToolResultContent } from './adapters/anthropic.js';
// Tool results as content parts (text, images, embedded resources).
export type { ContentPart, TextPart, ImagePart, ResourcePart } from './content/parts.js';
export { openAiStrictSchema, geminiSchema } from './adapters/schemas.js';
