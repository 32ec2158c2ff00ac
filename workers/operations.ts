import { runIndexChunk } from './search-index/index-chunk.js';
import { runIndexMerge } from './search-index/index-merge.js';
import { runIndexCheck } from './search-index/index-check.js';
import { runIndexWalk } from './search-index/index-walk.js';
import { runImageTask } from './media/image.js';
import { runNotebookTask } from './media/notebook.js';
import { runPdfTask } from './media/pdf.js';
import { runReadTask } from './read/read.js';
import { runSearchSession } from './search/search-session.js';
import { runSearchTask } from './search/walk.js';
import { runMentionsTask } from './symbols/mentions.js';
import { runSymbolsTask } from './symbols/symbols.js';
import { runSymbolsMerge, runSymbolsPart } from './symbols/symbols-table.js';

/**
 * The pool's operations by name (a task's `op`): a new operation is its own module plus one line
 * here. Each takes its task as the host sent it and returns a discriminated result
 * (`{ ok: false, code, message }` on failure), since thrown errors lose their class when cloned
 * across threads.
 */
export const OPERATIONS = {
    search: runSearchTask,
    'search-session': runSearchSession,
    read: runReadTask,
    'index-walk': runIndexWalk,
    'index-chunk': runIndexChunk,
    'index-check': runIndexCheck,
    'index-merge': runIndexMerge,
    symbols: runSymbolsTask,
    mentions: runMentionsTask,
    'symbols-part': runSymbolsPart,
    'symbols-merge': runSymbolsMerge,
    image: runImageTask,
    pdf: runPdfTask,
    notebook: runNotebookTask,
} as const;

export type OperationName = keyof typeof OPERATIONS;
/** The task an operation takes. */
export type TaskOf<K extends OperationName> = Parameters<(typeof OPERATIONS)[K]>[0];
/** What an operation returns. */
export type ResultOf<K extends OperationName> = Awaited<ReturnType<(typeof OPERATIONS)[K]>>;
