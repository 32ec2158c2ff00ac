/**
 * A file's stamp vouches for its bytes only once SETTLED_MS have passed since its last change
 * (src/symbols/file-stamp.ts), by `Date.now()`. The tests of that rule run the checks that follow
 * such a wait with the clock moved ahead by as much instead of sleeping 2 s each time.
 */
import fs from 'node:fs';
import { expect, vi } from 'vitest';
import { SETTLED_MS } from '../../src/symbols/file-stamp.js';

/**
 * Runs `fn` with `Date.now()` just over SETTLED_MS ahead, as if the test had waited until `files` settled
 * (checked first, as file-stamp.ts's settled() computes it). The real clock is back when `fn` ends, so a file written then is recent again,
 * as it would be right after a real wait.
 */
export async function afterSettling<T>(files: string[], fn: () => Promise<T>): Promise<T> {
    const real = Date.now.bind(Date);
    // One millisecond more: Date.now() counts whole ones, a file's times (tmpfs's to the
    // nanosecond) may lie up to one past it.
    const ahead = vi.spyOn(Date, 'now').mockImplementation(() => real() + SETTLED_MS + 1);
    try {
        // The rule's arithmetic again, not its function, so a fault of settled() fails the test's own checks.
        for (const f of files) {
            const st = fs.statSync(f);
            expect(Date.now() - Math.max(st.mtimeMs, st.ctimeMs), `${f} settled on the clock ahead`).toBeGreaterThanOrEqual(SETTLED_MS);
        }
        return await fn();
    } finally {
        ahead.mockRestore();
    }
}
