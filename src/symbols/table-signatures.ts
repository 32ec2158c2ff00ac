import type { Engine } from '../engine/engine.js';
import type { NameQuery } from './names.js';
import { parseFiles } from './parse.js';
import type { Definition } from './shared/types.js';
import type { SymbolStore } from './symbol-store.js';
import type { RealRoots } from '../fs/shared/safe-read.js';

export interface Signing {
    out: { rel: string; defs: Definition[] }[];
    /** The stored definitions still answered from the table, by their row. */
    stored: Map<Definition, number>;
    store: SymbolStore;
    realOf(k: number): string;
    query: NameQuery;
    req: { realRoots: RealRoots; maxFileSize: number; parseMs: number; deadline: number; signal: AbortSignal | undefined; wanted(d: Definition): boolean; shown: number };
    /** A file parsed again whose parse ran out of time (`late`: the call's time). */
    dropped(rel: string, late: boolean): void;
}

/**
 * Signatures of the stored definitions the call prints, read back from their files (only those:
 * reading them costs a read per file). A file whose bytes no longer give a checked signature
 * changed without the index knowing (or is not UTF-8): its stored rows are dropped and a parse of
 * it answers for the whole file, so no row of an older version is printed.
 */
export async function signStored(engine: Engine, a: Signing): Promise<void> {
    const signed = new Set<Definition>();
    for (;;) {
        const fileOf = new Map<Definition, { rel: string; defs: Definition[] }>();
        const todo: Definition[] = [];
        let shown = 0;
        for (const f of a.out) {
            for (const d of f.defs) {
                if (shown >= a.req.shown || !a.req.wanted(d) || !a.stored.has(d)) continue;
                shown++;
                if (!signed.has(d)) todo.push(d);
                fileOf.set(d, f);
            }
        }
        const sigs = await a.store.signatures(todo.map((d) => a.stored.get(d)!), a.realOf);
        const stale = new Map<{ rel: string; defs: Definition[] }, string>();
        todo.forEach((d, i) => {
            const sig = sigs[i];
            if (sig === null || sig === undefined) {
                stale.set(fileOf.get(d)!, a.realOf(a.stored.get(d)!));
                return;
            }
            d.signature = sig;
            signed.add(d);
        });
        if (stale.size === 0) return;
        const files = [...stale];
        const { req } = a;
        const parsed = await parseFiles(engine, files.map(([f, real]) => ({ shown: f.rel, real })), { realRoots: req.realRoots, maxBytes: req.maxFileSize, parseMs: req.parseMs, deadline: req.deadline, ...(req.signal && { signal: req.signal }) });
        parsed.forEach((r, i) => {
            const f = files[i]![0];
            for (const d of f.defs) a.stored.delete(d);
            f.defs = r.ok ? r.definitions.filter((d) => a.query.matches(d)) : [];
            if (!r.ok && r.kind === 'timeout') a.dropped(f.rel, r.late === true);
        });
    }
}
