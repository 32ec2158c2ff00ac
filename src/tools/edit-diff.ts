import { structuredPatch } from 'diff';

/**
 * The compact diff shown after an edit's confirmation when the `showDiff` package option or
 * `LLM_CHAT_FS_EDIT_DIFF` is on: unified-diff hunks (the `diff` package's `structuredPatch`, one
 * line of context) whose `@@ -a,b +c,d @@` headers carry the line numbers, bounded in size.
 */

/** Diff lines shown at most; the rest is counted in a closing note. */
export const MAX_DIFF_LINES = 40;
/** Characters of one diff line shown at most (a longer line ends in `…`). */
export const MAX_DIFF_LINE_CHARS = 200;

/**
 * `before` -> `after` as unified-diff hunks, at most {@link MAX_DIFF_LINES} lines of at most
 * {@link MAX_DIFF_LINE_CHARS} characters, then `[... N more diff lines]`. `''` when nothing changed.
 * Line endings do not show: a CRLF file's lines are compared without their `\r`.
 */
export function compactDiff(before: string, after: string): string {
    if (before === after) return '';
    const patch = structuredPatch('a', 'b', before.replace(/\r\n/g, '\n'), after.replace(/\r\n/g, '\n'), undefined, undefined, { context: 1 });
    const lines: string[] = [];
    for (const h of patch.hunks) {
        lines.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
        for (const l of h.lines) {
            if (l.startsWith('\\')) continue; // "\ No newline at end of file"
            lines.push(l.length > MAX_DIFF_LINE_CHARS ? `${l.slice(0, MAX_DIFF_LINE_CHARS)}…` : l);
        }
    }
    if (lines.length === 0) return '';
    const shown = lines.slice(0, MAX_DIFF_LINES);
    if (lines.length > shown.length) shown.push(`[... ${lines.length - shown.length} more diff lines]`);
    return shown.join('\n');
}

/** `confirmation`, followed by the diff of the edit on its own lines when `show` is set and the text changed. */
export function withDiff(confirmation: string, show: boolean, before: string, after: string): string {
    if (!show) return confirmation;
    const diff = compactDiff(before, after);
    return diff === '' ? `${confirmation}\n(no change)` : `${confirmation}\n${diff}`;
}
