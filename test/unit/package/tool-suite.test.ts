import { PromptContainer, ResultStatus, Tool, ToolPackage } from '@johannes.latzel/llm-chat';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
    AccessType,
    CreateFolderTool,
    DeleteFileTool,
    DirectoryConfiguration,
    EntryInfoTool,
    FileAccessInfoTool,
    FileToolPackage,
    InsertFileContentTool,
    ListDirectoryTool,
    MoveFileTool,
    ReadFileTool,
    ReplaceFileContentTool,
    ReplaceFileLinesTool,
    SearchEntriesTool,
    SwitchWorkspaceTool,
    ToolEvent,
    ToolSuite,
    Workspace,
    WriteFileTool,
} from '../../../src/index.js';
import { tempDir, writeTree } from '../../support/helpers.js';
import { REFERENCE_TOOL_NAMES } from '../../../src/tools/catalog.js';

/** The reference's tools, in its order, with their parameters (`!` = required). */
const REFERENCE: Record<string, string[]> = {
    search_entries: ['path', 'type', 'name_pattern', 'content_pattern', 'max_results', 'max_size', 'created_after', 'created_before', 'modified_after', 'modified_before'],
    list_directory: ['path!', 'recursive'],
    read_file: ['paths!', 'max_chars', 'start_line', 'end_line'],
    write_file: ['path!', 'content!'],
    replace_file_lines: ['path!', 'content!', 'start_line!', 'end_line'],
    insert_file_content: ['path!', 'content!', 'line'],
    replace_file_content: ['path!', 'old_content!', 'new_content!', 'replace_all'],
    entry_info: ['path!'],
    delete_file: ['path!', 'recursive'],
    create_folder: ['path!'],
    move_file: ['source!', 'destination!'],
    file_access_info: [],
    switch_workspace: ['path!'],
};

/** JSON-schema types of the reference's parameter types. */
const TYPES: Record<string, string[]> = {
    string: ['path', 'content', 'old_content', 'new_content', 'source', 'destination', 'type', 'name_pattern', 'content_pattern', 'created_after', 'created_before', 'modified_after', 'modified_before'],
    number: ['max_chars', 'start_line', 'end_line', 'line', 'max_results', 'max_size'],
    boolean: ['recursive', 'replace_all'],
    array: ['paths'],
};

const pkgs: FileToolPackage[] = [];
beforeEach(() => {
    for (const v of ['LLM_CHAT_FS_WORKSPACE', 'LLM_CHAT_FS_READ_DIRS', 'LLM_CHAT_FS_WRITE_DIRS', 'LLM_CHAT_FS_MAX_CHARS_PER_FILE', 'LLM_CHAT_FS_REQUIRE_READ_BEFORE_WRITE']) {
        vi.stubEnv(v, undefined);
    }
});
afterEach(async () => {
    vi.unstubAllEnvs();
    await Promise.all(pkgs.splice(0).map((p) => p.close()));
});

function pkgOn(root: string): FileToolPackage {
    const pkg = new FileToolPackage(new Workspace({ accesses: [{ type: AccessType.Write, path: root }] }));
    pkgs.push(pkg);
    return pkg;
}

describe('ToolSuite registration', () => {
    it('new ToolSuite().add(new FileToolPackage(ws)) runs read_file from JSON arguments', async () => {
        const root = tempDir();
        writeTree(root, { 'README.md': '# Hello\n\nWorld.\n' });
        const suite = new ToolSuite();
        suite.add(pkgOn(root));
        const results = await suite.executeTool('read_file', '{"paths":["README.md"]}');
        expect(results).toHaveLength(1);
        expect(results[0]).toMatchObject({
            tool: 'read_file',
            status: ResultStatus.Success,
            result: `--- ${root}/README.md (lines 1-3 of 3) ---\n# Hello\n\nWorld.\n`,
        });
    });

    it('works with a Workspace built from the environment, as in the reference', async () => {
        const root = tempDir();
        writeTree(root, { 'README.md': 'readme\n' });
        vi.stubEnv('LLM_CHAT_FS_WORKSPACE', root);
        const ws = new Workspace(new DirectoryConfiguration());
        const pkg = new FileToolPackage(ws);
        pkgs.push(pkg);
        const suite = new ToolSuite();
        suite.add(pkg);
        const [r] = await suite.executeTool('read_file', '{"paths":["README.md"]}', true);
        expect(r!.result).toBe(`--- ${root}/README.md (lines 1-1 of 1) ---\nreadme\n`);
        const [w] = await suite.executeTool('write_file', '{"path":"out.txt","content":"x"}', true);
        expect(w!.result).toBe(`Written: ${root}/out.txt`);
    });

    it('one suite call returns one result per path', async () => {
        const root = tempDir();
        writeTree(root, { 'a.txt': 'a\n' });
        const suite = new ToolSuite();
        suite.add(pkgOn(root));
        const results = await suite.executeTool('read_file', '{"paths":["a.txt","nope.txt"]}', true);
        expect(results.map((r) => [r.tool, r.status])).toEqual([
            ['read_file', 'success'],
            ['read_file', 'error'],
        ]);
    });

    it('getTools() lists the tools with the reference names and parameters', () => {
        const suite = new ToolSuite();
        suite.add(pkgOn(tempDir()));
        const tools = suite.getTools() as { type: string; function: { name: string; description: string; parameters: Record<string, any> } }[];
        expect(tools.map((t) => t.function.name)).toEqual(Object.keys(REFERENCE));
        for (const t of tools) {
            const expected = REFERENCE[t.function.name]!;
            const params = t.function.parameters;
            expect(t.type).toBe('function');
            expect(t.function.description.length, t.function.name).toBeGreaterThan(20);
            expect(params.type).toBe('object');
            // Every reference parameter is there; an extension may add optional parameters, never required ones.
            expect(Object.keys(params.properties ?? {}), t.function.name).toEqual(expect.arrayContaining(expected.map((p) => p.replace('!', ''))));
            expect([...(params.required ?? [])].sort(), t.function.name).toEqual(expected.filter((p) => p.endsWith('!')).map((p) => p.slice(0, -1)).sort());
            for (const [name, prop] of Object.entries(params.properties ?? {}) as [string, Record<string, any>][]) {
                const kind = Object.keys(TYPES).find((k) => TYPES[k]!.includes(name));
                if (kind === undefined) continue; // an optional extension, not in the reference
                const type = prop.type;
                if (kind === 'number') expect(['number', 'integer'], `${t.function.name}.${name}`).toContain(type);
                else expect(type, `${t.function.name}.${name}`).toBe(kind);
                expect(typeof prop.description, `${t.function.name}.${name} has a description`).toBe('string');
            }
        }
        const search = tools.find((t) => t.function.name === 'search_entries')!.function.parameters;
        expect(search.properties.type.enum).toEqual(['file', 'directory', 'both']);
        const read = tools.find((t) => t.function.name === 'read_file')!.function.parameters;
        expect(read.properties.paths.items.type).toBe('string');
    });

    it('refuses to register the package twice (tool names are unique)', () => {
        const suite = new ToolSuite();
        const pkg = pkgOn(tempDir());
        suite.add(pkg);
        expect(() => suite.add(pkg)).toThrow(/already registered/);
    });

    it('has the typed hook(), on(), off() and rebuildTutorials() of llm-chat\'s class', async () => {
        const root = tempDir();
        writeTree(root, { 'a.txt': 'a\n' });
        const suite = new ToolSuite();
        suite.add(pkgOn(root));
        const seen: string[] = [];
        const hook = suite.hook().after().do((result) => {
            seen.push(`after ${result.tool} ${result.status}`);
        });
        const before = (name: string): void => {
            seen.push(`before ${name}`);
        };
        suite.on(ToolEvent.Before, before);
        await suite.executeTool('read_file', '{"paths":["a.txt"]}');
        suite.off('before', before);
        hook.dispose();
        await suite.executeTool('read_file', '{"paths":["a.txt"]}');
        expect(seen).toEqual(['before read_file', 'after read_file success']);
        const container = new PromptContainer('Tools');
        suite.setTutorialContainer(container);
        suite.rebuildTutorials();
        expect(container.content()).toContain('relative paths resolve against the current workspace');
    });
});

