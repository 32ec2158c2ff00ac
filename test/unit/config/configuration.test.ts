import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
    AccessType,
    DirectoryConfiguration,
    FileConfiguration,
    FilePool,
    FileToolPackage,
    SearchConfiguration,
    Workspace,
} from '../../../src/index.js';
import { makePackage, one, tempDir } from '../../support/helpers.js';

const VARS = [
    'LLM_CHAT_FS_MAX_SEARCH_RESULTS',
    'LLM_CHAT_FS_MAX_DISPLAY_ENTRIES',
    'LLM_CHAT_FS_MAX_TOTAL_ENTRIES',
    'LLM_CHAT_FS_SEARCH_TIMEOUT',
    'LLM_CHAT_FS_MAX_CHARS_PER_FILE',
    'LLM_CHAT_FS_MAX_FILE_SIZE',
    'LLM_CHAT_FS_REQUIRE_READ_BEFORE_WRITE',
    'LLM_CHAT_FS_MAX_CHARS_PER_CALL',
    'LLM_CHAT_FS_READ_DIRS',
    'LLM_CHAT_FS_WRITE_DIRS',
    'LLM_CHAT_FS_WORKSPACE',
    'LLM_CHAT_FS_SKIP_DIRS',
    'LLM_CHAT_FS_RESOLVE_SYMLINKS',
];

beforeEach(() => {
    for (const v of VARS) vi.stubEnv(v, undefined);
});
afterEach(() => {
    vi.unstubAllEnvs();
});

const NUMERIC: { variable: string; cls: 'search' | 'file'; key: string; def: number }[] = [
    { variable: 'LLM_CHAT_FS_MAX_SEARCH_RESULTS', cls: 'search', key: 'maxSearchResults', def: 50 },
    { variable: 'LLM_CHAT_FS_MAX_DISPLAY_ENTRIES', cls: 'search', key: 'maxDisplayEntries', def: 200 },
    { variable: 'LLM_CHAT_FS_MAX_TOTAL_ENTRIES', cls: 'search', key: 'maxTotalEntries', def: 5000 },
    { variable: 'LLM_CHAT_FS_SEARCH_TIMEOUT', cls: 'search', key: 'timeoutMs', def: 10000 },
    { variable: 'LLM_CHAT_FS_MAX_CHARS_PER_FILE', cls: 'file', key: 'maxCharsPerFile', def: 10000 },
    { variable: 'LLM_CHAT_FS_MAX_FILE_SIZE', cls: 'file', key: 'maxFileSize', def: 10485760 },
    { variable: 'LLM_CHAT_FS_MAX_CHARS_PER_CALL', cls: 'file', key: 'maxCharsPerCall', def: 100000 },
];

const build = (cls: 'search' | 'file'): Record<string, unknown> =>
    (cls === 'search' ? new SearchConfiguration() : new FileConfiguration()) as unknown as Record<string, unknown>;

