import { ToolPackage } from '../tools/llm-chat.js';
import { FileConfiguration, SearchConfiguration } from '../config/shared/configuration.js';
import { Engine, type EngineOptions } from '../engine/engine.js';
import { envBoolean } from '../config/shared/env.js';
import { FilePool } from '../fs/file-pool.js';
import { SearchIndex, type SearchIndexOptions } from '../search-index/search-index.js';
import type { SearchingEngine } from '../search/backend.js';
import type { ToolShared } from '../tools/base.js';
import { loadToolClasses, NAVIGATION_TOOL_NAMES, OPTIONAL_TOOL_NAMES, TOOL_NAMES, type FileToolClass } from '../tools/catalog.js';
import { TUTORIAL } from './tutorial.js';
import type { Workspace } from '../access/workspace.js';

// Every tool's class, in the package's order (src/tools/catalog.ts).
const TOOL_CLASSES: readonly FileToolClass[] = await loadToolClasses(TOOL_NAMES);
const OPTIONAL: ReadonlySet<string> = new Set(OPTIONAL_TOOL_NAMES);
const NAVIGATION: ReadonlySet<string> = new Set(NAVIGATION_TOOL_NAMES);


/** Package options beyond the reference's; with none set the package is the reference's 13 tools. */
export interface FileToolPackageOptions {
    /** Add the `edit_file` tool: several replacements of one file, all or nothing, with a dry run. Default false. */
    editFile?: boolean;
    /** Edit tools append a compact diff of the change to their confirmation. Default `LLM_CHAT_FS_EDIT_DIFF`, else false. */
    showDiff?: boolean;
    /**
     * The search index (docs/search-index.md): `true` or options to turn it on, `false` off;
     * default `LLM_CHAT_FS_INDEX` (off when unset). Indexes are built in the background on the
     * first search of a tree, stored under `LLM_CHAT_FS_INDEX_DIR`.
     */
    index?: boolean | SearchIndexOptions;
    /**
     * Options of the package's worker-pool engine (see `Engine`'s constructor): `maxThreads`,
     * `maxPoolThreads`, and `workerNice`, the nice value its threads take on Linux (default 5).
     * Throws as that constructor does for an invalid value. Or an `Engine` that several packages
     * share: its pool then serves this package too, and close() leaves it running (its owner
     * closes it). A package with a search index needs an engine of its own (the index is a backend
     * of the engine made with it): an `Engine` with the index on throws a TypeError.
     */
    engine?: EngineOptions | Engine;
    /**
     * Code navigation (docs/tools.md): `file_outline`, `find_symbol`, `find_references` and
     * `read_symbol`, definitions parsed with tree-sitter. Default `LLM_CHAT_FS_NAVIGATION` (off when unset).
     */
    navigation?: boolean;
    /**
     * Jupyter notebooks (docs/tools.md, "Notebooks"): `read_file` shows a `.ipynb` as numbered
     * cells without being asked, and the `edit_notebook` tool edits a cell by its number. Default
     * `LLM_CHAT_FS_NOTEBOOKS` (off when unset: `read_file` then shows cells only with `cells`).
     */
    notebooks?: boolean;
}

/**
 * Everything `new FileToolPackage(workspace, settings)` takes: the reference's positional
 * arguments by name, and the package options. Every field is optional.
 */
export interface FileToolPackageSettings extends FileToolPackageOptions {
    /** Search limits; default from `LLM_CHAT_FS_*` variables. */
    searchConfig?: SearchConfiguration;
    /** Read/write limits; default from `LLM_CHAT_FS_*` variables. */
    fileConfig?: FileConfiguration;
    /** Read-before-write tracker; default built from `fileConfig.requireReadBeforeWrite`. */
    filePool?: FilePool;
}

const SETTINGS: ReadonlySet<string> = new Set<keyof FileToolPackageSettings>(['searchConfig', 'fileConfig', 'filePool', 'editFile', 'showDiff', 'index', 'engine', 'navigation', 'notebooks']);

/**
 * The settings of either constructor form. The reference's form has a SearchConfiguration (or
 * nothing) second; an object of another shape there is the settings object.
 */
function settingsOf(args: readonly unknown[]): FileToolPackageSettings {
    const [second, fileConfig, filePool, options] = args as [unknown, FileConfiguration?, FilePool?, FileToolPackageOptions?];
    const positional = second === undefined || second === null || second instanceof SearchConfiguration || (typeof second === 'object' && 'maxSearchResults' in second);
    if (positional) return { ...options, searchConfig: (second ?? undefined) as SearchConfiguration | undefined, fileConfig, filePool };
    if (typeof second !== 'object' || args.slice(1).some((a) => a !== undefined)) {
        throw new TypeError('FileToolPackage takes (workspace, settings) or (workspace, searchConfig?, fileConfig?, filePool?, options?).');
    }
    for (const key of Object.keys(second)) {
        if (!SETTINGS.has(key)) throw new TypeError(`Unknown FileToolPackage setting: ${key}. Settings: ${[...SETTINGS].join(', ')}.`);
    }
    return second as FileToolPackageSettings;
}

