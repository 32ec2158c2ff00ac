/**
 * What a regex over symbol names needs of every match, read from its source alone: the word
 * every match holds (symbol-names.ts looks for it in the names' coded bytes), and the word every
 * match starts with (the sorted names hold those side by side).
 */

/**
 * The longest run of word characters every match of the regex `source` holds, or `''` when that
 * is not plain to see: a source without alternation (`v` mode's classes are not read), and a run
 * outside any group, whose last character no quantifier follows. Classes and escapes end a run.
 */
export function requiredWord(source: string): string {
    if (source.includes('|')) return '';
    let [best, depth] = ['', 0];
    // An escape is read whole (`\x41`, `\u{1F600}`, `\cJ`, `\p{L}`, `\k<n>`, `\12`): its letters are not a run.
    for (const m of source.matchAll(/\\(?:x[0-9a-fA-F]{2}|u\{[^}]*\}|u[0-9a-fA-F]{4}|c[A-Za-z]|[pPk](?:\{[^}]*\}|<[^>]*>)?|\d+|.)|\[(?:\\.|[^\]\\])*\]|\(|\)|\{[^}]*\}|\w+/gsu)) {
        if (m[0] === '(') depth++;
        else if (m[0] === ')') depth--;
        else if (depth === 0 && /^\w/.test(m[0])) {
            const quantified = /^[?*+{]/.test(source.slice(m.index + m[0].length));
            const run = quantified ? m[0].slice(0, -1) : m[0];
            if (run.length > best.length) best = run;
        }
    }
    return depth === 0 ? best : '';
}

/** The word characters every match of `source` starts with (`^word…`, no alternation anywhere, none quantified), or `''`. */
export function anchoredPrefix(source: string): string {
    if (source.includes('|')) return '';
    const m = /^\^(\w+)/.exec(source);
    if (m === null) return '';
    return /^[?*+{]/.test(source.slice(m[0].length)) ? m[1]!.slice(0, -1) : m[1]!;
}
