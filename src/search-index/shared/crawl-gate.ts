/**
 * What a tree check run alongside the watcher's crawl (a reopen) may compare yet: the root's
 * subdirectories whose whole subtree the crawl has watched, by name, then "all of it". The host's
 * watcher publishes (watch-inotify.ts), the check's threads wait (workers/search-index/index-check.ts).
 *
 * Why it is exact: a directory's entries are compared only after its watch is on, so a change
 * made after the comparison is reported by the watcher, and one made before is seen by it.
 *
 * One SharedArrayBuffer: a version (bumped on every publish, what waiting threads wait on), the
 * state, the count of names and bytes used, then the names (UTF-8, each ended by a NUL). A name
 * that does not fit is left out: a thread waiting for it waits for the end of the crawl instead.
 */

const VERSION = 0;
const STATE = 1;
const BYTES = 2;
const HEAD = 4;
const CAPACITY = 1 << 16;

const CRAWLING = 0;
const WATCHED = 1;
const FAILED = 2;

/** A gate with nothing watched yet. */
export function newCrawlGate(): SharedArrayBuffer {
    return new SharedArrayBuffer(HEAD * 4 + CAPACITY);
}

/** The watcher's side of a {@link newCrawlGate}. */
export class CrawlGateWriter {
    readonly #q: Int32Array;
    readonly #bytes: Uint8Array;

    constructor(sab: SharedArrayBuffer) {
        this.#q = new Int32Array(sab, 0, HEAD);
        this.#bytes = new Uint8Array(sab, HEAD * 4, CAPACITY);
    }

    /**
     * The root's subdirectory `raw` (its name's bytes) and everything below it are watched; an
     * empty `raw`: the root itself (its files). A name that is not UTF-8 is left out (the check
     * knows it by another spelling, print/shared/byte-names.ts).
     */
    watched(raw: Uint8Array): void {
        const at = this.#q[BYTES]!;
        if (Atomics.load(this.#q, STATE) !== CRAWLING || at + raw.length + 1 > CAPACITY || raw.includes(0) || !isUtf8(raw)) return;
        this.#bytes.set(raw, at);
        this.#bytes[at + raw.length] = 0;
        // The bytes before the count that tells threads to read them.
        Atomics.store(this.#q, BYTES, at + raw.length + 1);
        this.#bump();
    }

    /** The crawl ended: every directory watched (`true`), or the watcher is off (`false`: the check stops). */
    end(watching: boolean): void {
        if (Atomics.load(this.#q, STATE) !== CRAWLING) return;
        Atomics.store(this.#q, STATE, watching ? WATCHED : FAILED);
        this.#bump();
    }

    #bump(): void {
        Atomics.add(this.#q, VERSION, 1);
        Atomics.notify(this.#q, VERSION);
    }
}

function isUtf8(raw: Uint8Array): boolean {
    try {
        strict.decode(raw);
        return true;
    } catch {
        return false;
    }
}
const strict = new TextDecoder('utf-8', { fatal: true });

/** A check thread's side of a {@link newCrawlGate}. */
export class CrawlGate {
    readonly #q: Int32Array;
    readonly #bytes: Uint8Array;
    readonly #names = new Set<string>();
    #read = 0;
    readonly #decoder = new TextDecoder('utf-8', { fatal: false });

    constructor(sab: SharedArrayBuffer) {
        this.#q = new Int32Array(sab, 0, HEAD);
        this.#bytes = new Uint8Array(sab, HEAD * 4, CAPACITY);
    }

    /**
     * Waits until the root's subdirectory `name` is watched with all below it (`''`: the root
     * itself, not its subdirectories); false when the
     * watcher could not be started (nothing the check finds can be trusted then).
     */
    waitFor(name: string): boolean {
        for (;;) {
            const version = Atomics.load(this.#q, VERSION);
            const state = Atomics.load(this.#q, STATE);
            if (state !== CRAWLING) return state === WATCHED;
            this.#take();
            if (this.#names.has(name)) return true;
            // Bounded, as the check queue's waits: a thread being terminated is never left asleep.
            Atomics.wait(this.#q, VERSION, version, 100);
        }
    }

    /** Reads the names published since the last look. */
    #take(): void {
        const end = Atomics.load(this.#q, BYTES);
        while (this.#read < end) {
            const nul = this.#bytes.indexOf(0, this.#read);
            // A copy: TextDecoder does not read shared memory.
            this.#names.add(this.#decoder.decode(this.#bytes.slice(this.#read, nul)));
            this.#read = nul + 1;
        }
    }
}
