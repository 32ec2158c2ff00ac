/**
 * Property tests of the partial edit tools: random file text (LF, CRLF or mixed endings, with or
 * without a BOM, with or without a final newline, UTF-8 or UTF-16) and random sequences of
 * replace_file_lines / insert_file_content / replace_file_content. After the edits the bytes on
 * disk must equal what a simple line model predicts: untouched lines byte-identical, new lines
 * in the file's dominant ending, the BOM kept once, the final newline kept or kept absent.
 */
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { makePackage, one, tempDir, type Fixture } from '../support/helpers.js';

const SEED = 424242;
let triedInputs = 0;

type Encoding = 'utf8' | 'utf8-bom' | 'utf16le' | 'utf16be';
type Eol = '\n' | '\r\n';

/** The model: a file as lines, each with its own terminator ('' only for a last line without one). */
interface ModelFile {
    lines: string[];
    eols: ('' | Eol)[];
}

const textOf = (f: ModelFile): string => f.lines.map((l, i) => l + f.eols[i]).join('');

function encode(text: string, enc: Encoding): Buffer {
    switch (enc) {
        case 'utf8':
            return Buffer.from(text, 'utf8');
        case 'utf8-bom':
            return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
        case 'utf16le':
            return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
        case 'utf16be': {
            const b = Buffer.from(text, 'utf16le');
            b.swap16();
            return Buffer.concat([Buffer.from([0xfe, 0xff]), b]);
        }
    }
}

/** The ending new lines get: the one most terminated lines use, LF on a tie. */
function dominant(f: ModelFile): Eol {
    const crlf = f.eols.filter((e) => e === '\r\n').length;
    const lf = f.eols.filter((e) => e === '\n').length;
    return crlf > lf ? '\r\n' : '\n';
}

/** Lines of model-written text: one trailing newline only ends the last line; CRLF and LF both split. */
function linesOfContent(content: string): string[] {
    const body = content.endsWith('\r\n') ? content.slice(0, -2) : content.endsWith('\n') ? content.slice(0, -1) : content;
    return body.split(/\r?\n/);
}

type Op =
    | { kind: 'replace_lines'; start: number; span: number; content: string }
    | { kind: 'insert'; line: number | null; content: string }
    | { kind: 'replace_content'; at: number; len: number; content: string; all: boolean };

/** Applies `op` to the model; returns the tool arguments, or null when the op does not apply to this file. */
function apply(f: ModelFile, op: Op, file: string): { tool: string; args: Record<string, unknown> } | null {
    const total = f.lines.length;
    if (op.kind === 'replace_lines') {
        if (total === 0) return null;
        const start = (op.start % total) + 1;
        const end = Math.min(total, start + op.span);
        const lastEol = f.eols[end - 1]!;
        const eol = dominant(f);
        if (op.content === '') {
            f.lines.splice(start - 1, end - start + 1);
            f.eols.splice(start - 1, end - start + 1);
            // Deleting the last line of a file without a final newline: the new last line has none.
            if (lastEol === '' && start > 1) f.eols[start - 2] = '';
        } else {
            const added = linesOfContent(op.content);
            const eols: ('' | Eol)[] = added.map(() => eol);
            eols[eols.length - 1] = lastEol;
            f.lines.splice(start - 1, end - start + 1, ...added);
            f.eols.splice(start - 1, end - start + 1, ...eols);
        }
        return { tool: 'replace_file_lines', args: { path: file, content: op.content, start_line: start, end_line: end } };
    }
    if (op.kind === 'insert') {
        if (op.content === '') return null;
        const at = op.line === null ? total + 1 : (op.line % (total + 1)) + 1;
        const args = { path: file, content: op.content, ...(op.line === null ? {} : { line: at }) };
        if (total === 0) {
            // An empty file takes the content as written.
            const parsed = splitModel(op.content);
            f.lines = parsed.lines;
            f.eols = parsed.eols;
            return { tool: 'insert_file_content', args };
        }
        const eol = dominant(f);
        const added = linesOfContent(op.content);
        const eols: ('' | Eol)[] = added.map(() => eol);
        if (at === total + 1 && f.eols[total - 1] === '') {
            f.eols[total - 1] = eol;
            eols[eols.length - 1] = '';
        }
        f.lines.splice(at - 1, 0, ...added);
        f.eols.splice(at - 1, 0, ...eols);
        return { tool: 'insert_file_content', args };
    }
    const text = textOf(f);
    if (text.length === 0) return null;
    const from = op.at % text.length;
    let old = text.slice(from, from + Math.max(1, op.len));
    // Never cut a surrogate pair or a CRLF in half: the model copies whole characters.
    if (/^[\uDC00-\uDFFF]/.test(old) || /[\uD800-\uDBFF]$/.test(old) || old.startsWith('\n') || old.endsWith('\r')) return null;
    if (old.length === 0) return null;
    // The replacement's line breaks take the file's dominant ending, like inserted lines.
    const content = op.content.replace(/\r?\n/g, dominant(f));
    const next = op.all ? text.split(old).join(content) : text.replace(old, () => content);
    const parsed = splitModel(next);
    f.lines = parsed.lines;
    f.eols = parsed.eols;
    old = String(old);
    return { tool: 'replace_file_content', args: { path: file, old_content: old, new_content: op.content, replace_all: op.all } };
}

