/**
 * Setup file of every project (vitest evaluates it for each test file, also where a fork runs
 * several files): the clean-up test/support's modules registered in cleanup.ts, after each test
 * and after each file.
 */
import { afterAll, afterEach } from 'vitest';
import { runAfterFile, runAfterTest } from './cleanup.js';

afterEach(runAfterTest);
afterAll(runAfterFile);
