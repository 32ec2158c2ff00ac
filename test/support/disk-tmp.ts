/**
 * The forks' TMPDIR is on tmpfs where the machine has one (vitest.config.ts, docs/testing.md). The
 * files under DISK_FOLDERS test what a disk file system does (ownership, attributes, ACLs, mounts,
 * debris after a crash, descriptors past a limit): for each of them TMPDIR is the system's
 * directory again, from its first hook to its last.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';

/** The system's temporary directory, as vitest.config.ts found it. */
export const DISK_TMPDIR_VAR = 'LLM_CHAT_FILE_TEST_DISK_TMPDIR';

/** Folders (from the repository's root) whose files make their temporary directories on disk. */
export const DISK_FOLDERS = ['test/integrity/'];

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Registers the hooks in the calling setup file: TMPDIR on disk for the files of DISK_FOLDERS. */
export function diskTmpdirForDiskFolders(): void {
    const disk = process.env[DISK_TMPDIR_VAR];
    if (disk === undefined || disk === '') return;
    let before: string | undefined;
    let moved = false;
    // vitest 4 hands the suite second; the first argument must be a destructuring pattern.
    // eslint-disable-next-line no-empty-pattern
    beforeAll(({}, suite) => {
        const rel = path.relative(repo, suite.file.filepath).split(path.sep).join('/');
        if (!DISK_FOLDERS.some((d) => rel.startsWith(d))) return;
        before = process.env.TMPDIR;
        process.env.TMPDIR = disk;
        moved = true;
    });
    afterAll(() => {
        if (!moved) return;
        if (before === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = before;
    });
}
