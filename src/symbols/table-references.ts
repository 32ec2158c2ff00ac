import type { TaskRunner } from '../search/task-runner.js';
import { dotted } from './names.js';
import { parseFiles, type ParseOptions } from './parse.js';
import type { SymbolStore } from './symbol-store.js';
import type { PointedFile } from './table-points.js';
import type { FileRows } from './file-rows.js';
import type { Definition, FileSymbols } from './shared/types.js';

/**
 * `store`'s rows by file when they are made, else `null`: the first call begins making them (0.5-1.2 s
 * for the kernel's on this thread, in turns), and calls until then parse as without them.
 */
function rowsNow(store: SymbolStore): FileRows | null {
    // A failure leaves the files to the parse; the next call tries again.
    if (store.madeByFile === null) store.byFile().catch(() => undefined);
    return store.madeByFile;
}

/**
 * The uses of `opts.references` in `files`, one outcome per file in their order. With the
 * symbol table (`store`), a C file it vouches for may have its uses told by a lexer on the pool
 * (workers/symbols/lexed.ts), and their enclosing definitions then come from the table's rows
 * (file-rows.ts), once made: the outcome's definitions are those enclosing definitions. A file
 * the table cannot tell them for (a tie of two definitions on one line) is parsed.
 */

export async function referencesIn(engine: TaskRunner, files: readonly PointedFile[], store: SymbolStore | null, opts: ParseOptions & { references: string }): Promise<FileSymbols[]> {
    // The table's numbers stay on the host.
    const sent = files.map(({ id: _, ...f }) => f);
    const rows = store === null ? null : rowsNow(store);
    const parsed = await parseFiles(engine, sent, { ...opts, ...(rows !== null && { lexed: true }) });
    if (store === null || rows === null || !parsed.some((r) => r.ok && r.lexed)) return parsed;
    const shown = (k: number): string => {
        const d = store.definitionAt(k);
        return `${d.kind} ${dotted(d)}`;
    };
    const again: number[] = [];
    parsed.forEach((r, i) => {
        const id = files[i]!.id;
        if (!r.ok || !r.lexed) return;
        const ks = id === undefined ? null : rows.enclosing(id, r.references!.map((x) => x.line), shown);
        if (ks === null) return void again.push(i);
        const definitions = new Map<number, Definition>();
        for (const k of ks) if (k >= 0 && !definitions.has(k)) definitions.set(k, store.definitionAt(k));
        parsed[i] = { ...r, definitions: [...definitions.values()] };
    });
    if (again.length > 0) {
        const reparsed = await parseFiles(engine, again.map((i) => sent[i]!), opts);
        again.forEach((i, j) => (parsed[i] = reparsed[j]!));
    }
    return parsed;
}