describe('SearchConfiguration and FileConfiguration', () => {
    it('have the reference defaults', () => {
        const s = new SearchConfiguration();
        expect([s.maxSearchResults, s.maxDisplayEntries, s.maxTotalEntries, s.timeoutMs]).toEqual([50, 200, 5000, 10000]);
        const f = new FileConfiguration();
        expect([f.maxCharsPerFile, f.maxFileSize, f.requireReadBeforeWrite]).toEqual([10000, 10485760, true]);
    });

    it.each(NUMERIC)('reads $variable', ({ variable, cls, key }) => {
        vi.stubEnv(variable, '1234');
        expect(build(cls)[key]).toBe(1234);
    });

    it.each(NUMERIC)('rejects an invalid $variable with an error naming it', ({ variable, cls }) => {
        for (const bad of ['abc', '0', '-5', '1.5', '12px']) {
            vi.stubEnv(variable, bad);
            expect(() => build(cls), `${variable}=${bad}`).toThrow(variable);
        }
    });

    it.each(NUMERIC)('ignores an empty $variable (default applies)', ({ variable, cls, key, def }) => {
        vi.stubEnv(variable, '');
        expect(build(cls)[key]).toBe(def);
    });

    it('takes positional constructor arguments as in the reference', () => {
        expect(new SearchConfiguration(100).maxSearchResults).toBe(100);
        const s = new SearchConfiguration(1, 2, 3, 4);
        expect([s.maxSearchResults, s.maxDisplayEntries, s.maxTotalEntries, s.timeoutMs]).toEqual([1, 2, 3, 4]);
        const f = new FileConfiguration(5000, 1024 * 1024);
        expect([f.maxCharsPerFile, f.maxFileSize, f.requireReadBeforeWrite]).toEqual([5000, 1048576, true]);
        expect(new FileConfiguration(5000, 1024 * 1024, false).requireReadBeforeWrite).toBe(false);
        expect(new FileConfiguration(undefined, undefined, false).maxCharsPerFile).toBe(10000);
        expect(new FileConfiguration(undefined, undefined, undefined, { maxCharsPerCall: 5000 }).maxCharsPerCall).toBe(5000);
        expect(() => new FileConfiguration(undefined, undefined, undefined, { maxCharsPerCall: 0 })).toThrow('Invalid maxCharsPerCall');
    });

    it('lets constructor arguments beat the environment', () => {
        for (const { variable } of NUMERIC) vi.stubEnv(variable, '7');
        vi.stubEnv('LLM_CHAT_FS_REQUIRE_READ_BEFORE_WRITE', 'false');
        const s = new SearchConfiguration(11, 12, 13, 14);
        expect([s.maxSearchResults, s.maxDisplayEntries, s.maxTotalEntries, s.timeoutMs]).toEqual([11, 12, 13, 14]);
        const f = new FileConfiguration(21, 22, true);
        expect([f.maxCharsPerFile, f.maxFileSize, f.requireReadBeforeWrite]).toEqual([21, 22, true]);
        // Arguments left undefined still come from the environment.
        expect(new SearchConfiguration(11).maxDisplayEntries).toBe(7);
        expect(new FileConfiguration(21).requireReadBeforeWrite).toBe(false);
    });

    it('rejects an invalid constructor argument with an error naming the option', () => {
        expect(() => new SearchConfiguration(0)).toThrow('maxSearchResults');
        expect(() => new SearchConfiguration(undefined, -1)).toThrow('maxDisplayEntries');
        expect(() => new SearchConfiguration(undefined, undefined, 1.5)).toThrow('maxTotalEntries');
        expect(() => new SearchConfiguration(undefined, undefined, undefined, Number.NaN)).toThrow('timeoutMs');
        expect(() => new FileConfiguration(0)).toThrow('maxCharsPerFile');
        expect(() => new FileConfiguration(undefined, -10)).toThrow('maxFileSize');
        expect(() => new FileConfiguration(undefined, undefined, 'yes' as unknown as boolean)).toThrow('requireReadBeforeWrite');
    });

    it('reads LLM_CHAT_FS_REQUIRE_READ_BEFORE_WRITE as a boolean', () => {
        for (const [raw, value] of [['false', false], ['0', false], ['FALSE', false], ['true', true], ['1', true]] as const) {
            vi.stubEnv('LLM_CHAT_FS_REQUIRE_READ_BEFORE_WRITE', raw);
            expect(new FileConfiguration().requireReadBeforeWrite, raw).toBe(value);
        }
        vi.stubEnv('LLM_CHAT_FS_REQUIRE_READ_BEFORE_WRITE', 'maybe');
        expect(() => new FileConfiguration()).toThrow('LLM_CHAT_FS_REQUIRE_READ_BEFORE_WRITE');
    });

    it('LLM_CHAT_FS_REQUIRE_READ_BEFORE_WRITE=false disables the pool of a default package', async () => {
        vi.stubEnv('LLM_CHAT_FS_REQUIRE_READ_BEFORE_WRITE', 'false');
        const root = tempDir();
        const pkg = new FileToolPackage(new Workspace({ accesses: [{ type: AccessType.Write, path: root }] }));
        try {
            expect(pkg.filePool.enabled).toBe(false);
            expect(new FilePool().enabled).toBe(false);
        } finally {
            await pkg.close();
        }
    });

    it('limits from the environment reach the tools of a default package', async () => {
        vi.stubEnv('LLM_CHAT_FS_MAX_CHARS_PER_FILE', '5');
        const root = tempDir();
        const pkg = new FileToolPackage(new Workspace({ accesses: [{ type: AccessType.Write, path: root }] }));
        try {
            const write = pkg.tools().find((t) => t.name === 'write_file')!;
            expect((await one(write, { path: 'a.txt', content: '123456' })).status).toBe('error');
            expect((await one(write, { path: 'a.txt', content: '12345' })).status).toBe('success');
        } finally {
            await pkg.close();
        }
    });
});

