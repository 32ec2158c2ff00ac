/**
 * The command line's directory rules and start-up errors, run in process through `main(argv, io)`:
 * `--workspace`/`--write`/`--read` give exactly the directories named (the current directory only
 * when none is named), and a missing or non-directory directory or an extra argument is a usage
 * error (exit code 2) before any tool runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main, parseCommandLine, UsageError, type CliIo } from '../../../src/hosts/cli/main.js';
import { EXIT_CODES } from '../../../src/errors/shared/errors.js';
import { tempDir, writeTree } from '../../support/helpers.js';

interface Captured {
    code: number;
    stdout: string;
    stderr: string;
}

async function run(cwd: string, argv: string[], stdin = ''): Promise<Captured> {
    let stdout = '';
    let stderr = '';
    const io: CliIo = { out: (l) => (stdout += `${l}\n`), err: (l) => (stderr += `${l}\n`), stdin: () => stdin, cwd };
    const code = await main(argv, io);
    return { code, stdout, stderr };
}

// The environment form must not leak in: these tests are about the flags.
const saved: Record<string, string | undefined> = {};
beforeEach(() => {
    for (const k of Object.keys(process.env).filter((k) => k.startsWith('LLM_CHAT_FS_'))) {
        saved[k] = process.env[k];
        delete process.env[k];
    }
});
afterEach(() => {
    for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
});

const accessInfo = async (cwd: string, argv: string[]): Promise<string> => {
    const r = await run(cwd, [...argv, 'file_access_info']);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
};

describe('directory options', () => {
    it('--read alone gives exactly that directory, read-only: the current directory is not writable', async () => {
        const cwd = tempDir('lcf-cli-cwd-');
        const other = tempDir('lcf-cli-read-');
        writeTree(other, { 'data.txt': 'data\n' });
        const info = await accessInfo(cwd, ['--read', other]);
        expect(info).toContain(other);
        expect(info).not.toContain(cwd);
        const write = await run(cwd, ['--read', other, 'write_file', JSON.stringify({ path: path.join(cwd, 'x.txt'), content: 'x' })]);
        expect(write.code).toBe(EXIT_CODES.outside_access);
        expect(fs.existsSync(path.join(cwd, 'x.txt'))).toBe(false);
        // The workspace is the read directory: relative paths resolve there.
        const read = await run(cwd, ['--read', other, 'read_file', '{"paths":["data.txt"]}']);
        expect(read.code).toBe(0);
        expect(read.stdout).toContain('data');
    });

    it('--write alone gives exactly that directory, and it is the workspace', async () => {
        const cwd = tempDir('lcf-cli-cwd-');
        const other = tempDir('lcf-cli-write-');
        const info = await accessInfo(cwd, ['--write', other]);
        expect(info).toContain(other);
        expect(info).not.toContain(cwd);
        const w = await run(cwd, ['--write', other, 'write_file', '{"path":"w.txt","content":"w"}']);
        expect(w.code).toBe(0);
        expect(fs.readFileSync(path.join(other, 'w.txt'), 'utf8')).toBe('w');
        const outside = await run(cwd, ['--write', other, 'write_file', JSON.stringify({ path: path.join(cwd, 'w.txt'), content: 'w' })]);
        expect(outside.code).toBe(EXIT_CODES.outside_access);
        expect(fs.existsSync(path.join(cwd, 'w.txt'))).toBe(false);
    });

    it('--workspace, --write and --read together give those three, the workspace first', async () => {
        const cwd = tempDir('lcf-cli-cwd-');
        const ws = tempDir('lcf-cli-ws-');
        const w = tempDir('lcf-cli-w-');
        const r = tempDir('lcf-cli-r-');
        const info = await accessInfo(cwd, ['--read', r, '--write', w, '--workspace', ws]);
        for (const d of [ws, w, r]) expect(info).toContain(d);
        expect(info).not.toContain(cwd);
        const made = await run(cwd, ['--read', r, '--write', w, '--workspace', ws, 'write_file', '{"path":"in-ws.txt","content":"1"}']);
        expect(made.code).toBe(0);
        expect(fs.existsSync(path.join(ws, 'in-ws.txt'))).toBe(true);
    });

    it('relative directory options resolve against the current directory', async () => {
        const cwd = tempDir('lcf-cli-cwd-');
        writeTree(cwd, { 'sub/a.txt': 'a\n' });
        const r = await run(cwd, ['--read', 'sub', 'read_file', '{"paths":["a.txt"]}']);
        expect(r.code).toBe(0);
        expect(r.stdout).toContain(path.join(cwd, 'sub', 'a.txt'));
    });

    it('with no directory named, the current directory is the writable workspace', async () => {
        const cwd = tempDir('lcf-cli-cwd-');
        // The implicit workspace is the process's current directory (DirectoryConfiguration's environment form).
        const before = process.cwd();
        process.chdir(cwd);
        let r: Captured;
        try {
            r = await run(cwd, ['write_file', '{"path":"n.txt","content":"n"}']);
        } finally {
            process.chdir(before);
        }
        expect(r.code, r.stderr).toBe(0);
        expect(fs.readFileSync(path.join(cwd, 'n.txt'), 'utf8')).toBe('n');
    });
});

describe('start-up errors', () => {
    it.each([
        ['--workspace', 'missing'],
        ['--write', 'missing'],
        ['--read', 'missing'],
    ])('%s with a directory that does not exist is a usage error', async (flag) => {
        const cwd = tempDir('lcf-cli-cwd-');
        const r = await run(cwd, [flag, path.join(cwd, 'nope'), 'file_access_info']);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(`${flag} ${path.join(cwd, 'nope')}: no such directory`);
        expect(r.stdout).toBe('');
    });

    it.each(['--workspace', '--write', '--read'])('%s with a file is a usage error', async (flag) => {
        const cwd = tempDir('lcf-cli-cwd-');
        writeTree(cwd, { 'f.txt': 'f' });
        const r = await run(cwd, [flag, 'f.txt', 'mcp']);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(`${flag} f.txt: not a directory`);
    });

    it('an empty directory option is a usage error', async () => {
        const cwd = tempDir('lcf-cli-cwd-');
        const r = await run(cwd, ['--read', '', 'tools']);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('--read needs a directory');
    });

    it('extra positional arguments are usage errors, and nothing is written', async () => {
        const cwd = tempDir('lcf-cli-cwd-');
        const tool = await run(cwd, ['write_file', '{"path":"a.txt","content":"a"}', 'extra']);
        expect(tool.code).toBe(2);
        expect(tool.stderr).toContain('Unexpected argument: "extra"');
        expect(fs.existsSync(path.join(cwd, 'a.txt'))).toBe(false);
        for (const command of ['mcp', 'tools']) {
            const r = await run(cwd, [command, 'x', 'y']);
            expect(r.code).toBe(2);
            expect(r.stderr).toContain(`Unexpected arguments: "x" "y". ${command} takes no arguments.`);
        }
    });

    it('an unknown option and --roots outside mcp are usage errors', async () => {
        const cwd = tempDir('lcf-cli-cwd-');
        expect((await run(cwd, ['--wirte', cwd, 'tools'])).code).toBe(2);
        const roots = await run(cwd, ['--roots', 'tools']);
        expect(roots.code).toBe(2);
        expect(roots.stderr).toContain('--roots applies to the mcp command only');
    });

    it('parseCommandLine throws UsageError, naming the problem', () => {
        expect(() => parseCommandLine(['read_file', '{}', '{}'])).toThrow(UsageError);
        expect(parseCommandLine(['--read', 'a', '--read', 'b', 'mcp', '--roots'])).toEqual({
            options: { read: ['a', 'b'], roots: true, help: false },
            command: 'mcp',
            rawArgs: undefined,
        });
    });

    it('--help prints the usage and exits 0; no command prints it and exits 2', async () => {
        const cwd = tempDir('lcf-cli-cwd-');
        const help = await run(cwd, ['--help']);
        expect(help.code).toBe(0);
        expect(help.stdout).toContain('exactly the directories named');
        // Every variable that turns the index or navigation on or off is named (the others: "see README").
        const source = ['search-index/search-index.ts', 'package/package.ts', 'hosts/cli/main.ts'].map((f) => fs.readFileSync(path.join(import.meta.dirname, '../../../src', f), 'utf8')).join('');
        const vars = new Set(source.match(/LLM_CHAT_FS_(INDEX\w*|NAVIGATION)/g));
        expect([...vars].sort()).toEqual(['LLM_CHAT_FS_INDEX', 'LLM_CHAT_FS_INDEX_DIR', 'LLM_CHAT_FS_INDEX_SYMBOLS', 'LLM_CHAT_FS_NAVIGATION']);
        for (const v of vars) expect(help.stdout).toMatch(new RegExp(`\\b${v}\\b`));
        expect((await run(cwd, [])).code).toBe(2);
    });
});
