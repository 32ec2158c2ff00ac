import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Two projects: `unit` (`npm run test:unit`, the inner loop: no build, seconds) and `slow`
 * (worker-pool timeouts and runaway regexes, races, fuzz and property runs, subprocesses).
 * `npm test` builds and runs both. A new test file is a unit test unless listed here.
 */
const slow = [
    'test/engine.test.ts',
    'test/hardening-races.test.ts',
    'test/hardening-data.test.ts',
    'test/hardening-odd-files.test.ts',
    'test/fuzz-tools.test.ts',
    'test/property-edits.test.ts',
    'test/property-paths.test.ts',
    'test/search-entries.test.ts',
    'test/search-options.test.ts',
    'test/mcp.test.ts',
    // The MCP server as a subprocess fed raw lines, one of them 256 MiB.
    'test/mcp-protocol.test.ts',
    'test/cli-smoke.test.ts',
    // npm pack of the built package, installed into a fresh project (about a minute).
    'test/package.test.ts',
    // Real filesystems: mounts, test users, child processes, a 5,000-level tree.
    'test/integrity-writes.test.ts',
    'test/integrity-moves.test.ts',
    'test/integrity-debris.test.ts',
    'test/integrity-output.test.ts',
    'test/search-index.test.ts',
    'test/index-freshness.test.ts',
    // Index builds per case, a child process as an ordinary user.
    'test/index-faults.test.ts',
    // Child processes as an ordinary user and under a descriptor limit.
    'test/integrity-held-at.test.ts',
];

/**
 * The walk and scan tests, run a second time with `LLM_CHAT_FILE_NATIVE_AT=0` (workers/held-at.ts's
 * held-path layer in this process and in the pool's threads, which inherit the environment).
 */
const HELD_PATH_FILES = [
    'test/workers-held-at.test.ts',
    'test/workers-walk.test.ts',
    'test/scan-file.test.ts',
    'test/hardening-symlinks.test.ts',
    'test/hardening-odd-files.test.ts',
    'test/search-entries.test.ts',
];

/**
 * The files that take longest, longest first (seconds of one run on the 2-core machine, vitest's
 * JSON reporter). They start first, so the run does not end waiting on one long file started
 * last; vitest orders by the durations it cached only when a cache exists (not on a clean clone).
 */
const LONGEST_FIRST = [
    'test/hardening-races.test.ts', // 50
    'test/package.test.ts', // 30: npm pack and install, subprocesses
    'test/fuzz-tools.test.ts', // 26
    'test/engine.test.ts', // 26
    'test/search-index.test.ts', // 19
    'test/integrity-output.test.ts', // 14
    'test/index-planner.test.ts', // 13
    'test/search-entries.test.ts', // 13
    'test/hardening-data.test.ts', // 13
    'test/property-search.test.ts', // 12
    'test/search-options.test.ts', // 11
];

/** vitest's order (failed first, then cached durations, then size), the files above first in their order. */
class LongestFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
        const sorted = await super.sort(files);
        const rank = (f: TestSpecification): number => {
            const k = LONGEST_FIRST.indexOf(path.relative(f.project.config.root, f.moduleId).split(path.sep).join('/'));
            return k === -1 ? LONGEST_FIRST.length : k;
        };
        return sorted.sort((a, b) => rank(a) - rank(b));
    }
}

/** Forks (vitest --maxWorkers overrides): measured 196 s for npm test against 286 s with vitest's one fork, load 5 to 8. */
const MAX_WORKERS = 3;

export default defineConfig({
    test: {
        // Bundles the source workers for the pool at the start of each run (see the file).
        globalSetup: ['test/worker-bundle.setup.ts'],
        // Generous: the suite must pass on a loaded 2-core machine (CI runs on one). A test that
        // hangs still fails; no test asserts how fast something runs.
        testTimeout: 300_000,
        hookTimeout: 300_000,
        // Worker-thread tests share two cores with the walk pool; forks keep them isolated.
        pool: 'forks',
        // vitest's default is one fork less than the cores (a single fork on 2 cores). Many files
        // wait on subprocesses, timeouts and the disk rather than the CPU: MAX_WORKERS forks overlap them.
        maxWorkers: MAX_WORKERS,
        sequence: { sequencer: LongestFirst },
        projects: [
            { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: slow, isolate: false } },
            { extends: true, test: { name: 'slow', include: slow } },
            // The walk and scan files again with the workers' held-path layer (workers/held-at.ts):
            // its native layer (openat, getdents64) and the fallback must give the same results.
            { extends: true, test: { name: 'held-path', include: HELD_PATH_FILES, env: { LLM_CHAT_FILE_NATIVE_AT: '0' } } },
        ],
    },
});
