/**
 * The pool's operations by name (workers/operations.ts): every task kind the host sends has an
 * operation of its name, and a name that is not one (a prototype property included) is a failure
 * result, never a throw.
 */
import { describe, expect, it } from 'vitest';
import handle from '../../../workers/pool-worker.js';
import { OPERATIONS } from '../../../workers/operations.js';

describe('worker operations', () => {
    it('are registered under the op names the host sends', () => {
        expect(Object.keys(OPERATIONS).sort()).toEqual(['image', 'index-check', 'index-chunk', 'index-merge', 'index-walk', 'mentions', 'notebook', 'pdf', 'read', 'search', 'search-session', 'symbols', 'symbols-merge', 'symbols-part']);
    });

    it('answer an unknown op, or a prototype property, with a failure result', async () => {
        for (const op of ['nope', 'toString', '__proto__', 'constructor']) {
            expect(await handle({ op })).toEqual({ ok: false, code: 'unknown_op', message: `Unknown task: ${JSON.stringify(op)}` });
        }
    });

    it('turn a throw inside an operation into a failure result', async () => {
        const r = await handle({ op: 'read' } as never);
        expect(r.ok).toBe(false);
    });
});
