/**
 * The tools' catalog: where each tool lives. Every tool declares itself once, in its own file
 * (`src/tools/<tool-name>.ts`), with `declareTool` (declaration.ts): name, title, description,
 * argument schema and behaviour. The package, the exports, the MCP server, the adapters, the CLI
 * and the tests derive their lists from {@link TOOL_NAMES} and from those declarations.
 *
 * Start-up: this module loads nothing but types. {@link loadToolClass} imports one tool's file
 * (its declaration, schema and implementation) without the other tools, so a one-shot CLI call
 * loads only the tool it runs.
 */
import type { z } from 'zod';
import type { ToolShared, FileTool } from './base.js';
import type { Workspace } from '../access/workspace.js';
import type { ToolDeclaration } from './declaration.js';

/** A tool class: built on a workspace, its declaration a static field. */
export interface FileToolClass<N extends string = string> {
    new (workspace: Workspace, shared?: ToolShared): FileTool<z.ZodObject>;
    readonly declaration: ToolDeclaration<N>;
}

/** The reference's 13 tools, in the package's order. */
export const REFERENCE_TOOL_NAMES = [
    'search_entries',
    'list_directory',
    'read_file',
    'write_file',
    'replace_file_lines',
    'insert_file_content',
    'replace_file_content',
    'entry_info',
    'delete_file',
    'create_folder',
    'move_file',
    'file_access_info',
    'switch_workspace',
] as const;

/** Code navigation's tools, turned on together by the package option `navigation`. */
export const NAVIGATION_TOOL_NAMES = ['file_outline', 'find_symbol', 'find_references', 'read_symbol', 'repo_map'] as const;

/** Tools beyond the reference's, each turned on by a package option (`editFile`, `notebooks`, `navigation`). */
export const OPTIONAL_TOOL_NAMES = ['edit_file', 'edit_notebook', ...NAVIGATION_TOOL_NAMES] as const;

export type ReferenceToolName = (typeof REFERENCE_TOOL_NAMES)[number];
export type ToolName = ReferenceToolName | (typeof OPTIONAL_TOOL_NAMES)[number];

/** Every tool, in the package's order (`edit_file` and `edit_notebook`, when on, follow `replace_file_content`; code navigation comes last). */
export const TOOL_NAMES: readonly ToolName[] = [...REFERENCE_TOOL_NAMES.slice(0, 7), 'edit_file', 'edit_notebook', ...REFERENCE_TOOL_NAMES.slice(7), ...NAVIGATION_TOOL_NAMES];

// The compiler checks that each loader's class declares the name it is filed under.
const LOADERS: { readonly [N in ToolName]: () => Promise<FileToolClass<N>> } = {
    search_entries: async () => (await import('./search-entries.js')).SearchEntriesTool,
    list_directory: async () => (await import('./list-directory.js')).ListDirectoryTool,
    read_file: async () => (await import('./read-file.js')).ReadFileTool,
    write_file: async () => (await import('./write-file.js')).WriteFileTool,
    replace_file_lines: async () => (await import('./replace-file-lines.js')).ReplaceFileLinesTool,
    insert_file_content: async () => (await import('./insert-file-content.js')).InsertFileContentTool,
    replace_file_content: async () => (await import('./replace-file-content.js')).ReplaceFileContentTool,
    edit_file: async () => (await import('./edit-file.js')).EditFileTool,
    edit_notebook: async () => (await import('./edit-notebook.js')).EditNotebookTool,
    entry_info: async () => (await import('./entry-info.js')).EntryInfoTool,
    delete_file: async () => (await import('./delete-file.js')).DeleteFileTool,
    create_folder: async () => (await import('./create-folder.js')).CreateFolderTool,
    move_file: async () => (await import('./move-file.js')).MoveFileTool,
    file_access_info: async () => (await import('./file-access-info.js')).FileAccessInfoTool,
    switch_workspace: async () => (await import('./switch-workspace.js')).SwitchWorkspaceTool,
    file_outline: async () => (await import('./file-outline.js')).FileOutlineTool,
    find_symbol: async () => (await import('./find-symbol.js')).FindSymbolTool,
    find_references: async () => (await import('./find-references.js')).FindReferencesTool,
    read_symbol: async () => (await import('./read-symbol.js')).ReadSymbolTool,
    repo_map: async () => (await import('./repo-map.js')).RepoMapTool,
};

/** True when `name` is one of the tools' names. */
export function isToolName(name: string): name is ToolName {
    return Object.hasOwn(LOADERS, name);
}

/** The class of one tool, loading its file alone. */
export function loadToolClass<N extends ToolName>(name: N): Promise<FileToolClass<N>> {
    return LOADERS[name]() as Promise<FileToolClass<N>>;
}

/** The classes of `names`, in that order. */
export function loadToolClasses(names: readonly ToolName[] = TOOL_NAMES): Promise<FileToolClass[]> {
    return Promise.all(names.map((n) => loadToolClass(n)));
}
