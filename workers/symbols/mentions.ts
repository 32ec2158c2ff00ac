import { readRegularFileSync } from '../../src/fs/shared/safe-read.js';
import type { MentionsResult, MentionsTask } from '../../src/symbols/shared/types.js';
import { decodeText } from '../../src/text/shared/text.js';

/** Identifier-shaped words, as the grammars' identifiers are spelled. */
const WORD = /[\p{L}_$][\p{L}\p{N}_$]*/gu;

/**
 * The `mentions` operation: per file, how many times each asked name occurs as a word. Textual on
 * purpose (comments count too): it ranks definitions, where a parse per file would cost more than
 * it changes the order.
 */
export function runMentionsTask(task: MentionsTask): MentionsResult {
    const index = new Map(task.names.map((n, i) => [n, i]));
    const files: ([number, number][] | null)[] = [];
    for (const f of task.files) {
        let text: string;
        try {
            const decoded = decodeText(readRegularFileSync(f.shown, f.real, task.realRoots, task.maxBytes).bytes);
            if (!decoded.ok) {
                files.push(null);
                continue;
            }
            text = decoded.text;
        } catch {
            files.push(null);
            continue;
        }
        const counts = new Map<number, number>();
        for (const m of text.matchAll(WORD)) {
            const i = index.get(m[0]);
            if (i !== undefined) counts.set(i, (counts.get(i) ?? 0) + 1);
        }
        files.push([...counts]);
    }
    return { ok: true, files };
}
