/**
 * The safe filesystem operations of the main thread, one module each, re-exported for the tools:
 * opening and writing files so that a path swapped for a symlink between the access check and
 * the operation cannot escape the accesses (time-of-check/time-of-use). Open flags and held
 * descriptors (`/proc/self/fd`) are held.ts's.
 */
export { entryKind, openRegularFile, readRegularFile, readRegularFileSync, type OpenedFile, type RealRoots } from './shared/safe-read.js';
export { holdDirectory, holdSubdirectory, type HeldDirectory } from './held-directory.js';
export { DirectoryCursor } from './directory-cursor.js';
export { PartialRemoval, removeTree } from './remove-tree.js';
export { writeFileSafely, type WriteOutcome } from './safe-write.js';
export { cleanStaleDebris } from './stale-debris.js';
