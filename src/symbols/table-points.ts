import fs from 'node:fs/promises';
import path from 'node:path';
import type { WorkspaceView } from '../access/workspace.js';
import { AccessType } from '../config/shared/configuration.js';
import type { Engine } from '../engine/engine.js';
import { osPath } from '../print/shared/byte-names.js';
import { Kind } from '../search-index/shared/format.js';
import { SearchIndex } from '../search-index/search-index.js';
import { symbolsOf } from './symbol-table.js';
import type { SymbolStore } from './symbol-store.js';

export interface PointedFile {
    shown: string;
    real: string;
    /** Where a parse of the file stood between top-level items when the table was made (workers/symbols/regions.ts), and its length then. */
    checkpoints?: number[];
    chars?: number;
    crc?: number;
    /** Its number in the served table, with checkpoints (`store` holds its definitions). */
    id?: number;
}

/**
 * `files` (under the directory `dir` names) with their checkpoints from the index's symbol table
 * where it has them and vouches for the file: a regular file of the served generation, not
 * changed since as the index knows, with the size and times it had then. Any other file is
 * given back as it came, and is parsed whole. The pool checks the rest (length, CRC, rows).
 * `store`: the table they come from, or `null` when none.
 */
export async function withCheckpoints(view: WorkspaceView, engine: Engine, dir: string | undefined, files: readonly { shown: string; real: string }[], realRoots: readonly { path: string }[] | null): Promise<{ files: PointedFile[]; store: SymbolStore | null }> {
    const none = { files: [...files], store: null };
    const index = engine.backends.find((b): b is SearchIndex => b instanceof SearchIndex);
    if (index === undefined || !index.symbols || files.length === 0) return none;
    const checked = await view.check(dir ?? '.', AccessType.Read, 'find_references');
    // One file named: the index serves directories (its tree is looked up by one).
    if ((await fs.stat(osPath(checked.real)).catch(() => null))?.isDirectory() !== true) return none;
    const roots = (realRoots ?? view.accesses).map((a) => a.path);
    const tree = index.tree(checked.real, view.skipDirs, realRoots === null ? null : roots);
    const served = tree?.served() ?? null;
    const store = tree === null || served === null ? null : symbolsOf(tree).current(served);
    if (served === null || store === null) return none;
    const t = served.table;
    const pointed = await Promise.all(
        files.map(async (f) => {
            const rel = path.relative(served.root, f.real).split(path.sep).join('/');
            if (rel.startsWith('..') || path.isAbsolute(rel) || served.changes.touches(rel)) return f;
            const id = t.idOf(rel);
            if (id === undefined || t.t.kind[id] !== Kind.File) return f;
            const st = await fs.lstat(f.real).catch(() => null);
            if (st === null || !st.isFile() || st.size !== t.t.size[id] || st.mtimeMs !== t.t.mtime[id] || st.birthtimeMs !== t.t.birthtime[id]) return f;
            const p = store.pointsOf(id);
            return p === null ? f : { ...f, checkpoints: p.points, chars: p.chars, crc: p.crc, id };
        }),
    );
    return { files: pointed, store };
}
