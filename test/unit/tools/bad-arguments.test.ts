/**
 * Every tool, given missing, wrongly typed, out-of-range or unknown arguments, or arguments that
 * are not an object at all, returns one error result that names what is wrong and what is
 * expected. It never throws, and nothing changes on disk.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { makePackage, one, snapshot, tempDir, writeTree, type Fixture } from '../../support/helpers.js';

/** [label, args, the argument the message must name]. */
type Case = [string, unknown, string];

const NON_OBJECTS: Case[] = [
    ['null', null, 'object'],
    ['an array', [], 'object'],
    ['a string', 'x', 'object'],
    ['a number', 5, 'object'],
    ['a boolean', true, 'object'],
];

const CASES: Record<string, Case[]> = {
    read_file: [
        ['missing paths', {}, 'paths'],
        ['paths as a number', { paths: 5 }, 'paths'],
        ['paths with a number', { paths: [1] }, 'paths'],
        ['empty paths', { paths: [] }, 'paths'],
        ['empty path string', { paths: [''] }, 'paths'],
        ['start_line 0', { paths: ['a.txt'], start_line: 0 }, 'start_line'],
        ['start_line -3', { paths: ['a.txt'], start_line: -3 }, 'start_line'],
        ['start_line 1.5', { paths: ['a.txt'], start_line: 1.5 }, 'start_line'],
        ['start_line as a string', { paths: ['a.txt'], start_line: '2' }, 'start_line'],
        ['end_line before start_line', { paths: ['a.txt'], start_line: 3, end_line: 2 }, 'end_line'],
        ['max_chars 0', { paths: ['a.txt'], max_chars: 0 }, 'max_chars'],
        ['max_chars NaN-like', { paths: ['a.txt'], max_chars: 'lots' }, 'max_chars'],
        ['unknown argument', { paths: ['a.txt'], path: 'a.txt' }, 'path'],
        ['an unknown encoding', { paths: ['a.txt'], encoding: 'klingon-8' }, 'encoding'],
        ['an encoding that is not ASCII-compatible', { paths: ['a.txt'], encoding: 'utf-7' }, 'encoding'],
        ['an empty encoding', { paths: ['a.txt'], encoding: '' }, 'encoding'],
        ['encoding as a number', { paths: ['a.txt'], encoding: 932 }, 'encoding'],
    ],
    write_file: [
        ['missing path', { content: 'x' }, 'path'],
        ['missing content', { path: 'a.txt' }, 'content'],
        ['content as a number', { path: 'a.txt', content: 5 }, 'content'],
        ['content null', { path: 'a.txt', content: null }, 'content'],
        ['path as an array', { path: ['a.txt'], content: 'x' }, 'path'],
        ['empty path', { path: '', content: 'x' }, 'path'],
        ['NUL in path', { path: 'a\0.txt', content: 'x' }, 'path'],
        ['unknown argument', { path: 'a.txt', content: 'x', append: true }, 'append'],
    ],
    replace_file_lines: [
        ['missing start_line', { path: 'a.txt', content: 'x' }, 'start_line'],
        ['missing content', { path: 'a.txt', start_line: 1 }, 'content'],
        ['missing path', { content: 'x', start_line: 1 }, 'path'],
        ['start_line 0', { path: 'a.txt', content: 'x', start_line: 0 }, 'start_line'],
        ['start_line as a string', { path: 'a.txt', content: 'x', start_line: '1' }, 'start_line'],
        ['end_line 0.5', { path: 'a.txt', content: 'x', start_line: 1, end_line: 0.5 }, 'end_line'],
        ['end_line before start_line', { path: 'a.txt', content: 'x', start_line: 2, end_line: 1 }, 'end_line'],
        ['unknown argument', { path: 'a.txt', content: 'x', start_line: 1, line: 1 }, 'line'],
    ],
    insert_file_content: [
        ['missing path', { content: 'x' }, 'path'],
        ['missing content', { path: 'a.txt' }, 'content'],
        ['line 0', { path: 'a.txt', content: 'x', line: 0 }, 'line'],
        ['line -1', { path: 'a.txt', content: 'x', line: -1 }, 'line'],
        ['line as a string', { path: 'a.txt', content: 'x', line: 'end' }, 'line'],
        ['content as an object', { path: 'a.txt', content: { text: 'x' } }, 'content'],
        ['unknown argument', { path: 'a.txt', content: 'x', start_line: 1 }, 'start_line'],
    ],
    replace_file_content: [
        ['missing old_content', { path: 'a.txt', new_content: 'x' }, 'old_content'],
        ['missing new_content', { path: 'a.txt', old_content: 'a' }, 'new_content'],
        ['empty old_content', { path: 'a.txt', old_content: '', new_content: 'x' }, 'old_content'],
        ['replace_all as a string', { path: 'a.txt', old_content: 'a', new_content: 'x', replace_all: 'true' }, 'replace_all'],
        ['unknown argument', { path: 'a.txt', old_content: 'a', new_content: 'x', content: 'x' }, 'content'],
    ],
    search_entries: [
        ['type not in the enum', { type: 'files' }, 'type'],
        ['max_results 0', { max_results: 0 }, 'max_results'],
        ['max_results as a string', { max_results: '10' }, 'max_results'],
        ['max_size -1', { max_size: -1 }, 'max_size'],
        ['name_pattern as a number', { name_pattern: 5 }, 'name_pattern'],
        ['invalid regex', { name_pattern: '(' }, 'name_pattern'],
        ['invalid content regex', { content_pattern: '[a-' }, 'content_pattern'],
        ['created_after not a date', { created_after: 'yesterday-ish' }, 'created_after'],
        ['modified_before not a date', { modified_before: 'soon' }, 'modified_before'],
        ['modified_after a bare number', { modified_after: '1' }, 'modified_after'],
        ['created_before not a calendar day', { created_before: '2025-02-30T00:00:00Z' }, 'created_before'],
        ['modified_before in prose', { modified_before: 'Jan 1 2025' }, 'modified_before'],
        ['path as a number', { path: 1 }, 'path'],
        ['unknown argument', { pattern: 'x' }, 'pattern'],
    ],
    list_directory: [
        ['missing path', {}, 'path'],
        ['recursive as a string', { path: '.', recursive: 'yes' }, 'recursive'],
        ['path as a number', { path: 0 }, 'path'],
        ['empty path', { path: '' }, 'path'],
        ['unknown argument', { path: '.', depth: 2 }, 'depth'],
    ],
    create_folder: [
        ['missing path', {}, 'path'],
        ['path as a boolean', { path: true }, 'path'],
        ['empty path', { path: '' }, 'path'],
        ['unknown argument', { path: 'x', recursive: true }, 'recursive'],
    ],
    delete_file: [
        ['missing path', {}, 'path'],
        ['recursive as a number', { path: 'a.txt', recursive: 1 }, 'recursive'],
        ['empty path', { path: '' }, 'path'],
        ['unknown argument', { path: 'a.txt', force: true }, 'force'],
    ],
    move_file: [
        ['missing destination', { source: 'a.txt' }, 'destination'],
        ['missing source', { destination: 'b.txt' }, 'source'],
        ['source as a number', { source: 1, destination: 'b.txt' }, 'source'],
        ['empty destination', { source: 'a.txt', destination: '' }, 'destination'],
        ['unknown argument', { source: 'a.txt', destination: 'b.txt', overwrite: true }, 'overwrite'],
    ],
    entry_info: [
        ['missing path', {}, 'path'],
        ['path as null', { path: null }, 'path'],
        ['unknown argument', { path: 'a.txt', follow: true }, 'follow'],
    ],
    file_access_info: [['unknown argument', { path: '.' }, 'path']],
    switch_workspace: [
        ['missing path', {}, 'path'],
        ['path as a number', { path: 3 }, 'path'],
        ['empty path', { path: '' }, 'path'],
        ['unknown argument', { path: 'sub', force: true }, 'force'],
    ],
};

