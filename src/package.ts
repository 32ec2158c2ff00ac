import { ToolPackage, type Tool } from './llm-chat.js';
import { FileConfiguration, SearchConfiguration } from './config/configuration.js';
import { Engine } from './engine/engine.js';
import { envBoolean } from './config/env.js';
import { FilePool } from './file-pool.js';
import { SearchIndex, type SearchIndexOptions } from './search-index/search-index.js';
import type { ToolShared } from './tools/base.js';
import { CreateFolderTool } from './tools/create-folder.js';
import { DeleteFileTool } from './tools/delete-file.js';
import { EditFileTool } from './tools/edit-file.js';
import { EntryInfoTool } from './tools/entry-info.js';
import { FileAccessInfoTool } from './tools/file-access-info.js';
import { InsertFileContentTool } from './tools/insert-file-content.js';
import { ListDirectoryTool } from './tools/list-directory.js';
import { MoveFileTool } from './tools/move-file.js';
import { ReadFileTool } from './tools/read-file.js';
import { ReplaceFileContentTool } from './tools/replace-file-content.js';
import { ReplaceFileLinesTool } from './tools/replace-file-lines.js';
import { SearchEntriesTool } from './tools/search-entries.js';
import { SwitchWorkspaceTool } from './tools/switch-workspace.js';
import { WriteFileTool } from './tools/write-file.js';
import type { Workspace } from './workspace.js';

const TUTORIAL = `Paths: relative paths resolve against the current workspace; "." is the workspace root.
An absolute path such as "/src" means the filesystem root, not the workspace: use "./src" or "src".
Call file_access_info to see which directories are readable or writable and which is the workspace.
Explore with list_directory (recursive: true for a tree) and search_entries (name_pattern, content_pattern: case-insensitive JavaScript regexes, or plain text with literal: true; timestamps as ISO 8601). A cut listing or search says which offset gets the next page.
read_file reads a line range (start_line, end_line) or the last_lines of a file of any size; a line longer than max_chars is continued with start_char, as the truncation note says.
Before changing an existing file, read it with read_file: write and edit tools refuse files not read, or changed since the last read.
For partial edits use replace_file_lines (by line numbers), insert_file_content (before a line, or append) or replace_file_content (exact text); write_file replaces a whole file or creates a new one.
Read several files at once by passing several paths to read_file; each gets its own result.`;

/** Package options beyond the reference's; with none set the package is the reference's 13 tools. */
export interface FileToolPackageOptions {
    /** Add the `edit_file` tool: several replacements of one file, all or nothing, with a dry run. Default false. */
    editFile?: boolean;
    /** Edit tools append a compact diff of the change to their confirmation. Default `LLM_CHAT_FS_EDIT_DIFF`, else false. */
    showDiff?: boolean;
    /**
     * The search index (README "Search index"): `true` or options to turn it on, `false` off;
     * default `LLM_CHAT_FS_INDEX` (off when unset). Indexes are built in the background on the
     * first search of a tree, stored under `LLM_CHAT_FS_INDEX_DIR`.
     */
    index?: boolean | SearchIndexOptions;
}

/**
 * The 13 file tools as one llm-chat `ToolPackage`, sharing one workspace, configuration,
 * FilePool and worker pool (started on first search or bulk read, closed by {@link close}).
 *
 * @param workspace - access control and current directory.
 * @param searchConfig - search limits; default from `LLM_CHAT_FS_*` variables.
 * @param fileConfig - read/write limits; default from `LLM_CHAT_FS_*` variables.
 * @param filePool - read-before-write tracker; default built from `fileConfig.requireReadBeforeWrite`.
 * @param options - tools and output beyond the reference's (see {@link FileToolPackageOptions}).
 */
export class FileToolPackage extends ToolPackage {
    readonly workspace: Workspace;
    readonly searchConfig: SearchConfiguration;
    readonly fileConfig: FileConfiguration;
    readonly filePool: FilePool;
    /** The worker-pool engine shared by this package's tools (search, bulk reads, streaming). */
    readonly engine: Engine;

    /** The search index, when on. */
    readonly searchIndex: SearchIndex | undefined;

    constructor(workspace: Workspace, searchConfig?: SearchConfiguration, fileConfig?: FileConfiguration, filePool?: FilePool, options: FileToolPackageOptions = {}) {
        super();
        this.workspace = workspace;
        this.searchConfig = searchConfig ?? new SearchConfiguration();
        this.fileConfig = fileConfig ?? new FileConfiguration();
        this.filePool = filePool ?? new FilePool(this.fileConfig);
        this.engine = new Engine();
        const index = options.index ?? envBoolean('LLM_CHAT_FS_INDEX', false);
        if (index !== false) {
            const engine = this.engine;
            this.searchIndex = new SearchIndex(engine.maxThreads, this.fileConfig.maxFileSize, index === true ? {} : index);
            this.engine.searchIndex = this.searchIndex;
        }
        const shared: ToolShared = {
            searchConfig: this.searchConfig,
            fileConfig: this.fileConfig,
            filePool: this.filePool,
            engine: this.engine,
            ...(options.showDiff !== undefined && { showDiff: options.showDiff }),
        };
        const tools: Tool[] = [
            new SearchEntriesTool(workspace, shared),
            new ListDirectoryTool(workspace, shared),
            new ReadFileTool(workspace, shared),
            new WriteFileTool(workspace, shared),
            new ReplaceFileLinesTool(workspace, shared),
            new InsertFileContentTool(workspace, shared),
            new ReplaceFileContentTool(workspace, shared),
            new EntryInfoTool(workspace, shared),
            new DeleteFileTool(workspace, shared),
            new CreateFolderTool(workspace, shared),
            new MoveFileTool(workspace, shared),
            new FileAccessInfoTool(workspace, shared),
            new SwitchWorkspaceTool(workspace, shared),
        ];
        if (options.editFile === true) tools.splice(7, 0, new EditFileTool(workspace, shared));
        for (const tool of tools) this.add(tool);
    }

    /** Path-resolution guidance, common mistakes and exploration tips for the model. */
    override tutorial(): string | null {
        return TUTORIAL;
    }

    /** Package name, tool list and tutorial, formatted for a system prompt. */
    composeTutorial(): string {
        return `## FileToolPackage\nTools: ${this.tools().map((t) => t.name).join(', ')}\n\n${TUTORIAL}`;
    }

    /** Stops the worker pool. Tools still work afterwards: the pool restarts on next use. */
    async close(): Promise<void> {
        await this.searchIndex?.close();
        await this.engine.close();
    }
}
