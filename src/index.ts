/**
 * llm-chat-file: filesystem tools for LLM agents, with a workspace and read/write access control.
 * See README.md for the user's manual and ARCHITECTURE.md and docs/code-map.md for where the code is.
 *
 * This entry holds what a user needs; the engine, the search index and other internals are
 * under `@johannes.latzel/llm-chat-file/internals` (src/internals.ts), which may change in any
 * release.
 */
export { AccessType, DirectoryConfiguration, FileConfiguration, SearchConfiguration, type Access } from './config/shared/configuration.js';
export { Workspace, type WorkspaceOptions } from './access/workspace.js';
export { FilePool } from './fs/file-pool.js';
export { ToolError, type ToolErrorKind } from './errors/shared/errors.js';
export { FileTool, type FileToolResult, type CallOptions, type CallProgress } from './tools/base.js';
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
export { EditNotebookTool } from './tools/edit-notebook.js';
export { FileOutlineTool } from './tools/file-outline.js';
export { FindSymbolTool } from './tools/find-symbol.js';
export { FindReferencesTool } from './tools/find-references.js';
export { ReadSymbolTool } from './tools/read-symbol.js';
export { RepoMapTool } from './tools/repo-map.js';
export { FileToolPackage, type FileToolPackageOptions, type FileToolPackageSettings } from './package/package.js';
// The types of the package options `engine` and `index`.
export type { EngineOptions } from './engine/engine.js';
export type { SearchIndexOptions } from './search-index/search-index.js';
export { ToolSuite, ToolEvent, type ToolSuiteLike, type ToolEventMap, type ToolHookBuilder } from './package/suite.js';
export { MISSING_PEER_MESSAGE } from './tools/llm-chat.js';
// Tool results as content parts (text, images, embedded resources).
export type { ContentPart, TextPart, ImagePart, ResourcePart } from './content/parts.js';
// Hosts without a framework. The MCP server (`/mcp`) and the AI SDK adapter (`/ai-sdk`) are
// subpath exports, so that this entry loads neither the MCP SDK nor the optional `ai` package.
export { runTool, resultParts, type CallResult } from './hosts/adapters/run.js';
export { createDispatcher, type Dispatcher, type DispatchResult } from './hosts/adapters/dispatch.js';
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
} from './hosts/adapters/openai.js';
export { geminiTools, geminiFunctionResponse, type GeminiFunctionDeclaration, type GeminiFunctionResponsePart } from './hosts/adapters/gemini.js';
export { anthropicTools, anthropicToolResult, type AnthropicTool, type AnthropicToolResultBlock } from './hosts/adapters/anthropic.js';
