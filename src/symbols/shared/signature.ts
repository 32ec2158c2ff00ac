/**
 * A definition's signature line from its source text, shared by the parse (workers/symbols) and
 * the symbol table, which keeps only where the text stands in its file and a check of the result
 * (symbol-format.ts), and makes the line again from the file's bytes when a call prints it.
 */

/** Characters of a definition's first line kept as its signature. */
export const SIGNATURE_CHARS = 200;

/** `line` cut to SIGNATURE_CHARS and marked `…` where longer, or where the text it was taken from goes on (`cut`). */
export function capped(line: string, cut: boolean): string {
    return line.length > SIGNATURE_CHARS || cut ? `${line.slice(0, SIGNATURE_CHARS)}…` : line;
}

/** The signature of the source text `raw` (the definition's lines up to its name's line end), as one line. */
export function signatureText(raw: string, cut: boolean): string {
    // Perf: most signatures are one line, and the regex tries each of their characters (about 12%
    // of a build of the kernel's generated headers went to it).
    return capped((raw.includes('\n') ? raw.replace(/\s*\n\s*/g, ' ') : raw).trim(), cut);
}

/** A 16-bit check of a signature (FNV-1a over its UTF-16 code units, folded): the table's text read back must give it. */
export function signatureCheck(sig: string): number {
    let h = 0x811c9dc5;
    for (let i = 0; i < sig.length; i++) h = Math.imul(h ^ sig.charCodeAt(i), 0x01000193);
    return ((h >>> 16) ^ h) & 0xffff;
}

/**
 * The signatures' spans (character offsets, `[from, to, cut]` per definition) as byte offsets in
 * the file: `[offset, length, cut]`; offset -1 when the file is not UTF-8 (the table then parses it
 * again to print one). Perf: offsets mostly grow, so each span's bytes are counted from the last.
 */
export function byteSpans(text: string, spans: number[], bom: number | null): number[] {
    const out: number[] = [];
    // Perf: a text of ASCII alone (its UTF-8 as long as it is) has a byte per character, counted
    // without two calls into the runtime per definition.
    if (bom !== null && Buffer.byteLength(text, 'utf8') === text.length) {
        for (let i = 0; i < spans.length; i += 3) out.push(bom + spans[i]!, spans[i + 1]! - spans[i]!, spans[i + 2]!);
        return out;
    }
    let [char, byte] = [0, bom ?? 0];
    for (let i = 0; i < spans.length; i += 3) {
        const [from, to, cut] = [spans[i]!, spans[i + 1]!, spans[i + 2]!];
        if (bom === null) {
            out.push(-1, 0, cut);
            continue;
        }
        if (from < char) [char, byte] = [0, bom];
        byte += Buffer.byteLength(text.slice(char, from), 'utf8');
        char = from;
        out.push(byte, Buffer.byteLength(text.slice(from, to), 'utf8'), cut);
    }
    return out;
}
