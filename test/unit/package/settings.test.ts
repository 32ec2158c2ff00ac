/**
 * `new FileToolPackage(workspace, settings)` beside the reference's positional constructor, and
 * the public entries: the main entry holds what a user needs, the internals their own subpath.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as api from '../../../src/index.js';
import { AccessType, FileConfiguration, FilePool, FileToolPackage, SearchConfiguration, Workspace } from '../../../src/index.js';
import * as internals from '../../../src/internals.js';
import { tempDir } from '../../support/helpers.js';

const packages: FileToolPackage[] = [];
afterEach(() => Promise.all(packages.splice(0).map((p) => p.close())));

function build(make: (ws: Workspace) => FileToolPackage): FileToolPackage {
    const pkg = make(new Workspace({ accesses: [{ type: AccessType.Write, path: tempDir('lcf-settings-') }] }));
    packages.push(pkg);
    return pkg;
}

describe('FileToolPackage constructor', () => {
    it('takes one settings object: the configurations, the pool and the package options by name', () => {
        const searchConfig = new SearchConfiguration(7);
        const fileConfig = new FileConfiguration(123, undefined, false);
        const filePool = new FilePool(fileConfig);
        const pkg = build((ws) => new FileToolPackage(ws, { searchConfig, fileConfig, filePool, editFile: true, index: false, engine: { maxThreads: 1 } }));
        expect(pkg.searchConfig).toBe(searchConfig);
        expect(pkg.fileConfig).toBe(fileConfig);
        expect(pkg.filePool).toBe(filePool);
        expect(pkg.tools().map((t) => t.name)).toContain('edit_file');
        expect(pkg.engine.maxThreads).toBe(1);
        expect(pkg.searchIndex).toBeUndefined();
    });

    it('gives the same package as the positional form for the same settings', () => {
        const searchConfig = new SearchConfiguration(7);
        const fileConfig = new FileConfiguration(123);
        const named = build((ws) => new FileToolPackage(ws, { searchConfig, fileConfig, showDiff: true }));
        const positional = build((ws) => new FileToolPackage(ws, searchConfig, fileConfig, undefined, { showDiff: true }));
        for (const pkg of [named, positional]) {
            expect(pkg.searchConfig).toBe(searchConfig);
            expect(pkg.fileConfig).toBe(fileConfig);
            expect(pkg.filePool.enabled).toBe(fileConfig.requireReadBeforeWrite);
        }
        expect(named.tools().map((t) => t.name)).toEqual(positional.tools().map((t) => t.name));
        // Defaults alike: no settings, an empty settings object, no positional arguments.
        const defaults = [build((ws) => new FileToolPackage(ws)), build((ws) => new FileToolPackage(ws, {})), build((ws) => new FileToolPackage(ws, undefined))];
        for (const pkg of defaults) expect([pkg.searchConfig, pkg.fileConfig, pkg.tools().length]).toEqual([new SearchConfiguration(), new FileConfiguration(), 13]);
    });

    it("keeps the reference's positional form, also with a search configuration of the same shape", () => {
        const like = { maxSearchResults: 3, maxDisplayEntries: 4, maxTotalEntries: 5, timeoutMs: 6 } as SearchConfiguration;
        const pkg = build((ws) => new FileToolPackage(ws, like));
        expect(pkg.searchConfig).toBe(like);
    });

    it('runs on an Engine passed in, which other packages share and its close leaves running; an index needs an engine of its own', async () => {
        const engine = new internals.Engine({ maxThreads: 1 });
        try {
            const root = tempDir('lcf-settings-');
            fs.writeFileSync(path.join(root, 'a.txt'), 'needle\n');
            const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: root }], workspacePath: root });
            const [first, second] = [build(() => new FileToolPackage(ws, { engine })), build(() => new FileToolPackage(ws, undefined, undefined, undefined, { engine }))];
            expect([first.engine, second.engine]).toEqual([engine, engine]);
            const search = async (pkg: FileToolPackage): Promise<string> => (await pkg.tools().find((t) => t.name === 'search_entries')!.execute({ content_pattern: 'needle' }))[0]!.result;
            expect(await search(first)).toBe('a.txt:1: needle');
            await first.close();
            expect(engine.started).toBe(true);
            expect(await search(second)).toBe('a.txt:1: needle');
            expect(() => new FileToolPackage(ws, { engine, index: true })).toThrow(/search index needs an engine of its own/);
            expect(() => new FileToolPackage(ws, { engine, index: { dir: tempDir('lcf-settings-index-') } })).toThrow(TypeError);
        } finally {
            await engine.close();
        }
    });

    it('rejects a setting it does not know, naming it, and settings followed by positional arguments', () => {
        const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: tempDir('lcf-settings-') }] });
        expect(() => new FileToolPackage(ws, { indx: true } as never)).toThrow(/Unknown FileToolPackage setting: indx\. Settings: searchConfig, fileConfig, filePool, editFile, showDiff, index, engine/);
        expect(() => new FileToolPackage(ws, {} as never, new FileConfiguration())).toThrow(TypeError);
        expect(() => new FileToolPackage(ws, 5 as never)).toThrow(TypeError);
    });

    it('rejects an on/off option that is not true or false, in either constructor form', () => {
        const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: tempDir('lcf-settings-') }] });
        expect(() => new FileToolPackage(ws, { navigation: 'yes' } as never)).toThrow(/FileToolPackage option navigation must be true or false, not "yes"\./);
        expect(() => new FileToolPackage(ws, { notebooks: 1 } as never)).toThrow(/option notebooks must be true or false, not 1\./);
        expect(() => new FileToolPackage(ws, undefined, undefined, undefined, { editFile: 'true' } as never)).toThrow(/option editFile must be true or false/);
        expect(() => new FileToolPackage(ws, { showDiff: null } as never)).toThrow(/option showDiff must be true or false, not null\./);
        // Booleans, and options left out, are taken as before.
        expect(new FileToolPackage(ws, { navigation: false, notebooks: true, editFile: true, showDiff: false }).tools().map((t) => t.name)).toContain('edit_file');
    });
});

describe('public entries', () => {
    it('keep engine and index internals out of the main entry and under ./internals', () => {
        for (const name of ['Engine', 'SearchIndex', 'TreeIndex', 'defaultIndexDir', 'DEFAULT_WORKER_NICE', 'WorkspaceView', 'EXIT_CODES', 'DEFAULT_SKIP_DIRS']) {
            expect(api, name).not.toHaveProperty(name);
            expect(internals, name).toHaveProperty(name);
        }
        for (const name of ['Workspace', 'AccessType', 'DirectoryConfiguration', 'SearchConfiguration', 'FileConfiguration', 'FileToolPackage', 'ToolError', 'ToolSuite', 'createDispatcher', 'runTool']) {
            expect(api, name).toHaveProperty(name);
        }
        const pkg = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { exports: Record<string, { import?: string }> };
        expect(pkg.exports['./internals']?.import).toBe('./dist/src/internals.js');
    });
});
