/**
 * The built command line (`dist/src/cli.js`, built by `npm test`'s pretest and rebuilt here when
 * older than the sources) run as a subprocess, as the `llm-chat-file` bin runs: one smoke test.
 * cli.test.ts covers the commands in process.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir, writeTree } from '../support/helpers.js';
import { EXIT_CODES } from '../../src/errors/shared/errors.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(repo, 'dist/src/cli.js');

interface Run {
    code: number | null;
    stdout: string;
    stderr: string;
}

/** Runs the built CLI as a subprocess in `cwd` with a clean LLM_CHAT_FS_* environment. */
function runBuiltCli(cwd: string, args: string[], input?: string): Promise<Run> {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LLM_CHAT_FS_')));
    return new Promise((resolve) => {
        const child = execFile(process.execPath, [cli, ...args], { cwd, env: clean, timeout: 20_000 }, (err, stdout, stderr) => {
            const code = err && typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : err ? null : 0;
            resolve({ code, stdout, stderr });
        });
        if (input !== undefined) child.stdin!.end(input);
    });
}

/** Newest modification time of the TypeScript sources the build compiles. */
function newestSource(): number {
    let newest = 0;
    for (const dir of ['src', 'workers']) {
        for (const f of fs.readdirSync(path.join(repo, dir), { recursive: true, encoding: 'utf8' })) {
            if (/\.c?ts$/.test(f)) newest = Math.max(newest, fs.statSync(path.join(repo, dir, f)).mtimeMs);
        }
    }
    return newest;
}

describe('llm-chat-file as a program (built, subprocess)', () => {
    beforeAll(() => {
        // An incremental build (`pretest`), not `build`: that one empties dist/ first, under the
        // feet of the other test files that run the built package meanwhile.
        if (!fs.existsSync(cli) || fs.statSync(cli).mtimeMs < newestSource()) execFileSync('npm', ['run', 'pretest'], { cwd: repo, stdio: 'ignore' });
    }, 120_000);

    it('ends quietly with exit 0 when its reader closes the pipe early (| head)', async () => {
        const dir = tempDir();
        // About 200 KB of output: more than a pipe holds, so the write meets the closed pipe.
        writeTree(dir, { 'big.txt': Array.from({ length: 4000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n') });
        const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LLM_CHAT_FS_')));
        const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
            execFile('bash', ['-c', `set -o pipefail; "${process.execPath}" "${cli}" read_file '{"paths":["big.txt"]}' | head -c 100`], { cwd: dir, env: { ...clean, LLM_CHAT_FS_MAX_CHARS_PER_FILE: '1000000', LLM_CHAT_FS_MAX_CHARS_PER_CALL: '1000000' }, timeout: 20_000 }, (err, stdout, stderr) => {
                resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr });
            });
        });
        expect(r.stdout).toHaveLength(100);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
    });

    it('reads a file and exits 0; a missing file exits with the not_found code; arguments from standard input; no command exits 2', async () => {
        const dir = tempDir();
        writeTree(dir, { 'hello.txt': 'hello\nworld\n' });
        const r = await runBuiltCli(dir, ['read_file', '{"paths":["hello.txt"]}']);
        expect(r).toEqual({ code: 0, stdout: `--- ${dir}/hello.txt (lines 1-2 of 2) ---\nhello\nworld\n\n`, stderr: '' });
        const missing = await runBuiltCli(dir, ['read_file', '-'], '{"paths":["missing.txt"]}');
        expect(missing.code).toBe(EXIT_CODES.not_found);
        expect(missing.stdout).toContain(`File not found: ENOENT: no such file or directory, stat '${dir}/missing.txt'`);
        const usage = await runBuiltCli(dir, []);
        expect(usage.code).toBe(2);
        expect(usage.stdout).toContain('Usage:');
    });
});