describe('FileToolPackage', () => {
    it("is a ToolPackage of the reference's Tools of the exported classes", () => {
        const pkg = pkgOn(tempDir());
        expect(pkg).toBeInstanceOf(ToolPackage);
        const tools = pkg.tools();
        expect(tools.map((t) => t.name)).toEqual([...REFERENCE_TOOL_NAMES]);
        for (const t of tools) expect(t).toBeInstanceOf(Tool);
        const classes = [
            SearchEntriesTool,
            ListDirectoryTool,
            ReadFileTool,
            WriteFileTool,
            ReplaceFileLinesTool,
            InsertFileContentTool,
            ReplaceFileContentTool,
            EntryInfoTool,
            DeleteFileTool,
            CreateFolderTool,
            MoveFileTool,
            FileAccessInfoTool,
            SwitchWorkspaceTool,
        ];
        expect(tools.map((t) => t.constructor)).toEqual(classes);
    });

    it('tutorial() gives path guidance and composeTutorial() names the package and every tool', () => {
        const pkg = pkgOn(tempDir());
        const tutorial = pkg.tutorial();
        expect(typeof tutorial).toBe('string');
        expect(tutorial).toContain('"."');
        expect(tutorial).toContain('/src');
        const composed = pkg.composeTutorial();
        expect(composed).toContain('FileToolPackage');
        for (const name of Object.keys(REFERENCE)) expect(composed).toContain(name);
        expect(composed).toContain(tutorial!);
    });

    it('tools built on their own, as in the reference examples, work', async () => {
        const root = tempDir();
        writeTree(root, { 'src/main.ts': 'main\n', 'src/utils.ts': 'utils\n' });
        const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: root }] });
        const [single] = await new ReadFileTool(ws).execute({ paths: ['src/main.ts'] });
        expect(single!.result).toBe(`--- ${root}/src/main.ts (lines 1-1 of 1) ---\nmain\n`);
        const batch = await new ReadFileTool(ws).execute({ paths: ['src/main.ts', 'src/utils.ts'] });
        expect(batch.map((r) => r.result)).toEqual([
            `--- ${root}/src/main.ts (lines 1-1 of 1) ---\nmain\n`,
            `--- ${root}/src/utils.ts (lines 1-1 of 1) ---\nutils\n`,
        ]);
        const [written] = await new WriteFileTool(ws).execute({ path: 'notes.txt', content: 'Hello, world!' });
        expect(written!.result).toBe(`Written: ${root}/notes.txt`);
        const [info] = await new FileAccessInfoTool(ws).execute({});
        expect(info!.result).toContain('(current workspace)');
    });

    it('close() can be called repeatedly and the tools keep working afterwards', async () => {
        const root = tempDir();
        writeTree(root, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
        const pkg = pkgOn(root);
        const read = pkg.tools().find((t) => t.name === 'read_file')!;
        expect((await read.execute({ paths: ['a.txt', 'b.txt'] })).map((r) => r.status)).toEqual(['success', 'success']);
        await pkg.close();
        await pkg.close();
        expect((await read.execute({ paths: ['a.txt', 'b.txt'] })).map((r) => r.status)).toEqual(['success', 'success']);
    });
});
