import { analyzePattern, anyLiterals } from '../../src/search/shared/literals.js';
import type { PatternSpec } from '../../src/search/shared/types.js';
import { hasUtf16Bom, hasUtf8Bom, scanText, textEncodingOf, type TextEncodingInfo } from '../../src/text/shared/text.js';
import { decodeLegacy } from '../../src/text/shared/legacy.js';
import { hasTwoForms, NfcLineRegExp } from '../../src/search/shared/normal-form.js';
import { LiteralSet } from './literal-set.js';
import { worthPrefilter } from './prefilter.js';

/**
 * Content scanning: finds the lines of a file that match a pattern, line by line semantics
 * (`^`/`$` at line boundaries, one hit per line, 1-based numbers) without splitting the file
 * into lines. Pure functions on buffers, used by the walk worker and tested directly.
 */

/** Longest line text a hit carries, cut marks included. */
export const MAX_HIT_TEXT = 500;
/** Marks where a shown line was cut. */
const CUT = '…';

/** One matching line. */
export interface LineHit {
    line: number;
    text: string;
    /** With context: the lines before and after it (fewer at the file's start and end). */
    before?: string[];
    after?: string[];
}

/** A pattern compiled for scanning, built once per task. */
export interface ContentMatcher {
    /** Tests one line (no terminator). */
    line: RegExp;
    /** Finds candidate positions over the whole text (`g` and `m` added). */
    global: RegExp;
    /** Literals of which every matched line contains one, searched in the raw bytes first. */
    literals: LiteralSet | null;
    /** `global` finds every line `line` matches (the pattern has no lookaround, see {@link analyzePattern}); else lines are tested one by one. */
    lineLocal: boolean;
}

export function makeMatcher(spec: PatternSpec): ContentMatcher {
    const analysis = analyzePattern(spec.source, spec.flags);
    const literals = anyLiterals(analysis.query, worthPrefilter);
    // Text on disk may hold the pattern's characters in the other normal form: every line is
    // decoded and tested, in NFC too. No byte prefilter: NFC can make ASCII of what is not
    // (the Kelvin sign U+212A is K), so a line may match without the literal's bytes.
    const twoForms = hasTwoForms(spec.source);
    return {
        line: twoForms ? new NfcLineRegExp(spec.source, spec.flags) : new RegExp(spec.source, spec.flags),
        global: new RegExp(spec.source, spec.flags + 'gm'),
        literals: literals === null || twoForms ? null : new LiteralSet(literals),
        lineLocal: analysis.lineLocal && !twoForms,
    };
}

/** A context line (no match to show), capped for display: its start, marked where cut. */
function hitText(line: string): string {
    return line.length > MAX_HIT_TEXT ? window(line, 0, MAX_HIT_TEXT - 1) : line;
}

/**
 * A matching line for display: whole up to {@link MAX_HIT_TEXT} characters; a longer one is cut
 * to a window of that many around its first match of `re` (from the line's start when the match
 * ends early enough), with {@link CUT} marking each cut side.
 */
function matchText(line: string, re: RegExp): string {
    if (line.length <= MAX_HIT_TEXT) return line;
    const m = re.exec(line);
    const at = m === null ? 0 : m.index;
    const len = m === null ? 0 : m[0].length;
    // Room for text between the two cut marks; the match ending within it keeps the line's start.
    const room = MAX_HIT_TEXT - 2;
    if (at + len <= MAX_HIT_TEXT - 1) return window(line, 0, MAX_HIT_TEXT - 1);
    // Centre the match (a longer one shows from its start), and use the room up to the line's end.
    const start = Math.max(0, at - Math.max(0, Math.floor((room - len) / 2)));
    if (line.length - start <= MAX_HIT_TEXT - 1) return window(line, line.length - (MAX_HIT_TEXT - 1), line.length);
    return window(line, start, start + room);
}

/** `line[start, end)` with {@link CUT} where it does not reach the line's start or end; surrogate pairs are never split. */
function window(line: string, start: number, end: number): string {
    if (start > 0 && isLowSurrogate(line.charCodeAt(start))) start++;
    if (end < line.length && isLowSurrogate(line.charCodeAt(end))) end--;
    return (start > 0 ? CUT : '') + line.slice(start, end) + (end < line.length ? CUT : '');
}

