import fs from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../errors/shared/errors.js';
import { DIR_FLAGS, isHeldPath } from './shared/held.js';
import { held, heldPathOf, holdSubdirectory, type HeldDirectory } from './held-directory.js';
import { osPath } from '../print/shared/byte-names.js';

/** DirectoryCursor: depth-first walks of held directories with a bounded number of descriptors. */

/**
 * A position in a depth-first walk that holds at most two directory descriptors whatever the
 * depth (one while standing, two for a moment while moving), instead of one per level: a tree
 * 5,000 levels deep is walked under `ulimit -n 64`. Going down opens the child through the held
 * directory without following a link; going up opens `..` of the held directory and proves it
 * is the directory left (same device and inode), as fts(3) does, so a directory moved elsewhere
 * meanwhile stops the walk instead of sending it somewhere else.
 * Without `/proc/self/fd` (or with symlink resolution off) it walks plain paths, holding nothing.
 */
export class DirectoryCursor {
    #dir: HeldDirectory;
    readonly #held: boolean;
    /** Device and inode of each directory above the current one, up to where the walk started. */
    readonly #above: { dev: number; ino: number }[] = [];
    /** Device and inode of the current directory, when known. */
    #here: { dev: number; ino: number } | undefined;

    private constructor(dir: HeldDirectory) {
        this.#dir = dir;
        this.#held = isHeldPath(dir.path);
    }

    /** A cursor at `dir`; it owns `dir` from now on (closes it when it moves or closes). */
    static at(dir: HeldDirectory): DirectoryCursor {
        return new DirectoryCursor(dir);
    }

    /** The current directory's path to act through; see {@link HeldDirectory.path}. */
    get path(): string {
        return this.#dir.path;
    }

    /** `path` joined with an entry name. */
    join(name: string): string {
        return this.#dir.join(name);
    }

    /** How many levels below its start the cursor is. */
    get depth(): number {
        return this.#above.length;
    }

    /**
     * Moves into the subdirectory `name` (never through a link). `known`: its lstat, when the
     * caller has it (saves a call per level; were it stale, going back up would stop the walk).
     * @throws ToolError (outside_access, wrong_type) or the system error; the cursor stays where it was.
     */
    async descend(name: string, known?: { dev: number; ino: number }): Promise<void> {
        if (!this.#held) {
            this.#above.push({ dev: 0, ino: 0 });
            this.#dir = held(undefined, this.#dir.join(name));
            return;
        }
        const here = this.#here ?? (await fs.stat(osPath(this.#dir.path)));
        const child = await holdSubdirectory(this.#dir, name);
        await this.#dir.close();
        this.#dir = child;
        this.#above.push({ dev: here.dev, ino: here.ino });
        this.#here = known && { dev: known.dev, ino: known.ino };
    }

    /**
     * Moves back to the parent directory.
     * @throws ToolError (io) when the directory was moved during the walk (its `..` is another directory).
     */
    async ascend(): Promise<void> {
        const expected = this.#above.pop();
        if (expected === undefined) throw new Error('DirectoryCursor.ascend above its start');
        if (!this.#held) {
            this.#dir = held(undefined, path.dirname(this.#dir.path));
            return;
        }
        // Not path.join, which would normalize the `..` away.
        const fh = await fs.open(osPath(`${this.#dir.path}/..`), DIR_FLAGS);
        const st = await fh.stat().catch(async (err: unknown) => {
            await fh.close();
            throw err;
        });
        if (st.dev !== expected.dev || st.ino !== expected.ino) {
            await fh.close();
            throw new ToolError('io', 'A directory was moved while it was being walked; the walk stopped there.');
        }
        await this.#dir.close();
        this.#dir = held(fh, heldPathOf(fh) ?? path.dirname(this.#dir.path));
        this.#here = expected;
    }

    async close(): Promise<void> {
        await this.#dir.close();
    }
}
