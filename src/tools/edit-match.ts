import { ToolError } from '../errors/shared/errors.js';
import { splitLines, textEol, withEol } from '../text/shared/text.js';
import { lineNumberPrefix } from '../text/shared/read-render.js';
import { quotePath } from '../print/shared/display.js';

/**
 * Edit semantics of `replace_file_content` and `edit_file`: finding `old_content` exactly, what
 * the result says when it occurs more than once, and the nearest candidates shown when it is not
 * found. A candidate is never applied: the model copies the exact text and calls again.
 */

/** One find-and-replace. */
export interface TextEdit {
    old_content: string;
    new_content: string;
    replace_all?: boolean | undefined;
}

/** What one replacement did, in the text it was applied to. */
export interface Replacement {
    text: string;
    /** Occurrences of `old_content` (non-overlapping, from the start). */
    count: number;
    /** 1-based line of each occurrence, in order. */
    lines: number[];
    replacedAll: boolean;
}

/** Line numbers listed in a note at most. */
const MAX_LINES_LISTED = 20;
/** Candidates shown in a not-found error at most. */
const MAX_CANDIDATES = 3;
/** Characters of a candidate's text shown at most. */
const MAX_CANDIDATE_CHARS = 300;
/** Files above this many lines get no one-line-difference candidates (the window scan is O(lines x edit lines)). */
const MAX_LINES_SCANNED = 200_000;

/** 1-based line number of each of the sorted character `indices` in `text`. */
function lineNumbers(text: string, indices: readonly number[]): number[] {
    const out: number[] = [];
    let line = 1;
    let pos = 0;
    for (const index of indices) {
        for (let nl = text.indexOf('\n', pos); nl !== -1 && nl < index; nl = text.indexOf('\n', nl + 1)) {
            line++;
            pos = nl + 1;
        }
        out.push(line);
    }
    return out;
}

/** Start indices of the non-overlapping occurrences of `find` in `text`, as `split` counts them. */
function occurrences(text: string, find: string): number[] {
    const out: number[] = [];
    for (let i = text.indexOf(find); i !== -1; i = text.indexOf(find, i + find.length)) out.push(i);
    return out;
}

/**
 * Applies one edit to `text`: the first occurrence, or all with `replace_all`. In a CRLF file,
 * `old_content` written with `\n` matches `\r\n`; the replacement's line breaks are written with
 * the file's dominant ending, whichever the model used.
 * @throws ToolError (not_found) with the nearest candidates when `old_content` does not occur.
 */
export function replaceText(text: string, edit: TextEdit, shownPath: string, label = 'old_content'): Replacement {
    let find = edit.old_content;
    // The replacement takes the file's dominant line ending, as inserted lines do (withEol).
    const replacement = withEol(edit.new_content, textEol(text));
    if (!text.includes(find) && /(?<!\r)\n/.test(find) && text.includes('\r\n')) {
        // The model usually writes `\n`; match the file's CRLF lines.
        find = find.replace(/\r?\n/g, '\r\n');
    }
    const at = occurrences(text, find);
    if (at.length === 0) throw notFound(text, edit.old_content, shownPath, label);
    const lines = lineNumbers(text, at);
    if (edit.replace_all === true) return { text: text.split(find).join(replacement), count: at.length, lines, replacedAll: true };
    const first = at[0]!;
    return { text: text.slice(0, first) + replacement + text.slice(first + find.length), count: at.length, lines, replacedAll: false };
}

/** `1, 3, 5` (at most {@link MAX_LINES_LISTED}, then `, ...`). */
function listLines(lines: readonly number[]): string {
    const shown = lines.slice(0, MAX_LINES_LISTED).join(', ');
    return lines.length > MAX_LINES_LISTED ? `${shown}, ... (${lines.length} in all)` : shown;
}

/**
 * The note after the confirmation of a first-only replacement of text that occurs more than
 * once: how many occurrences, the lines left unchanged, and how to target them. `''` otherwise.
 */
export function ambiguityNote(r: Replacement, label = 'old_content'): string {
    if (r.replacedAll || r.count < 2) return '';
    const others = r.lines.slice(1);
    return (
        `[${label} occurs ${r.count} times: replaced the first, at line ${r.lines[0]}; left unchanged at ${others.length === 1 ? 'line' : 'lines'} ${listLines(others)}. ` +
        `To change every occurrence set replace_all: true; to change another one, include more of its surrounding text in ${label} so that it matches only there.]`
    );
}