function isLowSurrogate(code: number): boolean {
    return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * The text of the line at `start..end` of `src` without its terminator: a `\r` before the line's
 * `\n` belongs to the terminator (CRLF); a lone `\r`, also at the end of an unterminated last
 * line, is part of the text (the line model of `splitLines`).
 */
function lineAt(src: Lines, start: number, end: number): string {
    const text = src.text(start, end);
    return end < src.length && text.length > 0 && text.charCodeAt(text.length - 1) === 13 ? text.slice(0, -1) : text;
}

/** Line access to a file's text (bytes or decoded), for the lines around a match. */
interface Lines {
    length: number;
    /** Index of the last newline before index `before`, or -1. */
    prevNewline(before: number): number;
    /** Index of the first newline at or after `from`, or -1. */
    nextNewline(from: number): number;
    text(start: number, end: number): string;
}

/**
 * Called for each matching line: its 1-based number, its text (no terminator), and where it lies
 * in `src` (`end` is its newline's index, or the length for an unterminated last line).
 */
type Visit = (line: number, text: string, src: Lines, start: number, end: number) => void;

/** Lines of a file's bytes in an ASCII-compatible encoding (UTF-8, Latin-1 or legacy: 0x0A is only ever a newline), decoded one by one. */
function byteLines(buf: Buffer, info: TextEncodingInfo): Lines {
    const legacy = info.legacy;
    const encoding = info.encoding === 'latin1' ? 'latin1' : 'utf8';
    return {
        length: buf.length,
        // Buffer#lastIndexOf counts a negative offset from the end: guard it.
        prevNewline: (before) => (before <= 0 ? -1 : buf.lastIndexOf(10, before - 1)),
        nextNewline: (from) => buf.indexOf(10, from),
        text: legacy === undefined ? (start, end) => buf.toString(encoding, start, end) : (start, end) => decodeLegacy(buf.subarray(start, end), legacy),
    };
}

function stringLines(s: string): Lines {
    return {
        length: s.length,
        prevNewline: (before) => (before <= 0 ? -1 : s.lastIndexOf('\n', before - 1)),
        nextNewline: (from) => s.indexOf('\n', from),
        text: (start, end) => s.slice(start, end),
    };
}

/** Up to `n` lines before and after the line at `start..end` of `src` (fewer at the start and end of the text). */
function contextOf(src: Lines, start: number, end: number, n: number): { before: string[]; after: string[] } {
    const before: string[] = [];
    for (let e = start - 1; before.length < n && e >= 0; ) {
        const s = src.prevNewline(e) + 1;
        before.push(hitText(lineAt(src, s, e)));
        e = s - 1;
    }
    before.reverse();
    const after: string[] = [];
    // The position after a final newline begins no line.
    for (let s = end + 1; after.length < n && s < src.length; ) {
        const nl = src.nextNewline(s);
        const e = nl === -1 ? src.length : nl;
        after.push(hitText(lineAt(src, s, e)));
        s = e + 1;
    }
    return { before, after };
}

/** A visitor collecting hits into `out`, with `context` lines around each when above 0; `re` finds the match shown in a long line. */
function collect(out: LineHit[], context: number, re: RegExp): Visit {
    if (context <= 0) return (line, text) => void out.push({ line, text: matchText(text, re) });
    return (line, text, src, start, end) => {
        const { before, after } = contextOf(src, start, end, context);
        out.push({ line, text: matchText(text, re), before, after });
    };
}

/**
 * Matching lines of a text file's bytes (the caller has ruled out binary content), at most
 * `max`, appended to `out`, each with up to `context` lines before and after. Decoded as reads
 * decode (text.ts `textEncodingOf`): UTF-8 (with or without BOM), UTF-16 with BOM, a detected
 * legacy encoding, else Latin-1, which never fails.
 */
export function scanBytes(buf: Buffer, m: ContentMatcher, max: number, out: LineHit[], context = 0): void {
    eachMatchInBytes(buf, m, max - out.length, collect(out, context, m.line));
}

/** Number of matching lines of a text file's bytes (decoded as {@link scanBytes} does). */
export function countBytes(buf: Buffer, m: ContentMatcher): number {
    return eachMatchInBytes(buf, m, Number.POSITIVE_INFINITY, () => undefined);
}

/** Visits the matching lines of a file's bytes, at most `max`; returns how many it visited. */
function eachMatchInBytes(buf: Buffer, m: ContentMatcher, max: number, visit: Visit): number {
    // The encoding decision of reads (`textEncodingOf`, `scanText`), so search, the index and
    // read_file see the same text.
    if (m.literals === null || hasUtf16Bom(buf)) return eachMatchInString(scanText(buf), m, max, visit);
    const body = hasUtf8Bom(buf) ? buf.subarray(3) : buf;
    let src: Lines | undefined; // made at the first candidate line, with the encoding decided there
    // Perf: only lines holding a literal are decoded and tested; the rest of the file is never
    // turned into a string (nor its encoding decided, unless a line is a candidate). Line
    // semantics are exact: every line the pattern matches contains one of the literals
    // (analyzePattern), and in UTF-8 (also decoded leniently after a BOM) and Latin-1 the ASCII
    // characters of a decoded line are exactly the ASCII bytes of the raw line, in order; in the
    // ASCII-compatible legacy encodings (legacy.ts) they are among them (a trail byte of a
    // double-byte character may look like ASCII: a candidate line more, which the test below drops).
    const literals = m.literals;
    literals.reset();
    let found = 0;
    let line = 1;
    let counted = 0; // line `line` starts at `counted`
    let from = 0;
    while (found < max) {
        const pos = literals.find(body, from);
        if (pos === -1) break;
        const lineStart = pos === from ? from : literals.lineStart(body, pos, from);
        line += literals.newlines(body, counted, lineStart);
        counted = lineStart;
        const nl = literals.nextNewline(body, pos);
        const lineEnd = nl === -1 ? body.length : nl;
        src ??= byteLines(body, textEncodingOf(buf));
        const text = lineAt(src, lineStart, lineEnd);
        if (m.line.test(text)) {
            found++;
            visit(line, text, src, lineStart, lineEnd);
        }
        if (nl === -1) break;
        from = lineEnd + 1;
    }
    return found;
}

/**
 * Visits the matching lines of decoded text, at most `max`; returns how many it visited.
 * A line-local pattern runs over the whole text (`m` flag); each candidate's line is then tested
 * on its own, so a match spanning lines never counts and the next search starts at the next
 * line. Sound because a line the pattern matches on its own is matched at the same place in the
 * whole text: the text around the line is read only by lookarounds, `^`/`$` (which hold at its
 * ends in `m` mode) and `\b`/`\B` (a newline or CR beside the line is no word character, like
 * the string's end). A pattern with a lookaround (`x(?!\n)`, `(?<!a\n)b`) is tested line by line.
 */
function eachMatchInString(text: string, m: ContentMatcher, max: number, visit: Visit): number {
    const src = stringLines(text);
    if (!m.lineLocal) return eachLine(src, m, max, visit);
    const re = m.global;
    re.lastIndex = 0;
    let found = 0;
    let line = 1;
    let counted = 0;
    const endsWithNewline = text.length > 0 && text.charCodeAt(text.length - 1) === 10;
    while (found < max) {
        const match = re.exec(text);
        if (match === null) break;
        const idx = match.index;
        // The position after a final newline begins no line ("a\n" has one line).
        if (idx >= text.length && (text.length === 0 || endsWithNewline)) break;
        const lineStart = idx === 0 ? 0 : text.lastIndexOf('\n', idx - 1) + 1;
        for (let nl = text.indexOf('\n', counted); nl !== -1 && nl < lineStart; nl = text.indexOf('\n', nl + 1)) line++;
        counted = lineStart;
        const nl = text.indexOf('\n', idx);
        const lineEnd = nl === -1 ? text.length : nl;
        const lineText = lineAt(src, lineStart, lineEnd);
        if (m.line.test(lineText)) {
            found++;
            visit(line, lineText, src, lineStart, lineEnd);
        }
        if (nl === -1) break;
        re.lastIndex = lineEnd + 1;
    }
    return found;
}

/** Tests every line of `src` on its own, at most `max` hits; returns how many it visited. */
function eachLine(src: Lines, m: ContentMatcher, max: number, visit: Visit): number {
    let found = 0;
    let line = 1;
    // The position after a final newline begins no line.
    for (let start = 0; found < max && start < src.length; line++) {
        const nl = src.nextNewline(start);
        const end = nl === -1 ? src.length : nl;
        const text = lineAt(src, start, end);
        if (m.line.test(text)) {
            found++;
            visit(line, text, src, start, end);
        }
        start = end + 1;
    }
    return found;
}