describe('DirectoryConfiguration', () => {
    it('with no arguments uses the current directory as the writable workspace', () => {
        const c = new DirectoryConfiguration();
        expect(c.workspacePath).toBe(process.cwd());
        expect(c.accesses).toEqual([{ type: AccessType.Write, path: process.cwd() }]);
        expect(c.resolveSymlinks).toBe(true);
        expect(c.skipDirs).toEqual(expect.arrayContaining(['.git', 'node_modules']));
    });

    it('reads LLM_CHAT_FS_WORKSPACE, WRITE_DIRS and READ_DIRS (comma-separated)', () => {
        const ws = tempDir();
        const w1 = tempDir();
        const w2 = tempDir();
        const r1 = tempDir();
        const r2 = tempDir();
        vi.stubEnv('LLM_CHAT_FS_WORKSPACE', ws);
        vi.stubEnv('LLM_CHAT_FS_WRITE_DIRS', `${w1},${w2}`);
        vi.stubEnv('LLM_CHAT_FS_READ_DIRS', ` ${r1} , ${r2},`);
        const c = new DirectoryConfiguration();
        expect(c.workspacePath).toBe(ws);
        expect(c.accesses).toEqual([
            { type: AccessType.Write, path: ws },
            { type: AccessType.Write, path: w1 },
            { type: AccessType.Write, path: w2 },
            { type: AccessType.Read, path: r1 },
            { type: AccessType.Read, path: r2 },
        ]);
    });

    it('with only directory variables, does not add the current directory (no implicit write access)', () => {
        const r1 = tempDir();
        const w1 = tempDir();
        vi.stubEnv('LLM_CHAT_FS_READ_DIRS', r1);
        const readOnly = new DirectoryConfiguration();
        expect(readOnly.accesses).toEqual([{ type: AccessType.Read, path: r1 }]);
        expect(readOnly.workspacePath).toBe(r1);
        vi.stubEnv('LLM_CHAT_FS_WRITE_DIRS', w1);
        const both = new DirectoryConfiguration();
        expect(both.accesses).toEqual([
            { type: AccessType.Write, path: w1 },
            { type: AccessType.Read, path: r1 },
        ]);
        expect(both.workspacePath).toBe(w1);
    });

    it('refuses to make the filesystem root writable implicitly', () => {
        const cwd = vi.spyOn(process, 'cwd').mockReturnValue('/');
        try {
            expect(() => new DirectoryConfiguration()).toThrow(/filesystem root.*LLM_CHAT_FS_WORKSPACE/s);
            vi.stubEnv('LLM_CHAT_FS_WORKSPACE', '/');
            expect(new DirectoryConfiguration().accesses).toEqual([{ type: AccessType.Write, path: '/' }]);
        } finally {
            cwd.mockRestore();
        }
    });

    it('reads LLM_CHAT_FS_SKIP_DIRS and LLM_CHAT_FS_RESOLVE_SYMLINKS', () => {
        vi.stubEnv('LLM_CHAT_FS_SKIP_DIRS', 'node_modules,dist,.cache');
        vi.stubEnv('LLM_CHAT_FS_RESOLVE_SYMLINKS', 'false');
        const c = new DirectoryConfiguration();
        expect(c.skipDirs).toEqual(['node_modules', 'dist', '.cache']);
        expect(c.resolveSymlinks).toBe(false);
    });

    it('rejects an invalid LLM_CHAT_FS_RESOLVE_SYMLINKS with an error naming it', () => {
        vi.stubEnv('LLM_CHAT_FS_RESOLVE_SYMLINKS', 'sometimes');
        expect(() => new DirectoryConfiguration()).toThrow('LLM_CHAT_FS_RESOLVE_SYMLINKS');
    });

    it('lets constructor arguments beat the environment', () => {
        const envWs = tempDir();
        const mine = tempDir();
        vi.stubEnv('LLM_CHAT_FS_WORKSPACE', envWs);
        vi.stubEnv('LLM_CHAT_FS_READ_DIRS', tempDir());
        vi.stubEnv('LLM_CHAT_FS_SKIP_DIRS', 'a,b');
        vi.stubEnv('LLM_CHAT_FS_RESOLVE_SYMLINKS', 'false');
        const c = new DirectoryConfiguration([{ type: AccessType.Read, path: '/var/log' }, { type: AccessType.Write, path: mine }], ['x'], true);
        expect(c.accesses).toEqual([
            { type: AccessType.Read, path: '/var/log' },
            { type: AccessType.Write, path: mine },
        ]);
        expect(c.skipDirs).toEqual(['x']);
        expect(c.resolveSymlinks).toBe(true);
        // The workspace is the first write access when none is given.
        expect(c.workspacePath).toBe(mine);
    });

    it('resolves relative access paths to absolute ones', () => {
        const c = new DirectoryConfiguration([{ type: AccessType.Write, path: 'some/rel' }]);
        expect(c.accesses[0]!.path).toBe(path.resolve('some/rel'));
    });

    it('rejects invalid accesses with errors naming the option', () => {
        expect(() => new DirectoryConfiguration([])).toThrow(/accesses/);
        expect(() => new DirectoryConfiguration([{ type: 'admin' as AccessType, path: '/x' }])).toThrow(/accesses\[0\]\.type/);
        expect(() => new DirectoryConfiguration([{ type: AccessType.Read, path: '' }])).toThrow(/accesses\[0\]\.path/);
    });

    it('feeds Workspace, either as a DirectoryConfiguration or as plain options', () => {
        const root = tempDir();
        vi.stubEnv('LLM_CHAT_FS_WORKSPACE', root);
        expect(new Workspace(new DirectoryConfiguration()).path).toBe(root);
        const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: root }, { type: AccessType.Read, path: '/var/log' }] });
        expect(ws.path).toBe(root);
        expect(ws.accesses.map((a) => a.type)).toEqual([AccessType.Write, AccessType.Read]);
    });

    it('rejects a workspace outside every access', () => {
        const a = tempDir();
        const b = tempDir();
        expect(() => new Workspace({ accesses: [{ type: AccessType.Write, path: a }], workspacePath: b })).toThrow(/workspace/i);
    });

    it('a package built from the environment reads and writes where the variables say', async () => {
        const ws = tempDir();
        const ro = tempDir();
        vi.stubEnv('LLM_CHAT_FS_WORKSPACE', ws);
        vi.stubEnv('LLM_CHAT_FS_READ_DIRS', ro);
        const { run } = makePackage(ws, { accesses: [...new DirectoryConfiguration().accesses] });
        expect((await run('write_file', { path: 'a.txt', content: 'a' }))[0]!.status).toBe('success');
        expect((await run('write_file', { path: `${ro}/b.txt`, content: 'b' }))[0]!.status).toBe('error');
        expect((await run('list_directory', { path: ro }))[0]!.status).toBe('success');
    });
});
