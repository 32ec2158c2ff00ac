import fs from 'node:fs/promises';
import { FileConfiguration } from '../config/shared/configuration.js';
import { errorCode, errors } from '../errors/shared/errors.js';
import { contentHash } from './shared/content-hash.js';
import { osPath } from '../print/shared/byte-names.js';

/** What the pool remembers of a file's content at a read or write, newest first. */
interface Seen {
    /** SHA-256 of the bytes, so any change is caught even with the same size and mtime. */
    hash: string;
    /** When it was recorded, on the pool's own clock (see {@link FilePool.mark}). */
    seq: number;
    /** The record before this one, so a call can be checked against what was known when it began. */
    previous: Seen | undefined;
}

/** Records kept per path: enough for every call still running to find the one it started from. */
const HISTORY = 16;

/**
 * In-memory read-before-write tracker, keyed by real path.
 *
 * `read_file` records what it read; write and edit tools verify that the file still holds that
 * content before changing it and record what they wrote, so the same tool can write again
 * without an intervening read. Content, not modification time, decides: a change that keeps the
 * size and restores the mtime is caught, a mere `touch` is not a change. Edit tools' own reads
 * do not count as reads. Disabled (`requireReadBeforeWrite: false`), every check passes.
 *
 * Parallel calls: a call takes a {@link mark} when it begins and is checked against what was
 * recorded as of then. Of two parallel edits based on one read, the first lands and the second
 * is refused as stale, instead of being applied to content its caller never saw (a lost update,
 * or line numbers that no longer point where the caller meant).
 */
export class FilePool {
    readonly enabled: boolean;
    readonly #seen = new Map<string, Seen>();
    #seq = 0;

    constructor(config: FileConfiguration = new FileConfiguration()) {
        this.enabled = config.requireReadBeforeWrite;
    }

    /** Records that `path` was read with content `bytes` (read from disk when omitted). */
    async recordRead(path: string, bytes?: Uint8Array): Promise<void> {
        if (!this.enabled) return;
        this.#record(path, contentHash(bytes ?? (await fs.readFile(osPath(path)))));
    }

    /** Records content hash `hash` for `path` directly (used by bulk reads that hashed in a worker). */
    recordHash(path: string, hash: string): void {
        if (this.enabled) this.#record(path, hash);
    }

    /** The pool's clock now: pass it as `since` to {@link verifyWrite} to check against what was known at this moment. */
    mark(): number {
        return this.#seq;
    }

    /**
     * Checks that `path` may be written: it was read and still holds what was read.
     * @param current - the file's current bytes, or `null` when it does not exist; read when omitted.
     * @param allowNew - a file that does not exist may be created unread (write_file).
     * @param since - a {@link mark} taken when the call began: only what was recorded by then counts
     *   (default: the latest record).
     * @returns an error message to show, or `null` when the write may proceed.
     */
    async verifyWrite(path: string, options: { current?: Uint8Array | null; allowNew?: boolean; shownPath?: string; since?: number } = {}): Promise<string | null> {
        if (!this.enabled) return null;
        const shown = options.shownPath ?? path;
        let current = options.current;
        if (current === undefined) {
            try {
                current = await fs.readFile(osPath(path));
            } catch (err) {
                if (errorCode(err) !== 'ENOENT') throw err;
                current = null;
            }
        }
        if (current === null) return options.allowNew ? null : errors.notRead(shown).message;
        let seen = this.#seen.get(path);
        if (!seen) return errors.notRead(shown).message;
        // A record made after the call began (another call's write or read) is not what this call was based on.
        if (options.since !== undefined) while (seen !== undefined && seen.seq > options.since) seen = seen.previous;
        if (seen === undefined || seen.hash !== contentHash(current)) return errors.changedSinceRead(shown).message;
        return null;
    }

    /** Records that the tool itself wrote `bytes` to `path`. */
    recordWrite(path: string, bytes: Uint8Array): void {
        if (this.enabled) this.#record(path, contentHash(bytes));
    }

    #record(path: string, hash: string): void {
        const previous = this.#seen.get(path);
        let last = previous;
        for (let kept = 2; last !== undefined && kept < HISTORY; kept++) last = last.previous;
        if (last !== undefined) last.previous = undefined;
        this.#seen.set(path, { hash, seq: ++this.#seq, previous });
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
