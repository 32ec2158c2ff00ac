import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Projects by folder. `unit` (`npm run test:unit`, the inner loop: no build, seconds) is
 * test/unit/: one concern in one process. `slow` is every other kind: test/integration/ (whole
 * searches and index builds on the pool), test/hardening/ (races, odd data, faults, hostile input),
 * test/integrity/ (real filesystems, test users), test/property/ (property and fuzz runs) and
 * test/e2e/ (the CLI, the MCP server and the packed package as subprocesses). `npm test` builds
 * and runs both; test/support/ holds what they share. A test file outside test/unit/ runs in `slow`.
 */
const UNIT = 'test/unit/**/*.test.ts';

/**
 * The walk and scan tests, run a second time with `LLM_CHAT_FILE_NATIVE_AT=0` (workers/fs/held-at.ts's
 * held-path layer in this process and in the pool's threads, which inherit the environment).
 */
const HELD_PATH_FILES = [
    'test/unit/fs/held-at.test.ts',
    'test/unit/search/walk.test.ts',
    'test/unit/search/scan-file.test.ts',
    'test/hardening/symlinks.test.ts',
    'test/hardening/odd-files.test.ts',
    'test/integration/search/search-entries.test.ts',
];

/**
 * The files that take longest, longest first within their project (see LongestFirst). `slow`
 * and `held-path`: seconds of wall time in a whole `npm test` on the 2-core machine, the mean of
 * two runs at load 4 to 8 and 7 to 14 (vitest's JSON reporter, summed over the projects a file
 * runs in), where a file's wall time follows what runs beside it (races.test.ts: 51 and 94 s).
 * They start first, so the run does not end waiting on one long file started last; vitest orders
 * by the durations it cached only when a cache exists (not on a clean clone).
 */
const LONGEST_FIRST = [
    'test/hardening/races.test.ts', // 73: a swapper process flips paths while the tools race it
    'test/integration/search-index/freshness.test.ts', // 53: bursts that overflow the inotify queue
    'test/e2e/package.test.ts', // 51: npm pack and install, subprocesses
    'test/integration/search-index/reopen.test.ts', // 35
    'test/integration/symbols/symbol-table-bounds.test.ts', // 32
    'test/integration/symbols/symbol-table.test.ts', // 30: index builds with symbols, a seeded property run against the plain parse
    'test/property/fuzz-tools.test.ts', // 27
    'test/integration/symbols/big-files.test.ts', // 21: C files over 1 MiB parsed on threads of their own
    'test/integration/search-index/merge.test.ts', // 18
    'test/integration/search/search-entries.test.ts', // 17 (in two projects)
    'test/property/search.test.ts', // 16
    'test/integration/symbols/symbol-table-big-files.test.ts', // 16
    'test/integration/search/engine-runaway.test.ts', // 15
    'test/integration/search-index/store.test.ts', // 15
    'test/integration/search-index/list-blocks.test.ts', // 14 (5,000 directories, rebuilt twice)
    'test/integration/search-index/changes.test.ts', // 13
    'test/integration/search-index/walk-parts.test.ts', // 13
    'test/hardening/odd-files.test.ts', // 13 (in two projects)
    'test/hardening/data.test.ts', // 12
    'test/integration/search-index/scan-path.test.ts', // 12
    'test/hardening/index-faults.test.ts', // 11
    'test/e2e/mcp.test.ts', // 10
    'test/property/edits.test.ts', // 10
    'test/integration/search-index/dense-lists.test.ts', // 10
    'test/integrity/output.test.ts', // 9
    'test/integration/search-index/planned-threads.test.ts', // 8
    // The unit project's largest, by seconds of CPU (LLM_CHAT_FILE_TEST_CPU_LOG, docs/testing.md)
    // in the same runs, where their wall time was mostly waiting for a core: with
    // `npm run test:unit` alone they start first, so three forks stay busy to the end on small files.
    'test/unit/symbols/c-bodies.test.ts', // 6.0: C files parsed as written and with their bodies blanked, a 2 MB one among them
    'test/unit/search/literal-set.test.ts', // 4.0: 1,000 and 120 property runs against a naive search and the oracle
    'test/unit/search-index/planner.test.ts', // 3.9: 4,000 soundness cases, every code point's case fold
    'test/unit/symbols/symbol-names.test.ts', // 3.5: random names and patterns against the plain list
    'test/unit/search/walk.test.ts', // 3.1, both projects
    'test/unit/architecture.test.ts', // 2.7: dependency-cruiser loads TypeScript and parses the sources with it
    'test/unit/search-index/merge.test.ts', // 2.0
    'test/unit/symbols/symbol-store.test.ts', // 2.0
    'test/unit/fs/held-at.test.ts', // 1.7, both projects
    'test/unit/search-index/table.test.ts', // 1.5
    'test/unit/tools/read-large.test.ts', // 1.4
    'test/unit/tools/legacy-encoding.test.ts', // 1.3
    'test/unit/tools/list-directory.test.ts', // 1.3
    'test/unit/engine/background-pool.test.ts', // 1.2
    'test/unit/tools/bad-arguments.test.ts', // 1.1
    'test/unit/text/encoding-detect.test.ts', // 1.0, its sample table made at import besides
];

