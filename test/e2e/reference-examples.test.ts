/**
 * The API reference's examples, run as written, with `/my/project` replaced by a temporary
 * directory (and `/var/log`, `/home/project` kept as the configuration examples give them).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
    AccessType,
    CreateFolderTool,
    DeleteFileTool,
    DirectoryConfiguration,
    EntryInfoTool,
    FileAccessInfoTool,
    FileConfiguration,
    FilePool,
    FileToolPackage,
    InsertFileContentTool,
    ListDirectoryTool,
    MoveFileTool,
    ReadFileTool,
    ReplaceFileContentTool,
    ReplaceFileLinesTool,
    SearchConfiguration,
    SearchEntriesTool,
    SwitchWorkspaceTool,
    ToolSuite,
    Workspace,
    WriteFileTool,
} from '../../src/index.js';
import { tempDir, writeTree } from '../support/helpers.js';

afterEach(() => vi.unstubAllEnvs());

describe('configuration examples', () => {
    it('construct as the reference shows', () => {
        vi.stubEnv('LLM_CHAT_FS_WORKSPACE', tempDir());
        expect(new DirectoryConfiguration().accesses.length).toBeGreaterThan(0);
        const dirs = new DirectoryConfiguration([
            { type: AccessType.Read, path: '/var/log' },
            { type: AccessType.Write, path: '/home/project' },
        ]);
        expect(dirs.accesses).toEqual([
            { type: AccessType.Read, path: '/var/log' },
            { type: AccessType.Write, path: '/home/project' },
        ]);
        expect(new SearchConfiguration().maxSearchResults).toBe(50);
        expect(new SearchConfiguration(100).maxSearchResults).toBe(100);
        expect(new FileConfiguration().maxCharsPerFile).toBe(10000);
        expect(new FileConfiguration(5000, 1024 * 1024)).toMatchObject({ maxCharsPerFile: 5000, maxFileSize: 1048576, requireReadBeforeWrite: true });
        expect(new FileConfiguration(5000, 1024 * 1024, false).requireReadBeforeWrite).toBe(false);
        expect(new FilePool(new FileConfiguration(undefined, undefined, true)).enabled).toBe(true);
        expect(new FilePool(new FileConfiguration(undefined, undefined, false)).enabled).toBe(false);
        const ws = new Workspace({
            accesses: [
                { type: AccessType.Write, path: '/home/project' },
                { type: AccessType.Read, path: '/shared/data' },
            ],
        });
        expect(ws.path).toBe('/home/project');
    });
});

describe('tool examples on /my/project', () => {
    it('run as written and give the results the reference shows', async () => {
        const project = tempDir();
        const other = tempDir();
        writeTree(project, {
            'src/index.ts': Array.from({ length: 42 }, (_, i) => `line ${i + 1}`).join('\n') + '\n',
            'src/main.ts': Array.from({ length: 12 }, (_, i) => (i === 9 ? '   // TODO: implement this' : `const v${i} = ${i};`)).join('\n') + '\n',
            'src/utils.ts': 'export const u = 1;\n',
            'exists.txt': 'a\nb\nc\nd\ne\n',
            'old-file.txt': 'old\n',
            'old-dir/x.txt': 'x\n',
            'old-name.txt': 'name\n',
        });
        const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: project }, { type: AccessType.Write, path: other }] });

        const read = new ReadFileTool(ws);
        const [single] = await read.execute({ paths: ['src/index.ts'] });
        expect(single!.result.startsWith(`--- ${project}/src/index.ts (lines 1-42 of 42) ---\n`)).toBe(true);
        const batch = await read.execute({ paths: ['src/main.ts', 'src/utils.ts'] });
        expect(batch.map((r) => r.result.split('\n')[0])).toEqual([
            `--- ${project}/src/main.ts (lines 1-12 of 12) ---`,
            `--- ${project}/src/utils.ts (lines 1-1 of 1) ---`,
        ]);
        const partial = await read.execute({ paths: ['exists.txt', 'missing.txt'] });
        expect(partial[0]!.status).toBe('success');
        expect(partial[0]!.result.startsWith(`--- ${project}/exists.txt (lines 1-5 of 5) ---`)).toBe(true);
        expect(partial[1]!.status).toBe('error');
        expect(partial[1]!.result).toBe(`File not found: ENOENT: no such file or directory, stat '${project}/missing.txt'`);

        expect((await new WriteFileTool(ws).execute({ path: 'notes.txt', content: 'Hello, world!' }))[0]!.result).toBe(`Written: ${project}/notes.txt`);

        // Edits need a prior read (src/main.ts was read above).
        expect((await new ReplaceFileLinesTool(ws).execute({ path: 'src/main.ts', content: 'const x = 42;', start_line: 10, end_line: 12 }))[0]!.result).toBe(
            `Replaced lines 10-12 in ${project}/src/main.ts`,
        );
    });

    it('run with one shared package as FileToolPackage bundles them', async () => {
        const project = tempDir();
        const another = tempDir();
        writeTree(project, {
            'src/main.ts': 'foo\n   // TODO: implement this\nfoo foo\n',
            'src/utils.ts': '   // TODO: add error handling\n',
            'old-file.txt': 'old\n',
            'old-dir/x.txt': 'x\n',
            'old-name.txt': 'name\n',
            'readme.txt': 'hi\n',
        });
        const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: project }, { type: AccessType.Read, path: another }] });
        const pkg = new FileToolPackage(ws);
        const suite = new ToolSuite();
        suite.add(pkg);
        const tool = (name: string) => pkg.tools().find((t) => t.name === name)!;
        await tool('read_file').execute({ paths: ['src/main.ts'] });
        expect((await tool('insert_file_content').execute({ path: 'src/main.ts', content: 'import { foo } from "../bar";', line: 1 }))[0]!.result).toBe(
            `Inserted content at line 1 in ${project}/src/main.ts`,
        );
        // The reference's line; the file holds "foo" 4 times, so a second line says where the others are.
        expect((await tool('replace_file_content').execute({ path: 'src/main.ts', old_content: 'foo', new_content: 'bar' }))[0]!.result).toBe(
            `Replaced content in ${project}/src/main.ts\n[old_content occurs 4 times: replaced the first, at line 1; left unchanged at lines 2, 4, 4. ` +
                'To change every occurrence set replace_all: true; to change another one, include more of its surrounding text in old_content so that it matches only there.]',
        );
        expect((await tool('replace_file_content').execute({ path: 'src/main.ts', old_content: 'foo', new_content: 'bar', replace_all: true }))[0]!.result).toBe(
            `Replaced content in ${project}/src/main.ts`,
        );
        expect(fs.readFileSync(path.join(project, 'src/main.ts'), 'utf8')).toBe('import { bar } from "../bar";\nbar\n   // TODO: implement this\nbar bar\n');

        const search = (args: Record<string, unknown>) => tool('search_entries').execute(args).then((r) => r[0]!.result);
        expect(await search({ name_pattern: '\\.ts$', content_pattern: 'TODO' })).toBe('src/main.ts:3:    // TODO: implement this\nsrc/utils.ts:1:    // TODO: add error handling');
        expect(await search({ name_pattern: '\\.ts$' })).toBe('src/main.ts\nsrc/utils.ts');
        expect(await search({ content_pattern: 'error handling' })).toBe('src/utils.ts:1:    // TODO: add error handling');
        expect(await search({ modified_after: '2025-01-01T00:00:00.000Z', name_pattern: 'utils' })).toMatch(
            /^src\/utils\.ts {2}\(created: \d{4}-\d\d-\d\dT[\d:.]+Z, modified: \d{4}-\d\d-\d\dT[\d:.]+Z\)$/,
        );
        expect((await search({})).split('\n').slice(0, 3)).toEqual(['old-dir/', 'old-dir/x.txt', 'old-file.txt']);

        expect((await tool('list_directory').execute({ path: '.' }))[0]!.result).toBe('old-dir/\nold-file.txt\nold-name.txt\nreadme.txt\nsrc/');
        expect((await tool('create_folder').execute({ path: 'src/components' }))[0]!.result).toBe(`Created directory: ${project}/src/components/`);
        expect((await tool('delete_file').execute({ path: 'old-file.txt' }))[0]!.result).toBe(`Deleted file: ${project}/old-file.txt`);
        expect((await tool('delete_file').execute({ path: 'old-dir', recursive: true }))[0]!.result).toBe(`Deleted directory: ${project}/old-dir`);
        expect((await tool('move_file').execute({ source: 'old-name.txt', destination: 'new-name.txt' }))[0]!.result).toBe(
            `Moved: ${project}/old-name.txt -> ${project}/new-name.txt`,
        );
        const info = (await tool('entry_info').execute({ path: 'src/utils.ts' }))[0]!.result.split('\n');
        expect(info.map((l) => l.split(':')[0])).toEqual(['Path', 'Type', 'Size', 'Permissions', 'Created', 'Modified (content)', 'Accessed', 'Changed (metadata)']);
        expect(info[0]).toBe(`Path: ${project}/src/utils.ts`);
        expect(info[2]).toBe('Size: 31 bytes');
        expect(info[3]).toBe('Permissions: rw-r--r--');
        const access = (await tool('file_access_info').execute({}))[0]!.result;
        expect(access.split('\n')[0]).toBe('Configured file system access:');
        expect(access).toContain(`  ${project.padEnd(56)} write  (current workspace)`);
        expect(access).toContain(`  ${another.padEnd(56)}  read`);
        expect((await tool('switch_workspace').execute({ path: another }))[0]!.result).toBe(`Switched workspace to: ${another}`);
        expect(pkg.tools().map((t) => t.name)).toEqual([
            'search_entries', 'list_directory', 'read_file', 'write_file', 'replace_file_lines', 'insert_file_content',
            'replace_file_content', 'entry_info', 'delete_file', 'create_folder', 'move_file', 'file_access_info', 'switch_workspace',
        ]);
        expect(pkg.tutorial()).toContain('"."');
        expect(pkg.composeTutorial()).toContain('search_entries');
        void [SearchEntriesTool, ListDirectoryTool, CreateFolderTool, DeleteFileTool, MoveFileTool, FileAccessInfoTool, EntryInfoTool, SwitchWorkspaceTool, InsertFileContentTool, ReplaceFileContentTool];
    });
});
