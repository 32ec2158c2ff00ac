import { escapeControls, toToolError } from '../../src/errors/shared/errors.js';

/** A media task's failure as a result (thrown errors lose their class crossing threads). */
export function mediaFailure(err: unknown, shown: string): { ok: false; kind: ReturnType<typeof toToolError>['kind']; message: string } {
    const e = toToolError(err, shown);
    return { ok: false, kind: e.kind, message: escapeControls(e.message) };
}
