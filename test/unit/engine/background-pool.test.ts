/**
 * The background pool (src/engine/background-pool.ts): one set of threads for the index's builds,
 * merges and listings, reused from task to task and caller to caller; every task runs at the
 * background priority; a caller's stop ends its own tasks only. Checked on real threads running
 * the pool's bundled worker code.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { afterAll, afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { BACKGROUND_NICE, BackgroundTasks, endIdleThreads, setBackgroundIdleMs, setOwnThreadsIdleMs, SHARED_YOUNG_GENERATION_MB } from '../../../src/engine/background-pool.js';
import type { IndexWalkResult } from '../../../src/search-index/shared/protocol.js';
import { tempDir, until, writeTree } from '../../support/helpers.js';
import { OWN_THREADS_IDLE_MS, ownThreadsEndWithCaller } from '../../support/own-threads.js';

const LINUX = process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64');

/** Counts the worker threads the process starts while the test runs. */
let started = 0;
const onWorker = (_w: Worker): void => {
    started++;
};
process.on('worker', onWorker);
afterEach(() => {
    started = 0;
});
afterAll(() => {
    process.off('worker', onWorker);
});

function walkTask(root: string): object {
    return { op: 'index-walk', root, skipDirs: [], maxEntries: 1000 };
}

/** Nice value and scheduling policy of each thread of this process, by thread id. */
function threadPriorities(): Map<string, { nice: number; policy: number }> {
    const out = new Map<string, { nice: number; policy: number }>();
    for (const tid of fs.readdirSync('/proc/self/task')) {
        try {
            const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
            const nice = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
            const policy = Number(/^policy\s*:\s*(\d+)$/m.exec(fs.readFileSync(`/proc/self/task/${tid}/sched`, 'utf8'))?.[1]);
            out.set(tid, { nice, policy });
        } catch {
            // the thread exited meanwhile
        }
    }
    return out;
}

