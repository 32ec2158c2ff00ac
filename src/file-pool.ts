import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { FileConfiguration } from './config/configuration.js';
import { errorCode, errors } from './errors.js';

/** What the pool remembers of a file's content at the last read or write. */
interface Seen {
    /** SHA-256 of the bytes, so any change is caught even with the same size and mtime. */
    hash: string;
}

/** SHA-256 hex digest of `bytes`. */
export function contentHash(bytes: Uint8Array): string {
    return createHash('sha256').update(bytes).digest('hex');
}

/**
 * In-memory read-before-write tracker, keyed by real path.
 *
 * `read_file` records what it read; write and edit tools verify that the file still holds that
 * content before changing it and record what they wrote, so the same tool can write again
 * without an intervening read. Content, not modification time, decides: a change that keeps the
 * size and restores the mtime is caught, a mere `touch` is not a change. Edit tools' own reads
 * do not count as reads. Disabled (`requireReadBeforeWrite: false`), every check passes.
 */
export class FilePool {
    readonly enabled: boolean;
    readonly #seen = new Map<string, Seen>();

    constructor(config: FileConfiguration = new FileConfiguration()) {
        this.enabled = config.requireReadBeforeWrite;
    }

    /** Records that `path` was read with content `bytes` (read from disk when omitted). */
    async recordRead(path: string, bytes?: Uint8Array): Promise<void> {
        if (!this.enabled) return;
        this.#seen.set(path, { hash: contentHash(bytes ?? (await fs.readFile(path))) });
    }

    /** Records content hash `hash` for `path` directly (used by bulk reads that hashed in a worker). */
    recordHash(path: string, hash: string): void {
        if (this.enabled) this.#seen.set(path, { hash });
    }

    /**
     * Checks that `path` may be written: it was read and still holds what was read.
     * @param current - the file's current bytes, or `null` when it does not exist; read when omitted.
     * @param allowNew - a file that does not exist may be created unread (write_file).
     * @returns an error message to show, or `null` when the write may proceed.
     */
    async verifyWrite(path: string, options: { current?: Uint8Array | null; allowNew?: boolean; shownPath?: string } = {}): Promise<string | null> {
        if (!this.enabled) return null;
        const shown = options.shownPath ?? path;
        let current = options.current;
        if (current === undefined) {
            try {
                current = await fs.readFile(path);
            } catch (err) {
                if (errorCode(err) !== 'ENOENT') throw err;
                current = null;
            }
        }
        if (current === null) return options.allowNew ? null : errors.notRead(shown).message;
        const seen = this.#seen.get(path);
        if (!seen) return errors.notRead(shown).message;
        if (seen.hash !== contentHash(current)) return errors.changedSinceRead(shown).message;
        return null;
    }

    /** Records that the tool itself wrote `bytes` to `path`. */
    recordWrite(path: string, bytes: Uint8Array): void {
        if (this.enabled) this.#seen.set(path, { hash: contentHash(bytes) });
    }

    /** Forgets `path` (after a delete or a move away). */
    forget(path: string): void {
        this.#seen.delete(path);
    }

    /** True when `path` has a recorded read or write. */
    has(path: string): boolean {
        return this.#seen.has(path);
    }
}

const locks = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` while holding the process-wide lock of `key` (a real path): edits of one file run
 * one after another, so two parallel edits never both succeed with one lost.
 */
export async function withPathLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = locks.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const chained = previous.then(() => mine);
    locks.set(key, chained);
    await previous.catch(() => undefined);
    try {
        return await fn();
    } finally {
        release();
        if (locks.get(key) === chained) locks.delete(key);
    }
}
