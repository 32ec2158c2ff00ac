/**
 * Resident memory of the whole process (host and its worker threads) while an index builds,
 * sampled every {@link RssPhases.EVERY_MS} and kept per phase: the peak of each phase, and the
 * host's own heap and array buffers at that peak (what is left is the threads' heaps, their
 * array buffers and C memory). A sample is one read of /proc/self/statm through
 * `process.memoryUsage.rss()`; the host's breakdown is read only when a new peak is seen.
 */
export class RssPhases {
    static readonly EVERY_MS = 100;
    readonly #timer: NodeJS.Timeout;
    #phase = 'start';
    readonly #peaks = new Map<string, { rss: number; heap: number; buffers: number }>();

    constructor() {
        this.#timer = setInterval(() => this.sample(), RssPhases.EVERY_MS);
    }

    /** Samples now, then counts the next samples under `phase`. */
    set phase(phase: string) {
        if (phase === this.#phase) return;
        this.sample();
        this.#phase = phase;
    }

    sample(): void {
        const rss = process.memoryUsage.rss();
        const peak = this.#peaks.get(this.#phase);
        if (peak !== undefined && peak.rss >= rss) return;
        const m = process.memoryUsage();
        this.#peaks.set(this.#phase, { rss, heap: m.heapUsed, buffers: m.arrayBuffers });
    }

    stop(): void {
        this.sample();
        clearInterval(this.#timer);
    }

    /** The peak over all phases, in bytes. */
    get peak(): number {
        return Math.max(0, ...[...this.#peaks.values()].map((p) => p.rss));
    }

    /** One line: each phase's peak RSS, with the host's heap and array buffers at it. */
    summary(): string {
        const mb = (b: number): string => `${(b / 2 ** 20).toFixed(0)} MB`;
        const parts = [...this.#peaks].map(([phase, p]) => `${phase} ${mb(p.rss)} (host heap ${mb(p.heap)}, host array buffers ${mb(p.buffers)})`);
        return `peak ${mb(this.peak)}; by phase: ${parts.join(', ')}`;
    }
}
