import fs from 'node:fs/promises';
import path from 'node:path';
import type { WorkspaceView } from '../access/workspace.js';
import { isInside } from '../access/shared/contain.js';
import { AccessType } from '../config/shared/configuration.js';
import type { Engine } from '../engine/engine.js';
import { Turns } from '../engine/turns.js';
import type { RealRoots } from '../fs/shared/safe-read.js';
import { childPrefix } from '../print/shared/display.js';
import { decodeName, osPath } from '../print/shared/byte-names.js';
import { prepareSearch } from '../search/prepare.js';
import { EntryPolicy } from '../search/shared/entry-policy.js';
import { compareWalk } from '../search-index/table.js';
import { Kind } from '../search-index/shared/format.js';
import { SearchIndex } from '../search-index/search-index.js';
import type { ServedGeneration } from '../search-index/tree-state.js';
import { languageOf, SOURCE_GLOBS } from './shared/languages.js';
import type { Definition } from './shared/types.js';
import type { NameQuery } from './names.js';
import { parseFiles } from './parse.js';
import { signStored } from './table-signatures.js';
import { symbolsOf } from './symbol-table.js';
import { SymbolFileError, type SymbolStore } from './symbol-store.js';

/** Files changed since the generation parsed at most by one call; past it the call takes the scan path. */
const MAX_FRESH_FILES = 2000;

export interface TableRequest {
    tool: string;
    path: string | undefined;
    include: string | string[] | undefined;
    exclude: string | string[] | undefined;
    realRoots: RealRoots;
    maxFileSize: number;
    parseMs: number;
    signal: AbortSignal | undefined;
    /** When the call stops looking (epoch ms): a regex over the names answers with what it found by then. */
    deadline: number;
    /** The definitions the call wants (kind), and how many of them it prints: only those get their signatures. */
    wanted(d: Definition): boolean;
    shown: number;
}

/** A file's matching definitions, in file order; those past the printed ones have no signature. */
export interface FoundFile {
    shown: string;
    definitions: Definition[];
}

export interface TableAnswer {
    files: FoundFile[];
    /** Changed files whose parse ran out of time. */
    skipped: string[];
    /** The names were not all looked at: the call's time ran out, or it was cancelled. */
    stopped: boolean;
    /** Changed or new files the call's time ran out before parsing. */
    late: number;
}

/**
 * Definitions matching `query` from the index's symbol table, or `null` when the table cannot
 * answer (no index, not ready, the searched directory changed, the table still being made): the
 * caller then takes the bounded scan. Fresh: a file changed since the generation (by the tools or
 * on disk, as the index knows) is never answered from the table's rows but parsed now (the engine's
 * cache), a new file is parsed, a deleted one drops out. Files are in walk order, as the scan's.
 */
export async function findInTable(view: WorkspaceView, engine: Engine, query: NameQuery, req: TableRequest): Promise<TableAnswer | null> {
    const index = engine.backends.find((b): b is SearchIndex => b instanceof SearchIndex);
    if (index === undefined || !index.symbols) return null;
    const checked = await view.check(req.path ?? '.', AccessType.Read, req.tool);
    const st = await fs.stat(osPath(checked.real)).catch(() => null);
    if (st === null || !st.isDirectory()) return null;
    const roots = (req.realRoots ?? view.accesses).map((a) => a.path);
    const tree = index.tree(checked.real, view.skipDirs, req.realRoots === null ? null : roots);
    const served = tree?.served() ?? null;
    if (tree === null || served === null) return null;
    const symbols = symbolsOf(tree);
    const store = symbols.current(served);
    if (store === null) return null;
    try {
        return await fromStore(view, engine, query, req, checked, { roots, served, store, symbols });
    } catch (err) {
        if (!(err instanceof SymbolFileError)) throw err;
        // The table's file changed under the process: the scan answers this call, and the next
        // call makes the table again (symbol-table.ts, `current`).
        store.broken = true;
        return null;
    }
}

