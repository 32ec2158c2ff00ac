/**
 * Equality of long arrays of numbers (typed or plain) without vitest's deep comparison, which
 * walks each element as an object's key: over 100,000 elements that was seconds per file. The
 * same check as `expect([...actual]).toEqual([...expected])`: a difference fails with its index,
 * both lengths and the elements around it.
 */
import { expect } from 'vitest';

type Items = ArrayLike<number> | ArrayLike<bigint>;

/** Index of the first element that differs (the shorter length when one is a prefix of the other), or -1. */
export function firstDifference(actual: Items, expected: Items): number {
    const n = Math.min(actual.length, expected.length);
    // Object.is, as toEqual compares numbers: NaN equals NaN, 0 differs from -0.
    for (let i = 0; i < n; i++) if (!Object.is(actual[i], expected[i])) return i;
    return actual.length === expected.length ? -1 : n;
}

/** Asserts `actual` has exactly the elements of `expected`, in order. */
export function expectSameItems(actual: Items, expected: Items, label?: string): void {
    const at = firstDifference(actual, expected);
    if (at === -1) return;
    const around = (a: Items): unknown[] => Array.from(a as ArrayLike<unknown>).slice(Math.max(0, at - 3), at + 4);
    expect({ at, length: actual.length, around: around(actual) }, label).toEqual({ at, length: expected.length, around: around(expected) });
}
