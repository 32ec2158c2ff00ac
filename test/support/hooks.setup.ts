/**
 * Setup file of every project (vitest evaluates it for each test file, also where a fork runs
 * several files): the clean-up test/support's modules registered in cleanup.ts, after each test
 * and after each file.
 */
import { afterAll, afterEach } from 'vitest';
import { setBackgroundIdleMs, setOwnThreadsIdleMs } from '../../src/engine/background-pool.js';
import { runAfterFile, runAfterTest } from './cleanup.js';
import { logCpuPerFile } from './cpu-log.js';
import { diskTmpdirForDiskFolders } from './disk-tmp.js';
import { OWN_THREADS_IDLE_MS } from './own-threads.js';

// First, so its afterAll runs last (after hooks run in reverse order) and counts the clean-up.
logCpuPerFile();
afterEach(runAfterTest);
afterAll(runAfterFile);
// Before the file's own beforeAll: its temporary directories on disk where it tests a disk's behaviour.
diskTmpdirForDiskFolders();

// The index tests build one index after another, seconds apart: background threads kept for
// 30 s (not 2) serve the next build instead of a new thread that loads the workers' code and
// its grammars again. Pools made from now on; the fork's are made by its test files.
setBackgroundIdleMs(30_000);
// And a caller's own threads (a build's walk, a tree check, a merge), which end with it by
// default, wait as long for the next caller alike (see own-threads.ts).
setOwnThreadsIdleMs(OWN_THREADS_IDLE_MS);
