/**
 * Models often write a glob where a search takes a regex (`*.ts` as a name pattern). Such a
 * pattern either fails to compile or, worse, compiles to something else (`test_*.py` misses
 * `test_a.py`), so the tools say what the glob means as a regex and which option takes globs.
 */
import { escapeRegex } from './regex.js';

/** Syntax only a regex gives meaning to: a pattern holding one was written as a regex. */
const REGEX_ONLY = /[\\()|+^$]/;
/** A `*` that a regex would not write: first, or after a character other than `.`, `]`, `}` or `*` (a `?` only first: after a character it is a regex's too). */
const GLOB_STAR = /(?:^|[^.\]}*])\*/;

/** Whether `pattern` reads as a glob rather than a regex. */
export function looksLikeGlob(pattern: string): boolean {
    return !REGEX_ONLY.test(pattern) && (GLOB_STAR.test(pattern) || pattern.startsWith('?'));
}

/**
 * The regex matching what the glob `pattern` matches in a whole name, with no anchor where the
 * glob starts or ends with `*` (`"."` for a glob of stars only); `null` when the glob has a `/`
 * (it matches paths, not names) or a class or brace group that does not close.
 */
export function globAsRegex(pattern: string): string | null {
    if (pattern.includes('/')) return null;
    let out = '';
    for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i]!;
        if (c === '*') {
            out += '.*';
            while (pattern[i + 1] === '*') i++;
        } else if (c === '?') {
            out += '.';
        } else if (c === '[') {
            const end = pattern.indexOf(']', i + 2);
            if (end < 0) return null;
            const set = pattern.slice(i + 1, end);
            out += `[${set.startsWith('!') ? `^${set.slice(1)}` : set}]`;
            i = end;
        } else if (c === '{') {
            const end = pattern.indexOf('}', i);
            if (end < 0) return null;
            const alternatives = pattern.slice(i + 1, end).split(',');
            if (alternatives.some((a) => /[*?[{]/.test(a))) return null;
            out += `(?:${alternatives.map(escapeRegex).join('|')})`;
            i = end;
        } else {
            out += escapeRegex(c);
        }
    }
    const open = !out.startsWith('.*');
    if (!open) out = out.slice(2);
    const close = !out.endsWith('.*');
    if (!close) out = out.slice(0, -2);
    return out === '' ? '.' : `${open ? '^' : ''}${out}${close ? '$' : ''}`;
}

/**
 * A sentence for a search pattern that reads as a glob (`''` otherwise). `compiled`: the pattern
 * compiled as a regex (the sentence then says "if you meant").
 */
export function globHint(param: 'name_pattern' | 'content_pattern', pattern: string, compiled: boolean): string {
    if (!looksLikeGlob(pattern)) return '';
    const regex = globAsRegex(pattern);
    if (param === 'content_pattern') {
        if (compiled || regex === null) return '';
        return `content_pattern is a regular expression matched anywhere in a line, not a glob: for ${JSON.stringify(pattern)} write ${JSON.stringify(regex)}.`;
    }
    const lead = 'name_pattern is a regular expression matched against each name, not a glob: ';
    const include = `pass the glob as include: ${JSON.stringify(pattern)}`;
    if (regex === null) return `${lead}${include}${pattern.includes('/') ? ' (a glob with "/" matches the path relative to path)' : ''}.`;
    const glob = JSON.stringify(pattern);
    return `${lead}${compiled ? `if you meant the glob ${glob},` : `for the glob ${glob}`} write ${JSON.stringify(regex)}, or ${include}.`;
}