/** Splits text into the model's lines (a line ends at LF; a CR right before it belongs to the ending). */
function splitModel(text: string): ModelFile {
    const f: ModelFile = { lines: [], eols: [] };
    const re = /([^\n]*?)(\r\n|\n)|([^\n]+)$/gy;
    let m: RegExpExecArray | null;
    while (re.lastIndex < text.length && (m = re.exec(text)) !== null) {
        if (m[3] !== undefined) {
            f.lines.push(m[3]);
            f.eols.push('');
        } else {
            f.lines.push(m[1]!);
            f.eols.push(m[2] as Eol);
        }
    }
    return f;
}

// Line text: no CR or LF (those are the model's endings), but multi-byte and astral characters.
const lineChar = fc.constantFrom('a', 'b', 'z', ' ', '\t', 'é', '€', 'ß', '中', '😀', '-', '=', '{', '}');
const lineText = fc.array(lineChar, { maxLength: 12 }).map((cs) => cs.join(''));
const eolStyle = fc.constantFrom<'lf' | 'crlf' | 'mixed'>('lf', 'crlf', 'mixed');

const fileArb = fc
    .tuple(fc.array(lineText, { maxLength: 10 }), eolStyle, fc.array(fc.constantFrom<Eol>('\n', '\r\n'), { minLength: 10, maxLength: 10 }), fc.boolean(), fc.constantFrom<Encoding>('utf8', 'utf8-bom', 'utf16le', 'utf16be'))
    .map(([lines, style, mixed, finalNewline, encoding]) => {
        const eols: ('' | Eol)[] = lines.map((_, i) => (style === 'lf' ? '\n' : style === 'crlf' ? '\r\n' : mixed[i]!));
        if (!finalNewline && lines.length > 0) eols[eols.length - 1] = '';
        // Re-split: a last empty line without a terminator is no line at all.
        return { model: splitModel(textOf({ lines, eols })), encoding };
    });

// Content as a model writes it: LF or CRLF between lines, sometimes a trailing newline, sometimes empty.
const contentArb = fc
    .tuple(fc.array(lineText, { minLength: 1, maxLength: 4 }), fc.constantFrom('\n', '\r\n'), fc.constantFrom('', '\n', '\r\n'))
    .map(([ls, sep, tail]) => ls.join(sep) + tail);