let root: string;
let fx: Fixture;

beforeEach(async () => {
    root = tempDir();
    writeTree(root, { 'a.txt': 'a\nb\n', 'b.txt': 'b\n', 'sub/c.txt': 'c\n', 'x': 'x\n' });
    fx = makePackage(root);
    // All files read: any refusal below is due to the arguments, not to read-before-write.
    // One path per call: single reads stay on the main thread, so no worker pool starts per test.
    for (const p of ['a.txt', 'b.txt', 'sub/c.txt', 'x']) await fx.tool('read_file').execute({ paths: [p] });
});

describe('bad arguments', () => {
    it('covers every tool of the package', () => {
        expect(Object.keys(CASES).sort()).toEqual(fx.pkg.tools().map((t) => t.name).sort());
    });

    for (const [tool, cases] of Object.entries(CASES)) {
        describe(tool, () => {
            for (const [label, args, names] of [...cases, ...NON_OBJECTS]) {
                it(`rejects ${label}, naming ${names} and what is expected, changing nothing`, async () => {
                    const before = snapshot(root);
                    const r = await one(fx.tool(tool), args);
                    expect(r.status).toBe('error');
                    // Returned as a value by the tool, not thrown into the framework's boundary.
                    expect(r.error).toBeUndefined();
                    expect(r.result).toContain(tool);
                    expect(r.result).toContain(names);
                    // Says what is expected, beyond "Invalid arguments".
                    expect(r.result.replace(/^Invalid arguments for \w+: /, '')).toMatch(/expect|must|use |pass |such as|a valid /i);
                    expect(snapshot(root)).toEqual(before);
                    expect(fx.ws.path).toBe(root);
                });
            }
        });
    }

    it('shows the expected shape of the arguments', async () => {
        const r = await one(fx.tool('replace_file_lines'), { path: 'a.txt' });
        expect(r.result).toContain('path: string');
        expect(r.result).toContain('start_line');
        expect(r.result).toMatch(/end_line\?/);
    });

    it('accepts a call with no arguments object at all for tools without required arguments', async () => {
        expect((await one(fx.tool('file_access_info'), undefined)).status).toBe('success');
        expect((await one(fx.tool('file_access_info'), {})).status).toBe('success');
    });
});
