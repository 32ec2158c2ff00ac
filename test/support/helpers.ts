/**
 * Shared fixtures for the tool tests: real temporary directories (under the realpath'd tmpdir,
 * removed after each test), a package built on them, and a `call` that returns plain results.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { Tool, ToolResult } from '@johannes.latzel/llm-chat';
import {
    AccessType,
    FileConfiguration,
    FilePool,
    FileToolPackage,
    SearchConfiguration,
    Workspace,
    type Access,
    type FileToolPackageOptions,
} from '../../src/index.js';
import { Engine } from '../../src/engine/engine.js';
import { envBoolean } from '../../src/config/shared/env.js';
import type { ImageLimits } from '../../src/config/shared/configuration.js';
import { afterEachFile, afterEachTest } from './cleanup.js';

const dirs: string[] = [];
const packages: FileToolPackage[] = [];

afterEachTest(async () => {
    await Promise.all(packages.splice(0).map((p) => p.close().catch(() => undefined)));
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/**
 * Engine options of the tests' packages that need no pool of their own: the fork's shared pool
 * (Engine `sharedPool`), whose threads every such engine of the fork reuses. A thread start costs
 * 50-90 ms of CPU, and the index tests make an engine per tree (the index is its backend).
 */
export const SHARED_POOL = { sharedPool: true } as const;

/**
 * The engine the packages of one test file share (see {@link makePackage}), on the fork's shared
 * pool: its threads outlive the file for the next one.
 */
let fileEngine: Engine | undefined;
afterEachFile(async () => {
    await fileEngine?.close();
    fileEngine = undefined;
});

/**
 * Polls `done` every `ms` until it holds. No bound of its own: a wait that never ends is ended by
 * the test's timeout, so a slow, loaded machine only waits longer instead of failing.
 */
export async function until(done: () => boolean | Promise<boolean>, ms = 50): Promise<void> {
    while (!(await done())) await new Promise((r) => setTimeout(r, ms));
}

/** A fresh real directory, removed after the test. */
export function tempDir(prefix = 'lcf-'): string {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), prefix));
    dirs.push(dir);
    return dir;
}

/** Writes `files` (relative path -> content) under `root`, creating parents. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
    for (const [rel, content] of Object.entries(files)) {
        const p = path.join(root, rel);
        fs.mkdirSync(path.dirname(p), { recursive: true });
        fs.writeFileSync(p, content);
    }
}

export const readText = (p: string): string => fs.readFileSync(p, 'utf8');

export interface PackageOptions {
    /** Default: `[{ type: Write, path: root }]`. */
    accesses?: Access[];
    workspacePath?: string;
    resolveSymlinks?: boolean;
    maxCharsPerFile?: number;
    maxFileSize?: number;
    requireReadBeforeWrite?: boolean;
    /** Image limits (default: the configuration's). */
    images?: Partial<ImageLimits>;
    /** The output budget of one call (FileConfiguration's maxCharsPerCall); default from the environment, else 100000. */
    maxCharsPerCall?: number;
    search?: SearchConfiguration;
    /**
     * Package options beyond the reference's (edit_file, diffs). With neither `engine` nor `index`
     * (and no index from `LLM_CHAT_FS_INDEX`) the package runs on the file's shared engine.
     */
    packageOptions?: FileToolPackageOptions;
}

export interface Fixture {
    ws: Workspace;
    pkg: FileToolPackage;
    pool: FilePool;
    /** The package's tool named `name`. */
    tool(name: string): Tool;
    /** Runs tool `name` with `args` and returns its results. */
    run(name: string, args: unknown): Promise<ToolResult[]>;
}

/**
 * Workspace + FileToolPackage + FilePool on `root` (write access by default), closed after the
 * test; the package runs on the test file's shared engine unless its options ask for an engine
 * or an index of its own.
 */
