/** Characters of a word, as find_references bounds a name's occurrences in every language. */
const WORD = /[\p{L}\p{N}_$]/u;

/** 1 for the ASCII codes of a word's characters (letters, digits, `_`, `$`). Perf: one look-up per character, not six comparisons. */
export const ASCII_WORD = new Uint8Array(128).map((_, c) => ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36 ? 1 : 0));

/** Whether the character at `i` is one of a word's (false past the end). */
export function isWord(text: string, i: number): boolean {
    const c = text.charCodeAt(i);
    if (c < 128) return ASCII_WORD[c] === 1;
    return i < text.length && WORD.test(text[i]!);
}

/** The whole-word occurrences of `name` in `text`, in order. */
export function occurrencesOf(text: string, name: string): number[] {
    const out: number[] = [];
    for (let i = text.indexOf(name); i !== -1; i = text.indexOf(name, i + name.length)) {
        if ((i > 0 && isWord(text, i - 1)) || isWord(text, i + name.length)) continue;
        out.push(i);
    }
    return out;
}
