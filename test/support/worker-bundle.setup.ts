/**
 * vitest global setup: bundles the worker pool's code from the source tree
 * (`workers/pool-worker.ts` and everything it imports) into one CommonJS file with esbuild, at
 * the start of every run, and names it in `LLM_CHAT_FILE_TEST_WORKER` for the engine run from
 * source (see `workerEntry` in src/engine/pool.ts). Worker threads then start on plain
 * JavaScript, as fast as the built package's, yet never on a stale build. In watch mode nothing
 * is bundled: the pool loads the TypeScript through tsx, so every change is seen at once.
 */
import { build } from 'esbuild';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { TestProject } from 'vitest/node';

export const WORKER_BUNDLE_VAR = 'LLM_CHAT_FILE_TEST_WORKER';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
    // Both projects run this; the first one bundles.
    if (project.config.watch || process.env[WORKER_BUNDLE_VAR] !== undefined) return undefined;
    const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'lcf-test-workers-'));
    const outfile = path.join(dir, 'pool-worker.cjs');
    const result = await build({
        entryPoints: [path.join(repo, 'workers', 'pool-worker.ts')],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        // Start-up: every pool thread (hundreds in a run) parses the bundle. A linked map and no
        // comments or indentation take a third off each start, against an inline map (which makes
        // the file three times larger and its one non-ASCII comment a two-byte source); stack
        // traces still map to the sources with --enable-source-maps.
        sourcemap: 'linked',
        minifyWhitespace: true,
        metafile: true,
        logLevel: 'error',
        // sharp (native) and unpdf, loaded through require on first use (workers/media/libraries.ts); a native addon, loaded only by writes on the main thread (src/fs/secure.ts), never by a
        // worker; and koffi (workers/fs/held-at.ts), whose loader finds its binary beside its own files.
        external: ['@napi-rs/xattr', '@napi-rs/canvas', 'koffi', 'web-tree-sitter', 'sharp', 'unpdf'],
        // held-at.ts loads koffi with createRequire(import.meta.url), which a CommonJS bundle has
        // not: resolved from the source file, as the module run unbundled resolves it.
        define: { 'import.meta.url': JSON.stringify(pathToFileURL(path.join(repo, 'workers', 'fs', 'held-at.ts')).href) },
    });
    // What went into the bundle, for worker-source.test.ts.
    fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(result.metafile));
    process.env[WORKER_BUNDLE_VAR] = outfile;
    return () => {
        delete process.env[WORKER_BUNDLE_VAR];
        fs.rmSync(dir, { recursive: true, force: true });
    };
}