/**
 * The order of the files: one project after another (slow, whose longest files start the run,
 * then held-path, then unit, whose short files end it), within a project the files above first in
 * their order, then vitest's (failed first, cached durations, size). A fork runs the next file of
 * the queue only when it is of the fork's project: otherwise vitest ends the fork and starts
 * another, which loads vitest's runtime and the modules again. With the projects interleaved in
 * the queue a run started 16 to 18 forks; one project after another, 9 (three per project).
 */
const PROJECT_ORDER = ['slow', 'held-path', 'unit'];

class LongestFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
        const sorted = await super.sort(files);
        const rank = (f: TestSpecification): number => {
            const k = LONGEST_FIRST.indexOf(path.relative(f.project.config.root, f.moduleId).split(path.sep).join('/'));
            return k === -1 ? LONGEST_FIRST.length : k;
        };
        const project = (f: TestSpecification): number => {
            const k = PROJECT_ORDER.indexOf(f.project.name);
            return k === -1 ? PROJECT_ORDER.length : k;
        };
        return sorted.sort((a, b) => project(a) - project(b) || rank(a) - rank(b));
    }
}

/**
 * Where the tests make their temporary directories (TMPDIR of the forks and of what they start):
 * `LLM_CHAT_FILE_TEST_TMPDIR` when set, else /dev/shm when it is a tmpfs the user can write, else
 * the system's. The suite writes and removes some hundred thousand small files; on the ext4 /tmp
 * of the 2-core machine (mounted with discard) that took some 13 s of a run's 47 s of system CPU
 * more than on tmpfs (docs/testing.md). The files of DISK_FOLDERS (test/support/disk-tmp.ts), which
 * test what a disk file system does, keep the system's directory (LLM_CHAT_FILE_TEST_DISK_TMPDIR).
 */
function testTmpdir(): string {
    const asked = process.env.LLM_CHAT_FILE_TEST_TMPDIR;
    if (asked !== undefined && asked !== '') return asked;
    const shm = '/dev/shm';
    try {
        fs.accessSync(shm, fs.constants.W_OK);
        // TMPFS_MAGIC (statfs(2)).
        if (fs.statfsSync(shm).type === 0x01021994) return shm;
    } catch {
        // No /dev/shm here (macOS, some containers): the system's directory.
    }
    return os.tmpdir();
}

/** Forks (vitest --maxWorkers overrides): measured 196 s for npm test against 286 s with vitest's one fork, load 5 to 8. */
const MAX_WORKERS = 3;

export default defineConfig({
    test: {
        // Bundles the source workers for the pool at the start of each run (see the file).
        globalSetup: ['test/support/worker-bundle.setup.ts'],
        // The clean-up of test/support's modules after each test and file (see cleanup.ts).
        setupFiles: ['test/support/hooks.setup.ts'],
        env: { TMPDIR: testTmpdir(), LLM_CHAT_FILE_TEST_DISK_TMPDIR: os.tmpdir() },
        // Generous: the suite must pass on a loaded 2-core machine (CI runs on one). A test that
        // hangs still fails; no test asserts how fast something runs.
        testTimeout: 300_000,
        hookTimeout: 300_000,
        // Worker-thread tests share two cores with the walk pool; forks keep them isolated.
        pool: 'forks',
        // A fork runs file after file, its modules loaded once: a fresh process per file cost about
        // 1 s of CPU each (Node, vitest's runtime, the source's modules and its dependencies'),
        // some 50 s in a run. Test files clean up what they made (support/cleanup.ts after each
        // test and file) and restore what they change in the process (environment, listeners).
        isolate: false,
        // vitest's default is one fork less than the cores (a single fork on 2 cores). Many files
        // wait on subprocesses, timeouts and the disk rather than the CPU: MAX_WORKERS forks overlap them.
        maxWorkers: MAX_WORKERS,
        sequence: { sequencer: LongestFirst },
        projects: [
            { extends: true, test: { name: 'unit', include: [UNIT] } },
            { extends: true, test: { name: 'slow', include: ['test/**/*.test.ts'], exclude: [UNIT] } },
            // The walk and scan files again with the workers' held-path layer (workers/fs/held-at.ts):
            // its native layer (openat, getdents64) and the fallback must give the same results.
            { extends: true, test: { name: 'held-path', include: HELD_PATH_FILES, env: { LLM_CHAT_FILE_NATIVE_AT: '0' } } },
        ],
    },
});