/**
 * The 13 file tools as one llm-chat `ToolPackage`, sharing one workspace, configuration,
 * FilePool and worker pool (started on first search or bulk read, closed by {@link close}).
 *
 * Built as `new FileToolPackage(workspace, settings?)` ({@link FileToolPackageSettings}), or with
 * the reference's positional arguments:
 * @param workspace - access control and current directory.
 * @param searchConfig - search limits; default from `LLM_CHAT_FS_*` variables.
 * @param fileConfig - read/write limits; default from `LLM_CHAT_FS_*` variables.
 * @param filePool - read-before-write tracker; default built from `fileConfig.requireReadBeforeWrite`.
 * @param options - tools and output beyond the reference's (see {@link FileToolPackageOptions}).
 * @throws TypeError for a setting it does not know; Error for an invalid engine option.
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
    /** Whether close() closes the engine: made for this package, not passed in. */
    readonly #ownsEngine: boolean;

    constructor(workspace: Workspace, settings?: FileToolPackageSettings);
    constructor(workspace: Workspace, searchConfig?: SearchConfiguration, fileConfig?: FileConfiguration, filePool?: FilePool, options?: FileToolPackageOptions);
    constructor(workspace: Workspace, ...args: unknown[]) {
        super();
        const { searchConfig, fileConfig, filePool, ...options } = settingsOf(args);
        for (const key of ['editFile', 'showDiff', 'navigation', 'notebooks'] as const) {
            const v = options[key];
            if (v !== undefined && typeof v !== 'boolean') throw new TypeError(`FileToolPackage option ${key} must be true or false, not ${JSON.stringify(v)}.`);
        }
        this.workspace = workspace;
        this.searchConfig = searchConfig ?? new SearchConfiguration();
        this.fileConfig = fileConfig ?? new FileConfiguration();
        this.filePool = filePool ?? new FilePool(this.fileConfig);
        const index = options.index ?? envBoolean('LLM_CHAT_FS_INDEX', false);
        const maxFileSize = this.fileConfig.maxFileSize;
        let searchIndex: SearchIndex | undefined;
        // The index is the engine's search backend (its builds run on the engine's number of threads).
        const backends = index === false ? [] : [(e: SearchingEngine) => (searchIndex = new SearchIndex(e.maxThreads, maxFileSize, index === true ? {} : index, e))];
        this.#ownsEngine = !(options.engine instanceof Engine);
        if (options.engine instanceof Engine) {
            if (index !== false) throw new TypeError('A FileToolPackage with a search index needs an engine of its own: pass engine options, not an Engine.');
            this.engine = options.engine;
        } else {
            this.engine = new Engine({ ...options.engine, backends: [...backends, ...(options.engine?.backends ?? [])] });
        }
        this.searchIndex = searchIndex;
        const shared: ToolShared = {
            searchConfig: this.searchConfig,
            fileConfig: this.fileConfig,
            filePool: this.filePool,
            engine: this.engine,
            ...(options.showDiff !== undefined && { showDiff: options.showDiff }),
            notebooks: options.notebooks ?? envBoolean('LLM_CHAT_FS_NOTEBOOKS', false),
        };
        // The reference's tools, and each optional tool its option turns on.
        const navigation = options.navigation ?? envBoolean('LLM_CHAT_FS_NAVIGATION', false);
        const enabled = (name: string): boolean => !OPTIONAL.has(name) || (name === 'edit_file' && options.editFile === true) || (name === 'edit_notebook' && shared.notebooks === true) || (NAVIGATION.has(name) && navigation);
        for (const Tool of TOOL_CLASSES) if (enabled(Tool.declaration.name)) this.add(new Tool(workspace, shared));
    }

    /** Path-resolution guidance, common mistakes and exploration tips for the model. */
    override tutorial(): string | null {
        return TUTORIAL;
    }

    /** Package name, tool list and tutorial, formatted for a system prompt. */
    composeTutorial(): string {
        return `## FileToolPackage\nTools: ${this.tools().map((t) => t.name).join(', ')}\n\n${TUTORIAL}`;
    }

    /** Stops the worker pool (unless the engine was passed in). Tools still work afterwards: the pool restarts on next use. */
    async close(): Promise<void> {
        await this.searchIndex?.close();
        if (this.#ownsEngine) await this.engine.close();
    }
}
