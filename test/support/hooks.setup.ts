/**
 * Setup file of every project (vitest evaluates it for each test file, also where a fork runs
 * several files): the clean-up test/support's modules registered in cleanup.ts, after each test
 * and after each file.
 */
import { afterAll, afterEach } from 'vitest';
import { runAfterFile, runAfterTest } from './cleanup.js';
import { logCpuPerFile } from './cpu-log.js';

// First, so its afterAll runs last (after hooks run in reverse order) and counts the clean-up.
logCpuPerFile();
afterEach(runAfterTest);
afterAll(runAfterFile);