export function makePackage(root: string, opts: PackageOptions = {}): Fixture {
    const ws = new Workspace({
        accesses: opts.accesses ?? [{ type: AccessType.Write, path: root }],
        skipDirs: ['.git', 'node_modules'],
        resolveSymlinks: opts.resolveSymlinks ?? true,
        workspacePath: opts.workspacePath ?? root,
    });
    const fileConfig = new FileConfiguration(opts.maxCharsPerFile ?? 10_000, opts.maxFileSize ?? 10 * 1024 * 1024, opts.requireReadBeforeWrite ?? true, {
        ...(opts.maxCharsPerCall !== undefined && { maxCharsPerCall: opts.maxCharsPerCall }),
        ...(opts.images !== undefined && { images: opts.images }),
    });
    const pool = new FilePool(fileConfig);
    const own = opts.packageOptions?.engine !== undefined || opts.packageOptions?.index !== undefined || envBoolean('LLM_CHAT_FS_INDEX', false);
    const packageOptions = own ? opts.packageOptions : { ...opts.packageOptions, engine: (fileEngine ??= new Engine(SHARED_POOL)) };
    const pkg = new FileToolPackage(ws, opts.search ?? new SearchConfiguration(50, 200, 5000, 120_000), fileConfig, pool, packageOptions);
    packages.push(pkg);
    const tool = (name: string): Tool => {
        const t = pkg.tools().find((x) => x.name === name);
        if (!t) throw new Error(`no tool ${name}`);
        return t;
    };
    return { ws, pkg, pool, tool, run: (name, args) => call(tool(name), args) };
}

/** Executes `tool` with `args` (anything, to test bad input) and returns the results. */
export async function call(tool: Tool, args: unknown): Promise<ToolResult[]> {
    return tool.execute(args as Record<string, unknown>);
}

/** Runs one call that must produce exactly one result, and returns it. */
export async function one(tool: Tool, args: unknown): Promise<ToolResult> {
    const results = await call(tool, args);
    if (results.length !== 1) throw new Error(`expected one result, got ${results.length}: ${JSON.stringify(results)}`);
    return results[0]!;
}

/** A package on a fresh dir holding `files`, all of them already read with read_file (so edits may proceed). */
export async function setupRead(files: Record<string, string | Buffer>, opts: PackageOptions = {}) {
    const root = tempDir();
    writeTree(root, files);
    const fx = makePackage(root, opts);
    for (const name of Object.keys(files)) await one(fx.tool('read_file'), { paths: [name] });
    return { root, ...fx, file: (rel: string) => path.join(root, rel) };
}

/** Every entry under `root` with its type, size, mode, mtime and content hash: compare before/after. */
export function snapshot(root: string): Record<string, string> {
    const out: Record<string, string> = {};
    const walk = (dir: string): void => {
        for (const name of fs.readdirSync(dir).sort()) {
            const p = path.join(dir, name);
            const st = fs.lstatSync(p);
            const rel = path.relative(root, p);
            if (st.isDirectory()) {
                out[rel + '/'] = `dir ${st.mode}`;
                walk(p);
            } else if (st.isSymbolicLink()) {
                out[rel] = `link ${fs.readlinkSync(p)}`;
            } else if (st.isFile()) {
                out[rel] = `file ${st.mode} ${st.mtimeMs} ${fs.readFileSync(p).toString('base64')}`;
            } else {
                out[rel] = `other ${st.mode}`;
            }
        }
    };
    walk(root);
    return out;
}

/** Runs search_entries, which must produce exactly one result, and returns it. */
export async function search(fx: Fixture, args: unknown): Promise<{ status: string; result: string }> {
    const results = await fx.run('search_entries', args);
    expect(results).toHaveLength(1);
    return results[0]!;
}

/** The small project the search tests share (a readme, docs, src with TODOs and a subdirectory), plus `extra` files. */
export function searchProject(prefix: string, extra: Record<string, string> = {}): string {
    const dir = tempDir(prefix);
    writeTree(dir, {
        'readme.txt': 'Read me\n',
        'docs/guide.md': '# Guide\nTODO: write more\n',
        'src/main.ts': 'import x from "../utils";\n\n   // TODO: implement this\nexport {};\n',
        'src/utils.ts': 'export const a = 1;\n// todo: add error handling\n',
        'src/lib/deep.ts': 'nothing here\n',
        ...extra,
    });
    return dir;
}

/** The tree the time-filter tests share: `old.txt` modified at 2020-06-01T12:00:00Z, `new.txt` now. */
export function datedTree(): string {
    const dir = tempDir('lcf-dates-');
    writeTree(dir, { 'old.txt': 'old\n', 'new.txt': 'new\n' });
    const noon = new Date('2020-06-01T12:00:00Z');
    fs.utimesSync(path.join(dir, 'old.txt'), noon, noon);
    return dir;
}
