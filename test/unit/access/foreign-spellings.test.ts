/**
 * Path spellings of other systems (src/access/shared/spelling.ts): `\` separators and quotes are
 * translated, `file:` URIs decoded, drive letters and other hosts refused; a literal name that
 * exists is taken as written, and `./name` is always literal. Nothing is created by a refusal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePackage, one, snapshot, tempDir, writeTree } from '../../support/helpers.js';
import { foreignSpelling } from '../../../src/access/shared/spelling.js';

function fixture(files: Record<string, string> = { 'src/main.ts': 'main\n', 'my file.txt': 'spaced\n' }) {
    const root = tempDir();
    writeTree(root, files);
    return { root, ...makePackage(root, { requireReadBeforeWrite: false }) };
}

describe('foreignSpelling (pure)', () => {
    it('names each spelling and translates or refuses it', () => {
        expect(foreignSpelling('src/main.ts')).toBeNull();
        expect(foreignSpelling('./src\\main.ts')).toBeNull();
        expect(foreignSpelling('src\\main.ts')).toEqual({ what: 'a path with Windows separators (\\)', path: 'src/main.ts' });
        expect(foreignSpelling('C:\\repo\\a.txt')?.path).toBeUndefined();
        expect(foreignSpelling('c:/repo')?.what).toBe('a Windows path with a drive letter (c:)');
        expect(foreignSpelling('\\\\server\\share\\a')?.what).toBe('a Windows network (UNC) path');
        expect(foreignSpelling('file:///tmp/a%20b.txt')).toEqual({ what: 'a file: URI', path: '/tmp/a b.txt' });
        expect(foreignSpelling('file://localhost/tmp/x#frag')?.path).toBe('/tmp/x');
        expect(foreignSpelling('FILE:/tmp/x')?.path).toBe('/tmp/x');
        expect(foreignSpelling('file://server/share/x')?.what).toBe('a file: URI of the host "server"');
        expect(foreignSpelling('file://server/share/x')?.path).toBeUndefined();
        expect(foreignSpelling('file:relative')?.path).toBeUndefined();
        expect(foreignSpelling('file:///C:/repo/a.txt')?.path).toBeUndefined();
        expect(foreignSpelling('file:///tmp/%zz')?.path).toBeUndefined();
        expect(foreignSpelling('file:///tmp/caf%E9')?.path).toBe('/tmp/caf\udce9');
        expect(foreignSpelling('"my file.txt"')).toEqual({ what: 'a path wrapped in quotes', path: 'my file.txt' });
        expect(foreignSpelling("'my file.txt'")?.path).toBe('my file.txt');
        expect(foreignSpelling('`my file.txt`')?.path).toBe('my file.txt');
        expect(foreignSpelling('"src\\main.ts"')?.path).toBe('src/main.ts');
        expect(foreignSpelling('"C:\\x"')?.path).toBeUndefined();
        expect(foreignSpelling('""')?.path).toBeUndefined();
        expect(foreignSpelling('"caf\\xe9.txt"')?.path).toBe('caf\udce9.txt');
    });
});

describe('Windows separators', () => {
    it('are read as / when no entry of the literal name exists, in reads, writes, edits, lists and searches', async () => {
        const fx = fixture();
        expect((await one(fx.tool('read_file'), { paths: ['src\\main.ts'] })).result).toBe(`--- ${fx.root}/src/main.ts (lines 1-1 of 1) ---\nmain\n`);
        expect((await one(fx.tool('write_file'), { path: 'src\\sub\\new.ts', content: 'x\n' })).result).toBe(`Written: ${fx.root}/src/sub/new.ts`);
        expect(fs.readFileSync(path.join(fx.root, 'src/sub/new.ts'), 'utf8')).toBe('x\n');
        expect((await one(fx.tool('replace_file_content'), { path: 'src\\main.ts', old_content: 'main', new_content: 'MAIN' })).status).toBe('success');
        expect((await one(fx.tool('list_directory'), { path: 'src\\sub' })).result).toBe('src/sub/new.ts');
        expect((await one(fx.tool('search_entries'), { path: 'src\\sub' })).result).toBe('src/sub/new.ts');
        expect((await one(fx.tool('entry_info'), { path: 'src\\main.ts' })).result).toContain(`Path: ${fx.root}/src/main.ts`);
        expect((await one(fx.tool('move_file'), { source: 'src\\sub\\new.ts', destination: 'src\\moved.ts' })).result).toBe(`Moved: ${fx.root}/src/sub/new.ts -> ${fx.root}/src/moved.ts`);
        expect((await one(fx.tool('create_folder'), { path: 'a\\b' })).result).toBe(`Created directory: ${fx.root}/a/b/`);
        expect((await one(fx.tool('delete_file'), { path: 'src\\moved.ts' })).result).toBe(`Deleted file: ${fx.root}/src/moved.ts`);
        expect(fs.readdirSync(fx.root).filter((n) => n.includes('\\'))).toEqual([]);
    });

    it('keep an existing entry of that literal name; ./ makes one', async () => {
        const fx = fixture({ 'a\\b.txt': 'literal\n', 'a/b.txt': 'nested\n' });
        expect((await one(fx.tool('read_file'), { paths: ['a\\b.txt'] })).result).toContain('literal');
        expect((await one(fx.tool('write_file'), { path: './c\\d.txt', content: 'y' })).status).toBe('success');
        expect(fs.readFileSync(path.join(fx.root, 'c\\d.txt'), 'utf8')).toBe('y');
    });
});

describe('drive letters and UNC paths', () => {
    it('are refused in every tool with the spelling and the fix, and nothing is created', async () => {
        const fx = fixture();
        const before = snapshot(fx.root);
        const msg = (p: string, param = 'path'): string =>
            `Invalid argument: ${param} ${p} is a Windows path with a drive letter (C:): this host has no drive letters: pass the path relative to the workspace (such as "src/main.ts") or an absolute path starting with "/". A name that holds these characters is written "./${p}".`;
        const calls: [string, Record<string, unknown>, string][] = [
            ['read_file', { paths: ['C:\\repo\\a.txt'] }, 'paths'],
            ['write_file', { path: 'C:\\repo\\a.txt', content: 'x' }, 'path'],
            ['create_folder', { path: 'C:\\repo\\a.txt' }, 'path'],
            ['replace_file_lines', { path: 'C:\\repo\\a.txt', content: 'x', start_line: 1 }, 'path'],
            ['insert_file_content', { path: 'C:\\repo\\a.txt', content: 'x' }, 'path'],
            ['replace_file_content', { path: 'C:\\repo\\a.txt', old_content: 'a', new_content: 'b' }, 'path'],
            ['delete_file', { path: 'C:\\repo\\a.txt' }, 'path'],
            ['list_directory', { path: 'C:\\repo\\a.txt' }, 'path'],
            ['search_entries', { path: 'C:\\repo\\a.txt' }, 'path'],
            ['entry_info', { path: 'C:\\repo\\a.txt' }, 'path'],
            ['move_file', { source: 'src/main.ts', destination: 'C:\\repo\\a.txt' }, 'destination'],
            ['move_file', { source: 'C:\\repo\\a.txt', destination: 'x.txt' }, 'source'],
        ];
        for (const [tool, args, param] of calls) {
            const r = await one(fx.tool(tool), args);
            expect(r.status, tool).toBe('error');
            expect(r.result, tool).toContain(msg('C:\\repo\\a.txt', param).replace(/^Invalid argument: /, ''));
        }
        const unc = await one(fx.tool('write_file'), { path: '\\\\server\\share\\a.txt', content: 'x' });
        expect(unc.result).toContain('is a Windows network (UNC) path');
        expect(snapshot(fx.root)).toEqual(before);
    });
});

describe('file: URIs', () => {
    it('are decoded, then checked like any absolute path; no file: tree is made', async () => {
        const fx = fixture();
        const uri = `file://${fx.root}/my%20file.txt`;
        expect((await one(fx.tool('read_file'), { paths: [uri] })).result).toBe(`--- ${fx.root}/my file.txt (lines 1-1 of 1) ---\nspaced\n`);
        expect((await one(fx.tool('write_file'), { path: `file://localhost${fx.root}/new.txt`, content: 'n' })).result).toBe(`Written: ${fx.root}/new.txt`);
        const outside = await one(fx.tool('write_file'), { path: 'file:///etc/llm-chat-file-test.txt', content: 'x' });
        expect(outside.result).toMatch(/^Access denied: \/etc\/llm-chat-file-test.txt is outside the configured writable directories/);
        expect(fs.existsSync(path.join(fx.root, 'file:'))).toBe(false);
    });

    it('of another host, without a path or with a broken escape are refused, and nothing is created', async () => {
        const fx = fixture();
        const before = snapshot(fx.root);
        for (const [p, what] of [
            ['file://server/share/a.txt', 'a file: URI of the host "server"'],
            ['file:a.txt', 'a file: URI without an absolute path'],
            [`file://${fx.root}/a%2.txt`, 'a file: URI with a broken percent escape'],
        ]) {
            for (const tool of ['write_file', 'create_folder']) {
                const r = await one(fx.tool(tool), tool === 'write_file' ? { path: p, content: 'x' } : { path: p });
                expect(r.status).toBe('error');
                expect(r.result).toContain(`path ${p} is ${what}: `);
            }
        }
        expect(snapshot(fx.root)).toEqual(before);
    });
});

describe('a whole path in quotes', () => {
    it('is the path inside them; an existing quoted name is kept', async () => {
        const fx = fixture({ 'my file.txt': 'spaced\n', '"odd".txt': 'q\n' });
        expect((await one(fx.tool('read_file'), { paths: ['"my file.txt"'] })).result).toContain('spaced');
        expect((await one(fx.tool('read_file'), { paths: ["'my file.txt'"] })).result).toContain('spaced');
        expect((await one(fx.tool('create_folder'), { path: '"new dir"' })).result).toBe(`Created directory: ${fx.root}/new dir/`);
        expect((await one(fx.tool('read_file'), { paths: ['"odd".txt'] })).result).toContain('q');
        expect(fs.readdirSync(fx.root).sort()).toEqual(['"odd".txt', 'my file.txt', 'new dir']);
    });

    it('of nothing, or of a refused spelling, is refused and changes nothing', async () => {
        const fx = fixture();
        const before = snapshot(fx.root);
        expect((await one(fx.tool('write_file'), { path: '""', content: 'x' })).result).toContain('is a path wrapped in quotes: pass the path without the quotes');
        expect((await one(fx.tool('write_file'), { path: '"D:\\a.txt"', content: 'x' })).result).toContain('is a path wrapped in quotes, holding a Windows path with a drive letter (D:)');
        expect(snapshot(fx.root)).toEqual(before);
    });
});