const opArb: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('replace_lines' as const), start: fc.nat(20), span: fc.nat(3), content: fc.oneof(contentArb, fc.constant('')) }),
    fc.record({ kind: fc.constant('insert' as const), line: fc.option(fc.nat(20), { nil: null }), content: contentArb }),
    fc.record({ kind: fc.constant('replace_content' as const), at: fc.nat(200), len: fc.nat(6), content: fc.oneof(lineText, contentArb), all: fc.boolean() }),
);

describe('partial edits (property): edit then read back equals the model, endings and BOM kept', () => {
    let dir: string;
    let fx: Fixture;
    let n = 0;

    // helpers.tempDir directories and packages are cleaned up after each test.
    beforeEach(() => {
        dir = tempDir('lcf-propedits-');
        fx = makePackage(dir);
    });

    afterAll(() => {
        console.log(`[property-edits] inputs tried: ${triedInputs}`);
    });

    it('replace_file_lines, insert_file_content and replace_file_content sequences match the line model', async () => {
        await fc.assert(
            fc.asyncProperty(fileArb, fc.array(opArb, { minLength: 1, maxLength: 4 }), async ({ model: generated, encoding }, ops) => {
                // The model is edited in place: work on a copy, fast-check reuses generated values when shrinking.
                const model: ModelFile = { lines: [...generated.lines], eols: [...generated.eols] };
                const name = `f${n++}.txt`;
                const abs = path.join(dir, name);
                fs.writeFileSync(abs, encode(textOf(model), encoding));
                const read = await one(fx.tool('read_file'), { paths: [name] });
                expect(read.status).toBe('success');
                expect(read.result.slice(read.result.indexOf('\n') + 1)).toBe(textOf(model));
                for (const op of ops) {
                    const call = apply(model, op, name);
                    if (call === null) continue;
                    // The file is re-read as text before the next edit: so is the model.
                    Object.assign(model, splitModel(textOf(model)));
                    triedInputs++;
                    const r = await one(fx.tool(call.tool), call.args);
                    expect(r.status, `${call.tool} ${JSON.stringify(call.args)} -> ${r.result}`).toBe('success');
                    // The bytes on disk: untouched lines identical, endings and BOM as the model says.
                    expect(fs.readFileSync(abs).toString('hex')).toBe(encode(textOf(model), encoding).toString('hex'));
                }
                // The tool's own view agrees (the header line, then the text).
                const back = await one(fx.tool('read_file'), { paths: [name] });
                expect(back.status).toBe('success');
                expect(back.result.slice(back.result.indexOf('\n') + 1)).toBe(textOf(model));
                fs.unlinkSync(abs);
            }),
            { seed: SEED, numRuns: 400 },
        );
        // Only the edited files' temp files would be left: none are.
        expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    });

    it('a CRLF file edited with LF text stays CRLF, and mixed files keep every untouched line byte-identical', async () => {
        await fc.assert(
            fc.asyncProperty(fc.array(lineText, { minLength: 2, maxLength: 8 }), fc.array(fc.constantFrom<Eol>('\n', '\r\n'), { minLength: 8, maxLength: 8 }), fc.nat(), lineText, async (lines, endings, pick, replacement) => {
                triedInputs++;
                const name = `m${n++}.txt`;
                const abs = path.join(dir, name);
                const eols = lines.map((_, i) => endings[i]!);
                const before = lines.map((l, i) => l + eols[i]);
                fs.writeFileSync(abs, before.join(''));
                await one(fx.tool('read_file'), { paths: [name] });
                const target = (pick % lines.length) + 1;
                const r = await one(fx.tool('replace_file_lines'), { path: name, content: replacement + '\n', start_line: target, end_line: target });
                expect(r.status).toBe('success');
                const after = fs.readFileSync(abs, 'utf8');
                const expected = before.map((l, i) => (i === target - 1 ? replacement + eols[i] : l)).join('');
                expect(after).toBe(expected);
                fs.unlinkSync(abs);
            }),
            { seed: SEED, numRuns: 200 },
        );
    });
});
