/**
 * The command line, run in process through `main(argv, io)` from the source tree, each call in
 * its own working directory and LLM_CHAT_FS_* environment. cli-smoke.test.ts runs the built
 * program as a subprocess.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/hosts/cli/main.js';
import { EXIT_CODES } from '../../../src/errors/shared/errors.js';
import { tempDir, writeTree } from '../../support/helpers.js';
import { NAVIGATION_TOOL_NAMES, REFERENCE_TOOL_NAMES } from '../../../src/tools/catalog.js';

interface Run {
    code: number | null;
    stdout: string;
    stderr: string;
}

/** Runs the CLI in process in `cwd` with a clean LLM_CHAT_FS_* environment plus `env`. */
async function runCli(cwd: string, args: string[], env: Record<string, string> = {}, input?: string): Promise<Run> {
    const saved = { cwd: process.cwd(), env: { ...process.env } };
    for (const k of Object.keys(process.env)) if (k.startsWith('LLM_CHAT_FS_')) delete process.env[k];
    Object.assign(process.env, env);
    process.chdir(cwd);
    let stdout = '';
    let stderr = '';
    try {
        const code = await main(args, {
            out: (text) => (stdout += `${text}\n`),
            err: (text) => (stderr += `${text}\n`),
            stdin: () => input ?? '',
        });
        return { code, stdout, stderr };
    } finally {
        process.chdir(saved.cwd);
        for (const k of Object.keys(process.env)) if (!(k in saved.env)) delete process.env[k];
        Object.assign(process.env, saved.env);
    }
}