/** Text shown for a candidate: JSON-quoted so whitespace, tabs and line endings are visible, and cut to a bounded length. */
function showText(s: string): string {
    return JSON.stringify(s.length > MAX_CANDIDATE_CHARS ? `${s.slice(0, MAX_CANDIDATE_CHARS)}…` : s);
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** How `found` (in the file) differs from `wanted` (old_content) when only whitespace differs. */
function whitespaceKind(found: string, wanted: string): string {
    if (found.replace(/\r\n/g, '\n') === wanted.replace(/\r\n/g, '\n')) {
        return found.includes('\r\n') ? 'other line endings (the file has CRLF, old_content LF)' : 'other line endings (the file has LF, old_content CRLF)';
    }
    if (found.includes('\t') && !wanted.includes('\t')) return 'other indentation (the file has tabs where old_content has spaces)';
    if (!found.includes('\t') && wanted.includes('\t')) return 'other indentation (the file has spaces where old_content has tabs)';
    return 'other whitespace or indentation';
}

interface Candidate {
    first: number;
    last: number;
    note: string;
}

/** Places where `wanted` occurs when every run of whitespace may be any other run of whitespace. */
function whitespaceCandidates(text: string, wanted: string): Candidate[] {
    const core = wanted.trim();
    if (core === '') return [];
    const source = core.split(/\s+/).map(escapeRegex).join('\\s+');
    const re = new RegExp(`[ \\t]*${source}`, 'g');
    const out: Candidate[] = [];
    for (let m = re.exec(text); m !== null && out.length < MAX_CANDIDATES; m = re.exec(text)) {
        const [first] = lineNumbers(text, [m.index]);
        const last = first! + (m[0].match(/\n/g)?.length ?? 0);
        out.push({ first: first!, last, note: `the same text with ${whitespaceKind(m[0], wanted)}: ${showText(m[0])}` });
    }
    return out;
}

/** Windows of the file's lines that equal old_content's lines (indentation aside) except for exactly one line. */
function oneLineCandidates(text: string, wanted: string, skip: readonly Candidate[]): Candidate[] {
    const raw = wanted.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
    const want = raw.map((l) => l.trim());
    if (want.length < 2) return [];
    const { lines } = splitLines(text);
    if (lines.length > MAX_LINES_SCANNED) return [];
    const have = lines.map((l) => l.trim());
    const k = want.length;
    // The first and last lines of old_content may be parts of lines.
    const same = (j: number, line: string): boolean =>
        line === want[j] || (want[j] !== '' && ((j === 0 && line.endsWith(want[j]!)) || (j === k - 1 && line.startsWith(want[j]!))));
    const out: Candidate[] = [];
    for (let i = 0; i + k <= have.length && out.length < MAX_CANDIDATES; i++) {
        let differing = -1;
        let misses = 0;
        for (let j = 0; j < k && misses < 2; j++) {
            if (!same(j, have[i + j]!)) {
                misses++;
                differing = j;
            }
        }
        if (misses !== 1) continue;
        const first = i + 1;
        if (skip.some((c) => c.first === first)) continue;
        out.push({
            first,
            last: i + k,
            note: `differs in line ${first + differing} only: the file has ${showText(lines[i + differing]!)} where old_content has ${showText(raw[differing]!)}`,
        });
        i += k - 1;
    }
    return out;
}

/**
 * The not-found error: the reference's advice, then up to three nearest candidates with their
 * line numbers (whitespace, indentation or line endings only; or one line different). None is applied.
 */
function notFound(text: string, wanted: string, shownPath: string, label: string): ToolError {
    let message = `${label} not found in ${quotePath(shownPath)}: it must match the file exactly, including whitespace and indentation. Call read_file and copy the text to replace.`;
    const numbered = numberedLines(text, wanted);
    if (numbered !== null) {
        return new ToolError(
            'not_found',
            `${message}\n${label} begins its lines with line numbers as read_file shows them (${JSON.stringify(numbered.prefix)}); the file has the text without them at ${numbered.first === numbered.last ? `line ${numbered.first}` : `lines ${numbered.first}-${numbered.last}`}. Leave them out of ${label} and ${label.replace(/old_content$/, 'new_content')}.`,
        );
    }
    const near = whitespaceCandidates(text, wanted);
    near.push(...oneLineCandidates(text, wanted, near));
    if (near.length > 0) {
        const shown = near.slice(0, MAX_CANDIDATES).map((c) => `- ${c.first === c.last ? `line ${c.first}` : `lines ${c.first}-${c.last}`}: ${c.note}`);
        message += `\nNearest candidates (nothing was changed; copy the exact text from the file and call again):\n${shown.join('\n')}`;
    }
    return new ToolError('not_found', message);
}

/** read_file's line-number prefix ({@link lineNumberPrefix}), with any padding. */
const LINE_PREFIX = /^ *\d+\t/;

/**
 * When every line of `wanted` starts with a line-number prefix and the text without them is in
 * the file: the first prefix and the lines where that text is; else `null`.
 */
function numberedLines(text: string, wanted: string): { prefix: string; first: number; last: number } | null {
    const lines = wanted.split('\n');
    if (!lines.every((l) => LINE_PREFIX.test(l))) return null;
    const bare = lines.map((l) => l.replace(LINE_PREFIX, '')).join('\n');
    // The model's text has LF line ends; a CRLF file holds the same lines with CRLF.
    let at = bare === '' ? -1 : text.indexOf(bare);
    if (at < 0 && bare !== '' && text.includes('\r\n')) at = text.indexOf(bare.replace(/\r?\n/g, '\r\n'));
    if (at < 0) return null;
    const first = text.slice(0, at).split('\n').length;
    return { prefix: LINE_PREFIX.exec(lines[0]!)![0], first, last: first + lines.length - 1 };
}

/**
 * A note for written `content` whose every line starts with read_file's line-number prefix, the
 * numbers consecutive (text copied from a read with `line_numbers`): the write is done as asked,
 * and the note says how the numbers got in. `null` for any other content.
 */
export function numberedContentNote(content: string): string | null {
    const lines = content.split(/\r?\n/);
    if (lines.at(-1) === '') lines.pop();
    if (lines.length === 0) return null;
    const first = Number(/^ *(\d+)\t/.exec(lines[0]!)?.[1]);
    if (!Number.isSafeInteger(first)) return null;
    if (!lines.every((l, i) => l.startsWith(lineNumberPrefix(first + i)))) return null;
    return `[content begins its lines with line numbers as read_file shows them (${JSON.stringify(lines[0]!.slice(0, lines[0]!.indexOf('\t') + 1))}); they were written as text. If they are not the file's text, write those lines again without them.]`;
}

