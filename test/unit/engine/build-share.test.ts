/**
 * A build sharing the CPU with searches (src/engine/build-share.ts): while a build's task runs on
 * the fair pool, each engine's queue runs one task fewer than its `maxThreads`, never fewer than
 * one, and gives the thread back to waiting tasks as soon as the build's last task settles.
 * Checked on the queue itself with a pool that records what it was given (the order of starts is
 * what is tested, not threads).
 */
import type { Piscina } from 'piscina';
import { describe, expect, it } from 'vitest';
import { sharingWithBuild, threadsForBuild } from '../../../src/engine/build-share.js';
import { TaskQueue } from '../../../src/engine/task-queue.js';

/** A pool whose tasks settle when the test says so. */
function recordingPool(): { pool: Piscina; started: string[]; finish: (name: string) => void } {
    const started: string[] = [];
    const ends = new Map<string, () => void>();
    const pool = {
        threads: [],
        run(task: { name: string }): Promise<string> {
            started.push(task.name);
            return new Promise((resolve) => ends.set(task.name, () => resolve(task.name)));
        },
    } as unknown as Piscina;
    return { pool, started, finish: (name) => ends.get(name)!() };
}

/** Settles a build's task on the fair pool when `end` is called (or fails it with `fail`). */
function buildTask(): { done: Promise<unknown>; end: () => void; fail: () => void } {
    let end!: () => void;
    let fail!: () => void;
    const inner = new Promise<void>((resolve, reject) => {
        end = resolve;
        fail = () => reject(new Error('build task failed'));
    });
    return { done: sharingWithBuild(() => inner).catch((err: unknown) => err), end, fail };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('a build sharing the CPU with searches', () => {
    it('runs one task fewer than maxThreads while a build task runs, and the next one when it ends', async () => {
        const { pool, started, finish } = recordingPool();
        const queue = new TaskQueue(2, 4, () => pool, () => undefined);
        const build = buildTask();
        expect(threadsForBuild()).toBe(1);
        const results = ['a', 'b', 'c'].map((name) => queue.run<string>({ name }));
        await tick();
        expect(started).toEqual(['a']);
        build.end();
        await build.done;
        await tick();
        expect(threadsForBuild()).toBe(0);
        expect(started).toEqual(['a', 'b']);
        finish('a');
        await tick();
        expect(started).toEqual(['a', 'b', 'c']);
        finish('b');
        finish('c');
        expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
    });

    it('never goes below one task, and counts a failed build task as ended', async () => {
        const { pool, started, finish } = recordingPool();
        const queue = new TaskQueue(1, 2, () => pool, () => undefined);
        const first = buildTask();
        const second = buildTask();
        const results = ['x', 'y'].map((name) => queue.run<string>({ name }));
        await tick();
        expect(started).toEqual(['x']);
        first.fail();
        expect(await first.done).toBeInstanceOf(Error);
        expect(threadsForBuild()).toBe(1);
        second.end();
        await second.done;
        expect(threadsForBuild()).toBe(0);
        finish('x');
        await tick();
        expect(started).toEqual(['x', 'y']);
        finish('y');
        expect(await Promise.all(results)).toEqual(['x', 'y']);
    });

    it('leaves every thread to the queue when no build task runs', async () => {
        const { pool, started, finish } = recordingPool();
        const queue = new TaskQueue(2, 4, () => pool, () => undefined);
        const results = ['p', 'q'].map((name) => queue.run<string>({ name }));
        await tick();
        expect(started).toEqual(['p', 'q']);
        finish('p');
        finish('q');
        expect(await Promise.all(results)).toEqual(['p', 'q']);
    });
});