describe('background pool', () => {
    it('takes an idle time of 0 ms or more, finite, and nothing else', () => {
        for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => setBackgroundIdleMs(bad)).toThrow(/^Invalid background idle time: .*; expected a finite number of milliseconds, at least 0\.$/);
        // What the test setup set (hooks.setup.ts) stays.
        expect(() => setBackgroundIdleMs(30_000)).not.toThrow();
    });

    it('runs the tasks of one caller after another on the threads the first one started', async () => {
        const root = tempDir('lcf-bg-pool-');
        writeTree(root, { 'a/b.txt': 'x\n', 'c.txt': 'y\n' });
        const first = (await new BackgroundTasks(1).run(walkTask(root))) as IndexWalkResult;
        expect(first.ok).toBe(true);
        const afterFirst = started;
        // The next tasks, of this caller and of others, come while the thread is idle: no new thread.
        const again = new BackgroundTasks(1);
        for (let i = 0; i < 3; i++) expect(((await again.run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
        expect(((await new BackgroundTasks(1).run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
        expect(started).toBe(afterFirst);
        expect(afterFirst).toBeLessThanOrEqual(1);
    });

    it('ends the idle shared threads on request, never one with a task asked of it, and keeps them when the process asked for longer idle times', async () => {
        const root = tempDir('lcf-bg-pool-');
        writeTree(root, { 'c.txt': 'y\n' });
        const workers: Worker[] = [];
        const collect = (w: Worker): void => void workers.push(w);
        process.on('worker', collect);
        onTestFinished(() => {
            process.off('worker', collect);
            setBackgroundIdleMs(30_000);
        });
        // The idle time the setup set (30 s, above the default): nothing ends.
        expect(((await new BackgroundTasks(1).run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
        const kept = started;
        endIdleThreads();
        expect(((await new BackgroundTasks(1).run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
        expect(started).toBe(kept);

        setBackgroundIdleMs(2_000);
        endIdleThreads();
        expect(((await new BackgroundTasks(1).run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
        expect(started).toBe(kept + 1);
        const idle = workers.at(-1)!;
        expect(idle.threadId).not.toBe(-1);
        // A task asked of the pool (queued or running) keeps its threads; it finishes on them.
        const running = new BackgroundTasks(1).run(walkTask(root));
        endIdleThreads();
        expect(((await running) as IndexWalkResult).ok).toBe(true);
        expect(started).toBe(kept + 1);
        // Idle now: ended at once, and the next task starts a thread anew.
        endIdleThreads();
        await once(idle, 'exit');
        expect(((await new BackgroundTasks(1).run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
        expect(started).toBe(kept + 2);
    });

    it.skipIf(!LINUX)('runs every task at the background nice value under SCHED_IDLE, a task that names none too', async () => {
        const root = tempDir('lcf-bg-pool-');
        writeTree(root, { 'c.txt': 'y\n' });
        const before = threadPriorities();
        const ownNice = before.get(String(process.pid))?.nice;
        expect(((await new BackgroundTasks(1).run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
        const lowered = [...threadPriorities()].filter(([, p]) => p.nice >= BACKGROUND_NICE && p.policy === 5);
        expect(lowered.length).toBeGreaterThanOrEqual(1);
        expect(BACKGROUND_NICE).toBe(10);
        // The test's own thread keeps its priority.
        expect(threadPriorities().get(String(process.pid))?.nice).toBe(ownNice);
    });

    it.skipIf(!LINUX)('runs a task asked to share the CPU with searches at their nice value, not under SCHED_IDLE', async () => {
        const root = tempDir('lcf-bg-pool-');
        writeTree(root, { 'c.txt': 'y\n' });
        expect(((await new BackgroundTasks(1).run(walkTask(root), { sharedNice: 7 })) as IndexWalkResult).ok).toBe(true);
        // A thread of the fair pool took nice 7 and kept the usual policy (SCHED_OTHER, 0).
        const shared = [...threadPriorities()].filter(([, p]) => p.nice === 7);
        expect(shared.length).toBeGreaterThanOrEqual(1);
        expect(shared.every(([, p]) => p.policy === 0)).toBe(true);
        // The idle pool's tasks still run under SCHED_IDLE after it.
        expect(((await new BackgroundTasks(1).run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
        expect([...threadPriorities()].some(([, p]) => p.nice >= BACKGROUND_NICE && p.policy === 5)).toBe(true);
    });

    it("stops one caller's tasks, queued or running, and lets another caller's tasks finish", async () => {
        const root = tempDir('lcf-bg-pool-');
        writeTree(root, Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`d${i % 10}/f${i}.txt`, `${i}\n`])));
        const stopped = new BackgroundTasks(2);
        const other = new BackgroundTasks(2);
        const mine = [stopped.run(walkTask(root)), stopped.run(walkTask(root)), stopped.run(walkTask(root))];
        const theirs = other.run(walkTask(root));
        await stopped.stop();
        for (const p of mine) await expect(p).rejects.toMatchObject({ name: 'AbortError' });
        // After its stop, a caller's new task is refused at once.
        await expect(stopped.run(walkTask(root))).rejects.toMatchObject({ name: 'AbortError' });
        // A second stop does nothing.
        await stopped.stop();
        const r = (await theirs) as IndexWalkResult;
        expect(r.ok).toBe(true);
        expect(((await other.run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
    });

    it('passes a failing task\'s result back, and the thread takes the next task', async () => {
        const tasks = new BackgroundTasks(1);
        const missing = (await tasks.run(walkTask(`${tempDir('lcf-bg-pool-')}/none`))) as IndexWalkResult;
        expect(missing.ok).toBe(false);
        const root = tempDir('lcf-bg-pool-');
        writeTree(root, { 'c.txt': 'y\n' });
        expect(((await tasks.run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
    });

    it('gives a caller its own threads on request, ended by close (a shared thread never is)', async () => {
        ownThreadsEndWithCaller();
        const root = tempDir('lcf-bg-pool-');
        writeTree(root, { 'a.txt': 'x\n' });
        const exited: number[] = [];
        const own = new BackgroundTasks(1, true);
        const seen = (w: Worker): void => void w.once('exit', (code) => exited.push(code));
        process.on('worker', seen);
        try {
            expect(((await own.run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
            expect(started).toBe(1);
            await own.close();
            expect(exited).toHaveLength(1);
            // Closing the shared pool's caller ends nothing.
            const shared = new BackgroundTasks(1);
            expect(((await shared.run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
            await shared.close();
            expect(((await shared.run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
            expect(exited).toHaveLength(1);
        } finally {
            process.off('worker', seen);
        }
    });

    it("keeps the shared threads' young generation small, and a caller's own threads at V8's default unless asked", async () => {
        ownThreadsEndWithCaller();
        const root = tempDir('lcf-bg-pool-');
        writeTree(root, { 'a.txt': 'x\n' });
        const seen: Worker[] = [];
        const onStart = (w: Worker): void => void seen.push(w);
        process.on('worker', onStart);
        try {
            // Room for more threads than the earlier tests asked for: a new shared pool, a new thread.
            expect(((await new BackgroundTasks(5).run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
            expect(seen).toHaveLength(1);
            expect(seen[0]!.resourceLimits?.maxYoungGenerationSizeMb).toBe(SHARED_YOUNG_GENERATION_MB);
            const own = new BackgroundTasks(1, true);
            expect(((await own.run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
            expect(seen).toHaveLength(2);
            expect(seen[1]!.resourceLimits?.maxYoungGenerationSizeMb).toBeGreaterThan(SHARED_YOUNG_GENERATION_MB);
            await own.close();
            // Own threads with a young generation asked for (the merge's).
            const small = new BackgroundTasks(1, true, { youngMb: SHARED_YOUNG_GENERATION_MB });
            expect(((await small.run(walkTask(root))) as IndexWalkResult).ok).toBe(true);
            expect(seen).toHaveLength(3);
            expect(seen[2]!.resourceLimits?.maxYoungGenerationSizeMb).toBe(SHARED_YOUNG_GENERATION_MB);
            await small.close();
        } finally {
            process.off('worker', onStart);
        }
    });
    it("takes an own threads' idle time of 0 ms or more, finite, and nothing else", () => {
        for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => setOwnThreadsIdleMs(bad)).toThrow(/^Invalid own threads' idle time: .*; expected a finite number of milliseconds, at least 0\.$/);
        expect(() => setOwnThreadsIdleMs(OWN_THREADS_IDLE_MS)).not.toThrow();
    });

    // Heaps, thread counts and nice values no other caller of the fork asks for: pools that other
    // files' callers left waiting are never among those these tests count on.
    it("keeps a closed caller's own threads for the next caller alike when asked: same kind, threads, heap and priority", async () => {
        setOwnThreadsIdleMs(60_000);
        onTestFinished(() => setOwnThreadsIdleMs(OWN_THREADS_IDLE_MS));
        const root = tempDir('lcf-bg-pool-');
        writeTree(root, { 'a.txt': 'x\n' });
        const heap = { youngMb: 3 };
        const seen: Worker[] = [];
        const onStart = (w: Worker): void => void seen.push(w);
        process.on('worker', onStart);
        const ok = async (tasks: BackgroundTasks, sharedNice?: number): Promise<void> => {
            expect(((await tasks.run(walkTask(root), { sharedNice })) as IndexWalkResult).ok).toBe(true);
            await tasks.close();
        };
        try {
            await ok(new BackgroundTasks(1, true, heap));
            expect(seen).toHaveLength(1);
            // Closed, its thread waits: the next caller alike runs on it.
            expect(seen[0]!.threadId).not.toBe(-1);
            await ok(new BackgroundTasks(1, true, heap));
            expect(seen).toHaveLength(1);
            // Unlike it: another thread count, another heap, the fair kind at two nice values.
            await ok(new BackgroundTasks(3, true, heap));
            await ok(new BackgroundTasks(1, true, { youngMb: 5 }));
            await ok(new BackgroundTasks(1, true, heap), 9);
            expect(seen).toHaveLength(4);
            // A thread never raises its priority back: a fair caller at nice 8 gets one of its own, one at 9 the one at 9.
            await ok(new BackgroundTasks(1, true, heap), 8);
            expect(seen).toHaveLength(5);
            await ok(new BackgroundTasks(1, true, heap), 9);
            expect(seen).toHaveLength(5);
        } finally {
            process.off('worker', onStart);
        }
    });

    it("ends a kept caller's own threads after the wait, and at once those of a caller stopped or closed with a task running", async () => {
        setOwnThreadsIdleMs(60_000);
        onTestFinished(() => setOwnThreadsIdleMs(OWN_THREADS_IDLE_MS));
        const root = tempDir('lcf-bg-pool-');
        writeTree(root, { 'a/b.txt': 'x\n', 'c.txt': 'y\n' });
        const task = walkTask(root);
        const seen: Worker[] = [];
        const onStart = (w: Worker): void => void seen.push(w);
        process.on('worker', onStart);
        try {
            const stopped = new BackgroundTasks(1, true, { youngMb: 6 });
            expect(((await stopped.run(task)) as IndexWalkResult).ok).toBe(true);
            await stopped.stop();
            await stopped.close();
            expect(seen).toHaveLength(1);
            expect(seen[0]!.threadId).toBe(-1);
            // Closed while its task runs (counted from the call on): ended, not kept.
            const busy = new BackgroundTasks(1, true, { youngMb: 6 });
            const running = busy.run(task).catch(() => undefined);
            await busy.close();
            await running;
            expect(seen).toHaveLength(2);
            expect(seen[1]!.threadId).toBe(-1);
            // A short wait this time: the kept thread ends once it is over.
            setOwnThreadsIdleMs(1);
            const kept = new BackgroundTasks(1, true, { youngMb: 6 });
            expect(((await kept.run(task)) as IndexWalkResult).ok).toBe(true);
            await kept.close();
            expect(seen).toHaveLength(3);
            await until(() => seen[2]!.threadId === -1);
        } finally {
            process.off('worker', onStart);
        }
    });
});