/** {@link findInTable}'s answer from a loaded table. @throws SymbolFileError when the table's file no longer holds what was checked at its load. */
async function fromStore(view: WorkspaceView, engine: Engine, query: NameQuery, req: TableRequest, checked: { real: string; display: string }, on: { roots: string[]; served: ServedGeneration; store: SymbolStore; symbols: { answered: number } }): Promise<TableAnswer | null> {
    const { roots, served, store, symbols } = on;
    const relRoot = path.relative(served.root, checked.real).split(path.sep).join('/');
    if (relRoot.startsWith('..') || path.isAbsolute(relRoot)) return null;
    const t = served.table;
    const rootId = t.idOf(relRoot);
    if (rootId === undefined || changedAbove(served, relRoot)) return null;
    const search = await prepareSearch(
        {
            root: { real: checked.real, display: checked.display, realRoots: req.realRoots === null ? null : roots, bounds: roots },
            type: 'file',
            include: req.include ?? [...SOURCE_GLOBS],
            ...(req.exclude !== undefined && { exclude: req.exclude }),
            skipDirs: view.skipDirs,
            maxResults: 1,
            maxFileSize: req.maxFileSize,
            maxTotalEntries: 1,
        },
        req.tool,
    );
    const policy = new EntryPolicy(search);
    const prefix = relRoot === '' ? '' : `${relRoot}/`;
    const kept = (rel: string): boolean => {
        const sub = rel.slice(prefix.length);
        const parts = sub.split('/');
        for (let k = 1; k < parts.length; k++) if (policy.leftOut(undefined, parts.slice(0, k).join('/'), parts[k - 1]!, true)) return false;
        const name = parts[parts.length - 1]!;
        return languageOf(name) !== undefined && policy.kept(name, sub, false) && !policy.leftOut(undefined, sub, name, false);
    };
    const byFile = new Map<string, { ks: number[]; defs: Definition[] }>();
    const fileRel = new Map<number, string | null>();
    const end = t.t.end[rootId]!;
    const stop = { deadline: req.deadline, signal: req.signal };
    const found = query.regex === undefined ? { names: [store.find(query.word!)].filter((x) => x !== -1), stopped: false } : await store.matching(query.regex, stop);
    let stopped = found.stopped;
    const turns = new Turns();
    let seen = 0;
    names: for (const n of found.names) {
        const name = store.nameAt(n);
        const [from, to] = store.definitionsOf(n);
        for (let k = from; k < to; k++) {
            // A regex matching millions of definitions stops with the call's time, as the search does.
            if ((++seen & 1023) === 0) {
                if (Date.now() >= stop.deadline || stop.signal?.aborted === true) {
                    stopped = true;
                    break names;
                }
                if (turns.due) await turns.yield();
            }
            const id = store.fileOf(k);
            if (id <= rootId || id >= end) continue;
            const d = store.definition(k, name);
            if (!query.matches(d)) continue;
            // Perf: a regex's definitions share files; each file's path and filters are decided once.
            let rel = fileRel.get(id);
            if (rel === undefined) {
                const p = t.pathOf(id);
                fileRel.set(id, (rel = served.changes.touches(p) || !kept(p) ? null : p));
            }
            if (rel === null) continue;
            let f = byFile.get(rel);
            if (f === undefined) byFile.set(rel, (f = { ks: [], defs: [] }));
            f.ks.push(k);
            f.defs.push(d);
        }
    }
    const keep = new Set<string>();
    const fresh = await freshFiles(served, store, { relRoot, rootId, real: checked.real }, kept, view.skipDirs, keep);
    if (fresh === null) return null;
    const freshRels = [...fresh.keys()];
    const parsed = await parseFiles(
        engine,
        [...fresh].map(([rel, real]) => ({ shown: childPrefix(checked.display) + rel.slice(prefix.length), real })),
        { realRoots: req.realRoots, maxBytes: req.maxFileSize, parseMs: req.parseMs, deadline: req.deadline, keep, ...(req.signal && { signal: req.signal }) },
    );
    const skipped: string[] = [];
    let late = 0;
    const out: { rel: string; defs: Definition[] }[] = [];
    const stored = new Map<Definition, number>();
    for (const [rel, f] of byFile) {
        f.defs.forEach((d, i) => stored.set(d, f.ks[i]!));
        out.push({ rel, defs: f.defs.map((d, i) => [d, i] as const).sort((a, b) => a[0].line - b[0].line || a[1] - b[1]).map(([d]) => d) });
    }
    parsed.forEach((r, i) => {
        const rel = freshRels[i]!;
        if (!r.ok) {
            if (r.late) late++;
            else if (r.kind === 'timeout') skipped.push(childPrefix(checked.display) + rel.slice(prefix.length));
            return;
        }
        const defs = r.definitions.filter((d) => query.matches(d));
        if (defs.length > 0) out.push({ rel, defs });
    });
    out.sort((a, b) => compareWalk(a.rel, b.rel));
    const realOf = (k: number): string => path.join(served.root, t.pathOf(store.fileOf(k)));
    await signStored(engine, { out, stored, store, realOf, query, req, dropped: (rel, cut) => (cut ? late++ : skipped.push(childPrefix(checked.display) + rel.slice(prefix.length))) });
    symbols.answered++;
    return { files: out.filter((f) => f.defs.length > 0).map((f) => ({ shown: childPrefix(checked.display) + f.rel.slice(prefix.length), definitions: f.defs })), skipped, stopped, late };
}