describe('llm-chat-file command line', () => {
    it('reads a file in the current directory and exits 0', async () => {
        const dir = tempDir();
        writeTree(dir, { 'hello.txt': 'hello\nworld\n' });
        const r = await runCli(dir, ['read_file', '{"paths":["hello.txt"]}']);
        expect(r.code).toBe(0);
        expect(r.stdout).toBe(`--- ${dir}/hello.txt (lines 1-2 of 2) ---\nhello\nworld\n\n`);
    });

    it('runs a content search over the directory', async () => {
        const dir = tempDir();
        writeTree(dir, { 'src/a.ts': 'const x = 1;\n// TODO: needle here\n', 'src/b.ts': 'nothing\n', 'node_modules/m/i.js': 'TODO: needle\n' });
        const r = await runCli(dir, ['search_entries', '{"content_pattern":"needle"}']);
        expect(r.code).toBe(0);
        expect(r.stdout).toContain('src/a.ts:2:');
        expect(r.stdout).toContain('TODO: needle here');
        expect(r.stdout).not.toContain('node_modules');
        expect(r.stdout).not.toContain('src/b.ts');
    });

    it('lists the tools with their JSON schemas', async () => {
        const dir = tempDir();
        const r = await runCli(dir, ['tools']);
        expect(r.code).toBe(0);
        const list = JSON.parse(r.stdout) as { name: string; description: string; parameters: { type: string; properties: Record<string, unknown>; required?: string[] } }[];
        // The reference's tools, then code navigation's (on in the command line, as in the MCP server).
        expect(list.map((t) => t.name)).toEqual([...REFERENCE_TOOL_NAMES, ...NAVIGATION_TOOL_NAMES]);
        expect(list.map((t) => t.name)).toContain('search_entries');
        const read = list.find((t) => t.name === 'read_file')!;
        expect(read.parameters.type).toBe('object');
        expect(read.parameters.required).toEqual(['paths']);
        expect(Object.keys(read.parameters.properties)).toEqual(expect.arrayContaining(['paths', 'max_chars', 'start_line', 'end_line']));
    });

    it('runs a code-navigation tool, and refuses it when LLM_CHAT_FS_NAVIGATION=false', async () => {
        const dir = tempDir();
        fs.writeFileSync(path.join(dir, 'a.py'), 'class Store:\n    def get(self):\n        return 1\n');
        const r = await runCli(dir, ['file_outline', '{"path":"a.py"}']);
        expect(r.code).toBe(0);
        expect(r.stdout).toBe(`--- ${path.join(fs.realpathSync(dir), 'a.py')} (python, 3 lines, 2 definitions) ---\n1-3 class Store\n  2-3 method get — def get(self):\n`);
        const off = await runCli(dir, ['file_outline', '{"path":"a.py"}'], { LLM_CHAT_FS_NAVIGATION: 'false' });
        expect(off.code).toBe(2);
        expect(off.stderr).toMatch(/^Unknown tool or command: file_outline\. Tools: search_entries, /);
    });

    it.each(['LLM_CHAT_FS_INDEX_SYMBOLS', 'LLM_CHAT_FS_NAVIGATION'])('refuses an invalid %s with exit code 2 whether or not the index is on, as the MCP server does', async (name) => {
        const dir = tempDir();
        fs.writeFileSync(path.join(dir, 'a.c'), 'int k(void) { return 1; }\n');
        const indexes: Record<string, string>[] = [{}, { LLM_CHAT_FS_INDEX: 'false' }];
        for (const index of indexes) {
            const r = await runCli(dir, ['find_symbol', '{"name":"k"}'], { ...index, [name]: 'maybe' });
            expect(r.code).toBe(2);
            expect(r.stdout).toBe('');
            expect(r.stderr).toContain(name);
        }
    });

    it('exits non-zero and prints the error when a result is an error', async () => {
        const dir = tempDir();
        const r = await runCli(dir, ['read_file', '{"paths":["missing.txt"]}']);
        expect(r.code).toBe(EXIT_CODES.not_found);
        expect(r.stdout + r.stderr).toContain(`File not found: ENOENT: no such file or directory, stat '${dir}/missing.txt'`);
    });

    it('exits non-zero when one of several results is an error, printing all of them', async () => {
        const dir = tempDir();
        writeTree(dir, { 'ok.txt': 'ok\n' });
        const r = await runCli(dir, ['read_file', '{"paths":["ok.txt","missing.txt"]}']);
        expect(r.code).toBe(EXIT_CODES.not_found);
        expect(r.stdout).toContain(`--- ${dir}/ok.txt (lines 1-1 of 1) ---`);
        expect(r.stdout + r.stderr).toContain('File not found');
    });

    it('writes in the current directory, which is writable by default', async () => {
        const dir = tempDir();
        const r = await runCli(dir, ['write_file', '{"path":"new.txt","content":"made by cli"}']);
        expect(r.code).toBe(0);
        expect(r.stdout.trim()).toBe(`Written: ${dir}/new.txt`);
        expect(fs.readFileSync(path.join(dir, 'new.txt'), 'utf8')).toBe('made by cli');
    });

    it('--read adds a read-only directory: reads work, writes are refused', async () => {
        const dir = tempDir();
        const other = tempDir();
        writeTree(other, { 'data.txt': 'data\n' });
        const read = await runCli(dir, ['--read', other, 'read_file', JSON.stringify({ paths: [`${other}/data.txt`] })]);
        expect(read.code).toBe(0);
        expect(read.stdout).toContain('data');
        const write = await runCli(dir, ['--read', other, 'write_file', JSON.stringify({ path: `${other}/w.txt`, content: 'x' })]);
        expect(write.code).toBe(EXIT_CODES.not_writable);
        expect(fs.existsSync(path.join(other, 'w.txt'))).toBe(false);
        const without = await runCli(dir, ['read_file', JSON.stringify({ paths: [`${other}/data.txt`] })]);
        expect(without.code).toBe(EXIT_CODES.outside_access);
    });

    it('--write adds a writable directory', async () => {
        const dir = tempDir();
        const other = tempDir();
        const r = await runCli(dir, ['--write', other, 'write_file', JSON.stringify({ path: `${other}/w.txt`, content: 'w' })]);
        expect(r.code).toBe(0);
        expect(fs.readFileSync(path.join(other, 'w.txt'), 'utf8')).toBe('w');
    });

    it('reads arguments from standard input with "-"', async () => {
        const dir = tempDir();
        writeTree(dir, { 'a.txt': 'a\n' });
        const r = await runCli(dir, ['read_file', '-'], {}, '{"paths":["a.txt"]}');
        expect(r.code).toBe(0);
        expect(r.stdout).toContain(`--- ${dir}/a.txt (lines 1-1 of 1) ---`);
    });

    it('exits 2 on usage errors: unknown tool, invalid JSON, no command', async () => {
        const dir = tempDir();
        expect((await runCli(dir, ['no_such_tool', '{}'])).code).toBe(2);
        const bad = await runCli(dir, ['read_file', '{paths:']);
        expect(bad.code).toBe(2);
        expect(bad.stderr).toMatch(/JSON/);
        expect((await runCli(dir, [])).code).toBe(2);
    });

    it('exits non-zero on bad arguments, saying what is expected', async () => {
        const dir = tempDir();
        const r = await runCli(dir, ['read_file', '{"paths":5}']);
        expect(r.code).toBe(EXIT_CODES.invalid_argument);
        expect(r.stdout + r.stderr).toContain('paths');
    });
});
