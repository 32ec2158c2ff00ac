import { describe, expect, it } from 'vitest';
import { FIRST_BUDGET, LARGE_BUDGET, MAX_JOBS_PER_TASK, NEAR_FIRST_UNITS, NEAR_HITS, ONE_THREAD_UNITS, plannedShape, plannedSlots, SMALL_BUDGET, taskShape } from '../../../src/search/task-shape.js';

describe('taskShape', () => {
    it('gives the first task of a search a tiny budget, whatever it needs', () => {
        expect(taskShape(1, 2, 2, 1e9, true)).toEqual({ jobs: 1, budget: FIRST_BUDGET });
        expect(taskShape(1, 2, 2, 50, true)).toEqual({ jobs: 1, budget: FIRST_BUDGET });
        expect(FIRST_BUDGET).toBeLessThan(SMALL_BUDGET);
    });

    it('spreads a long queue over the slots in large tasks, at most MAX_JOBS_PER_TASK jobs each', () => {
        expect(taskShape(10, 2, 2, 1e9, false)).toEqual({ jobs: 5, budget: LARGE_BUDGET });
        expect(taskShape(1000, 2, 2, 1e9, false)).toEqual({ jobs: MAX_JOBS_PER_TASK, budget: LARGE_BUDGET });
    });

    it('keeps tasks small when the queue runs short, so the walk spreads', () => {
        // 3 pending, 2 slots: the task takes 2, leaving 1 (fewer than the threads).
        expect(taskShape(3, 2, 2, 1e9, false)).toEqual({ jobs: 2, budget: SMALL_BUDGET });
        expect(taskShape(1, 2, 2, 1e9, false)).toEqual({ jobs: 1, budget: SMALL_BUDGET });
    });

    it('hands out one job per small task while few hits are needed (a small max_results)', () => {
        expect(taskShape(1000, 2, 2, 50, false)).toEqual({ jobs: 1, budget: SMALL_BUDGET });
        expect(taskShape(1000, 2, 2, NEAR_HITS, false)).toEqual({ jobs: 1, budget: SMALL_BUDGET });
        expect(taskShape(1000, 2, 2, NEAR_HITS + 1, false)).toEqual({ jobs: MAX_JOBS_PER_TASK, budget: LARGE_BUDGET });
    });
});

describe('plannedShape', () => {
    it('shares the known jobs evenly among the free slots, with the large budget, at most MAX_JOBS_PER_TASK each', () => {
        expect(plannedShape(23, 2)).toEqual({ jobs: 12, budget: LARGE_BUDGET });
        expect(plannedShape(11, 1)).toEqual({ jobs: 11, budget: LARGE_BUDGET });
        expect(plannedShape(1, 2)).toEqual({ jobs: 1, budget: LARGE_BUDGET });
        expect(plannedShape(10_000, 2).jobs).toBe(MAX_JOBS_PER_TASK);
        // Never a task of no job, whatever the count of free slots said.
        expect(plannedShape(5, 0).jobs).toBe(5);
    });
});

describe('threads of a planned part', () => {
    it('gives a part of known small work one thread, a larger or unknown one every slot', () => {
        expect(plannedSlots(0, 4)).toBe(1);
        expect(plannedSlots(ONE_THREAD_UNITS, 2)).toBe(1);
        expect(plannedSlots(ONE_THREAD_UNITS + 1, 2)).toBe(2);
        expect(plannedSlots(Number.POSITIVE_INFINITY, 3)).toBe(3);
        expect(plannedSlots(undefined, 2)).toBe(2);
        expect(plannedSlots(Number.NaN, 2)).toBe(2);
    });

    it('gives the first part of a search needing few hits one thread up to more work, still every slot past it or unknown', () => {
        expect(NEAR_FIRST_UNITS).toBeGreaterThan(ONE_THREAD_UNITS);
        expect(plannedSlots(ONE_THREAD_UNITS + 1, 2, true)).toBe(1);
        expect(plannedSlots(NEAR_FIRST_UNITS, 2, true)).toBe(1);
        expect(plannedSlots(NEAR_FIRST_UNITS + 1, 2, true)).toBe(2);
        expect(plannedSlots(Number.POSITIVE_INFINITY, 3, true)).toBe(3);
        expect(plannedSlots(undefined, 2, true)).toBe(2);
        expect(plannedSlots(Number.NaN, 2, true)).toBe(2);
    });
});