/** The searched directory or a directory above it changed (its subtree is walked from disk). */
function changedAbove(served: ServedGeneration, relRoot: string): boolean {
    for (let p = relRoot; ; p = p.slice(0, Math.max(0, p.lastIndexOf('/')))) {
        if (served.changes.dirty.has(p)) return true;
        if (p === '') return false;
    }
}

/**
 * The source files under `relRoot` the table cannot answer for: those on disk now under the
 * paths changed since the generation (directories listed without following links, skipped names
 * left out), and those whose parse timed out when the table was made (their real paths also put
 * in `keep`: the cache keeps their outcome). `null`: too many.
 */
async function freshFiles(served: ServedGeneration, store: SymbolStore, dir: { relRoot: string; rootId: number; real: string }, kept: (rel: string) => boolean, skipDirs: readonly string[], keep: Set<string>): Promise<Map<string, string> | null> {
    const relRoot = dir.relRoot;
    const out = new Map<string, string>();
    const skip = new Set(skipDirs);
    // False: stop, the scan answers (too many files, or a new link into a directory outside).
    const visit = async (rel: string): Promise<boolean> => {
        const abs = path.join(served.root, rel);
        const st = await fs.lstat(abs).catch(() => null);
        if (st === null) return true;
        if (st.isFile() || st.isSymbolicLink()) {
            const target = st.isFile() ? st : await fs.stat(abs).catch(() => null);
            const real = target === null ? null : await fs.realpath(abs).catch(() => null);
            if (target?.isDirectory() && real !== null && !isInside(real, dir.real)) return false;
            if (target?.isFile() && real !== null && kept(rel)) out.set(rel, real);
            return out.size <= MAX_FRESH_FILES;
        }
        if (!st.isDirectory()) return true;
        const names = await fs.readdir(path.join(served.root, rel)).catch(() => [] as string[]);
        for (const name of names) if (!skip.has(name) && !(await visit(`${rel}/${name}`))) return false;
        return true;
    };
    for (const top of served.changes.tops.below(relRoot)) if (!(await visit(top))) return null;
    // Links: one to a source file is parsed where it leads (as the scan lists it); one to a
    // directory outside the searched one would be entered by the scan: the scan answers then.
    const t = served.table.t;
    const links = await linksOf(served);
    for (const [id, link] of links) {
        if (id <= dir.rootId || id >= t.end[dir.rootId]!) continue;
        const rel = served.table.pathOf(id);
        if (served.changes.touches(rel)) continue;
        // Perf: a link to a file is parsed at its target's real path, which the engine's parse cache keeps.
        if (link?.file === true && kept(rel)) out.set(rel, link.real);
        if (link?.file === false && !isInside(link.real, dir.real)) return null;
    }
    for (const id of store.timedOut) {
        const rel = served.table.pathOf(id);
        if ((relRoot === '' || rel.startsWith(`${relRoot}/`)) && !served.changes.touches(rel) && kept(rel)) {
            out.set(rel, path.join(served.root, rel));
            keep.add(path.join(served.root, rel));
        }
    }
    return out;
}

/** A link's target: a file or a directory, by its real path; `null` for anything else. */
type LinkTarget = { file: boolean; real: string } | null;
/** Per table: its links' targets, valid while no change is noted. */
const LINKS = new WeakMap<object, { seq: number; links: Map<number, LinkTarget> }>();

/** The table's links and where they lead now. Perf: resolved once until a change is noted (as the index's own link cache). */
async function linksOf(served: ServedGeneration): Promise<Map<number, LinkTarget>> {
    const had = LINKS.get(served.table);
    if (had !== undefined && had.seq === served.changes.seq) return had.links;
    const links = new Map<number, LinkTarget>();
    const t = served.table.t;
    for (const id of served.table.always) {
        if (t.kind[id] !== Kind.Link) continue;
        const abs = path.join(served.root, served.table.pathOf(id));
        // By its bytes where a name is not UTF-8 (print/shared/byte-names.ts): as a string Node would ask for U+FFFD.
        const st = await fs.stat(osPath(abs)).catch(() => null);
        const real = st?.isFile() || st?.isDirectory() ? await fs.realpath(osPath(abs), { encoding: 'buffer' }).then(decodeName, () => null) : null;
        links.set(id, real === null ? null : { file: st!.isFile(), real });
    }
    LINKS.set(served.table, { seq: served.changes.seq, links });
    return links;
}
