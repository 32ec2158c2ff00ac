/**
 * A module by `import()`; by `require` where that finds no file: under tsx's require hook in a
 * worker thread (Node 20 runs no ESM loader hooks there, so `.js` never maps to `.ts`). Both name
 * the file literally, so that esbuild bundles it.
 */
function load<M>(esm: () => Promise<M>, cjs: () => unknown): Promise<M> {
    return esm().catch((err: unknown) => {
        if (typeof require !== 'function' || (err as { code?: unknown } | null)?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
        return cjs() as M;
    });
}

/**
 * The pool's operations by name (a task's `op`): a new operation is its own module plus one line
 * here. Each takes its task as the host sent it and returns a discriminated result
 * (`{ ok: false, code, message }` on failure), since thrown errors lose their class when cloned
 * across threads.
 *
 * Each entry loads its module on the thread's first task of that name: evaluating all of them
 * (tree-sitter, media, the index's build) at every thread's start cost each thread of the built
 * package about 65 ms of CPU, most of it for operations that thread never runs. A module's own
 * side effects still run before its first task: it is evaluated before its loader resolves.
 */
export const OPERATIONS = {
    search: () => load(() => import('./search/walk.js'), () => require('./search/walk.js')).then((m) => m.runSearchTask),
    'search-session': () => load(() => import('./search/search-session.js'), () => require('./search/search-session.js')).then((m) => m.runSearchSession),
    read: () => load(() => import('./read/read.js'), () => require('./read/read.js')).then((m) => m.runReadTask),
    'index-walk': () => load(() => import('./search-index/index-walk.js'), () => require('./search-index/index-walk.js')).then((m) => m.runIndexWalk),
    'index-chunk': () => load(() => import('./search-index/index-chunk.js'), () => require('./search-index/index-chunk.js')).then((m) => m.runIndexChunk),
    'index-check': () => load(() => import('./search-index/index-check.js'), () => require('./search-index/index-check.js')).then((m) => m.runIndexCheck),
    'index-merge': () => load(() => import('./search-index/index-merge.js'), () => require('./search-index/index-merge.js')).then((m) => m.runIndexMerge),
    symbols: () => load(() => import('./symbols/symbols.js'), () => require('./symbols/symbols.js')).then((m) => m.runSymbolsTask),
    mentions: () => load(() => import('./symbols/mentions.js'), () => require('./symbols/mentions.js')).then((m) => m.runMentionsTask),
    'symbols-part': () => load(() => import('./symbols/symbols-table.js'), () => require('./symbols/symbols-table.js')).then((m) => m.runSymbolsPart),
    'symbols-merge': () => load(() => import('./symbols/symbols-table.js'), () => require('./symbols/symbols-table.js')).then((m) => m.runSymbolsMerge),
    image: () => load(() => import('./media/image.js'), () => require('./media/image.js')).then((m) => m.runImageTask),
    pdf: () => load(() => import('./media/pdf.js'), () => require('./media/pdf.js')).then((m) => m.runPdfTask),
    notebook: () => load(() => import('./media/notebook.js'), () => require('./media/notebook.js')).then((m) => m.runNotebookTask),
} as const;

export type OperationName = keyof typeof OPERATIONS;
/** The run function of an operation, as its module exports it. */
export type RunOf<K extends OperationName> = Awaited<ReturnType<(typeof OPERATIONS)[K]>>;
/** The task an operation takes. */
export type TaskOf<K extends OperationName> = Parameters<RunOf<K>>[0];
/** What an operation returns. */
export type ResultOf<K extends OperationName> = Awaited<ReturnType<RunOf<K>>>;

const loaded = new Map<OperationName, Promise<unknown>>();

/** Whether `op` names an operation (a prototype property does not). */
export function isOperation(op: string): op is OperationName {
    return Object.hasOwn(OPERATIONS, op);
}

/** The run function of `op`, its module loaded on the first call in this thread and kept. */
export function loadOperation<K extends OperationName>(op: K): Promise<RunOf<K>> {
    let run = loaded.get(op);
    if (run === undefined) {
        run = OPERATIONS[op]();
        loaded.set(op, run);
    }
    return run as Promise<RunOf<K>>;
}
