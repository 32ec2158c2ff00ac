import { defineConfig } from 'vitest/config';

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
    'test/cli-smoke.test.ts',
    // npm pack of the built package, installed into a fresh project (about a minute).
    'test/package.test.ts',
    // Real filesystems: mounts, test users, child processes, a 5,000-level tree.
    'test/integrity-writes.test.ts',
    'test/integrity-moves.test.ts',
    'test/integrity-debris.test.ts',
    'test/integrity-output.test.ts',
    'test/search-index.test.ts',
];

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
        projects: [
            { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: slow, isolate: false } },
            { extends: true, test: { name: 'slow', include: slow } },
        ],
    },
});
