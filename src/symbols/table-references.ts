import type { TaskRunner } from '../search/task-runner.js';
import { dotted } from './names.js';
import { parseFiles, type ParseOptions } from './parse.js';
import { SymbolFileError, type SymbolStore } from './symbol-store.js';
import type { PointedFile } from './table-points.js';
import { enclosing } from './file-rows.js';
import type { Definition, FileSymbols } from './shared/types.js';

/**
 * The uses of `opts.references` in `files`, one outcome per file in their order. With the
 * symbol table (`store`), a C file it vouches for may have its uses told by a lexer on the pool
 * (workers/symbols/lexed.ts), and their enclosing definitions then come from the table's rows by
 * file (file-rows.ts), read for those files: the outcome's definitions are those enclosing
 * definitions. A file the table cannot tell them for (its rows unreadable or not matching their
 * check, a tie of two definitions on one line) is parsed.
 */
export async function referencesIn(engine: TaskRunner, files: readonly PointedFile[], store: SymbolStore | null, opts: ParseOptions & { references: string }): Promise<FileSymbols[]> {
    // The table's numbers stay on the host.
    const sent = files.map(({ id: _, ...f }) => f);
    const parsed = await parseFiles(engine, sent, { ...opts, ...(store !== null && { lexed: true }) });
    if (store === null || !parsed.some((r) => r.ok && r.lexed)) return parsed;
    const shown = (k: number): string => {
        const d = store.definitionAt(k);
        return `${d.kind} ${dotted(d)}`;
    };
    const told = parsed.flatMap((r, i) => (r.ok && r.lexed ? [i] : []));
    const rows = await store.byFile.read(told.map((i) => files[i]!.id ?? -1));
    const again: number[] = [];
    for (const [j, i] of told.entries()) {
        const r = parsed[i] as Extract<FileSymbols, { ok: true }>;
        try {
            const ks = rows[j] === null ? null : enclosing(rows[j]!, r.references!.map((x) => x.line), shown);
            if (ks === null) {
                again.push(i);
                continue;
            }
            const definitions = new Map<number, Definition>();
            for (const k of ks) if (k >= 0 && !definitions.has(k)) definitions.set(k, store.definitionAt(k));
            parsed[i] = { ...r, definitions: [...definitions.values()] };
        } catch (err) {
            if (!(err instanceof SymbolFileError)) throw err;
            // The table's file changed under the process: this file is parsed, and the next call makes the table again.
            store.broken = true;
            again.push(i);
        }
    }
    if (again.length > 0) {
        const reparsed = await parseFiles(engine, again.map((i) => sent[i]!), opts);
        again.forEach((i, j) => (parsed[i] = reparsed[j]!));
    }
    return parsed;
}
