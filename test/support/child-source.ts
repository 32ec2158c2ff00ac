/**
 * How a child process of a test loads the package: from the build in dist/ when it is up to date
 * with the sources (`npm test`'s pretest builds it; every .ts and .cts file of src/ and workers/
 * has its output there, written after the source's last change), else from the sources through
 * tsx (a run without that build, or a source changed since). Either way never a possibly stale
 * build. Start-up: a child loading the package through tsx takes about 1.5 s of CPU, from dist/
 * about 0.6 s, and a run starts some twenty such children.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The output in dist/ of `rel`, a source file's path in the repository (`src/cli.ts`). */
function builtPath(rel: string): string {
    return path.join(repo, 'dist', rel.replace(/\.cts$/, '.cjs').replace(/\.ts$/, '.js'));
}

/** Whether every source file of src/ and workers/ has its output in dist/, no older than itself. */
function buildIsFresh(): boolean {
    for (const dir of ['src', 'workers']) {
        for (const f of fs.readdirSync(path.join(repo, dir), { recursive: true, encoding: 'utf8' })) {
            if (!/\.c?ts$/.test(f) || f.endsWith('.d.ts') || f.endsWith('.d.cts')) continue;
            const rel = path.join(dir, f);
            const out = fs.statSync(builtPath(rel), { throwIfNoEntry: false });
            if (!out || out.mtimeMs < fs.statSync(path.join(repo, rel)).mtimeMs) return false;
        }
    }
    return true;
}

/** True when child processes run the build in dist/ (see the file comment). */
export const CHILD_BUILT = buildIsFresh();

/** Node arguments a child process needs to load {@link childModule}s: tsx's loader (by URL) for the sources, none for the build. */
export const CHILD_NODE_ARGS: readonly string[] = CHILD_BUILT ? [] : ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href];

/** The absolute path a child process imports or runs for `rel` (`src/index.ts`, `src/cli.ts`): its build or the source. */
export function childModule(rel: string): string {
    return CHILD_BUILT ? builtPath(rel) : path.join(repo, rel);
}

/** The repository's root, where child scripts run by default. */
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs `script` (an ES module; import the package through {@link childModule}) in a fresh Node process. */
export async function runChildScript(script: string, opts: { env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, [...CHILD_NODE_ARGS, '--input-type=module', '-e', script], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], ...(opts.env && { env: opts.env }) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { code, stdout, stderr };
}

/**
 * An environment in which `require(name)` throws `message` in a child process and its worker
 * threads (a hook in `dir`, preloaded through NODE_OPTIONS), as when an optional package is missing.
 */
export function envWithout(dir: string, name: string, message: string): NodeJS.ProcessEnv {
    const hook = path.join(dir, `without-${name.replace(/\W/g, '-')}.cjs`);
    fs.writeFileSync(hook, `const M = require('node:module'); const load = M._load; M._load = function (req, ...rest) { if (req === ${JSON.stringify(name)}) throw new Error(${JSON.stringify(message)}); return load.call(this, req, ...rest); };\n`);
    return { ...process.env, NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --require ${hook}` };
}
