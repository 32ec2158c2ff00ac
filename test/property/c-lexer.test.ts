/**
 * The C lexer find_references uses with the symbol table (workers/symbols/c-lexer.ts) against
 * tree-sitter-c: for every whole-word occurrence of a name the lexer tells, the same verdict as the
 * whole parse (an identifier node of that text, or not), lexing from the checkpoints a whole parse
 * gives. Over seeded random C files built of hard cases (comments opened before a checkpoint's
 * item, escaped quotes, `#if 0` prose, macros, continued lines, prefixed literals), and over a
 * seeded sample of the Linux tree's .c and .h files when it is on this machine.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Node, Parser } from 'web-tree-sitter';
import { languageOf } from '../../src/symbols/shared/languages.js';
import { codeOccurrences } from '../../workers/symbols/c-lexer.js';
import { occurrencesOf } from '../../workers/symbols/words.js';
import { plainIdentifier } from '../../workers/symbols/lexed.js';
import { loaded, parseWithin } from '../../workers/symbols/parser.js';
import { checkpointsOf } from '../../workers/symbols/regions.js';
import { mulberry32 } from '../../bench/tree.js';

const KERNEL = process.env['KERNEL_TREE'] ?? '/root/.cache/llm-chat-file-corpora/linux-source-6.1';

/** Occurrences the whole parse reads as an identifier of that text (symbols.ts, `referencesIn`). */
function parsedCode(root: Node, name: string, occurrences: readonly number[]): number[] {
    return occurrences.filter((i) => {
        const node = root.descendantForIndex(i, i + name.length);
        return node !== null && node.text === name && (node.type.endsWith('identifier') || node.type === 'constant' || node.type === 'name');
    });
}

interface Tally {
    names: number;
    occurrences: number;
    told: number;
    untold: number;
}

/** Compares the lexer with the parse for `names` in `text`; the first disagreement as a message, or null. */
function compare(parser: Parser, text: string, names: readonly string[], tally: Tally, where: string): string | null {
    const tree = parseWithin(parser, text, 60_000)!;
    try {
        const points = checkpointsOf(tree.rootNode);
        const starts = points.filter((_, k) => k % 2 === 0);
        for (const name of names) {
            if (!plainIdentifier(parser, name)) continue;
            const occ = occurrencesOf(text, name);
            if (occ.length === 0) continue;
            tally.names++;
            tally.occurrences += occ.length;
            const lexed = codeOccurrences(text, name, occ, starts);
            if (lexed === null) {
                tally.untold++;
                continue;
            }
            tally.told++;
            const parsed = parsedCode(tree.rootNode, name, occ);
            if (lexed.join() !== parsed.join()) {
                const diff = [...lexed.filter((i) => !parsed.includes(i)).map((i) => `lexer only at ${i}`), ...parsed.filter((i) => !lexed.includes(i)).map((i) => `parse only at ${i}`)];
                const at = Number(/\d+$/.exec(diff[0]!)![0]);
                return `${where}: ${name}: ${diff.slice(0, 3).join(', ')}: ${JSON.stringify(text.slice(Math.max(0, at - 80), at + 40))}`;
            }
        }
        return null;
    } finally {
        tree.delete();
    }
}

const N = 'target';
/** Top-level C items around the name, the hard cases among them. */
const ITEMS: ((i: number) => string)[] = [
    (i) => `int user${i}(int x)\n{\n\treturn ${N}(x) + ${i};\n}\n`,
    (i) => `/*\n * ${N} in a block comment that starts before the item\n */\nstatic int quiet${i}(void)\n{\n\treturn ${i}; /* ${N} */\n}\n`,
    (i) => `static const char *s${i} = "say \\"${N}\\" twice: ${N}";\nstatic const char c${i} = '\\'';\nint after${i} = ${N};\n`,
    (i) => `#define CALL${i}(x) ${N}(x) \\\n\t+ ${N}(x)\nint use${i}(void) { return CALL${i}(1); }\n`,
    (i) => `#if 0\nstatic void old${i}(void)\n{\n\t${N}(); /* don't */\n}\n#endif\n`,
    (i) => `#if 0\nThis isn't code: ${N} here is prose.\n#endif\nint prose${i};\n`,
    (i) => `struct holder${i} {\n\tint (*${N})(int);\n\tint n; // ${N} \\\n\tstill ${N} in the comment\n};\n`,
    (i) => `int ${N}(int x)\n{\n\treturn x * ${i};\n}\n`,
    (i) => `static const wchar_t *w${i} = L"${N}" u8"${N}";\nint pre${i} = sizeof(u'x') + ${N};\n`,
    (i) => `#include <linux/${N}.h>\n#include "${N}.h"\nint inc${i} = ${N}\n\t(${i});\n`,
    (i) => `void label${i}(void)\n{\n${N}:\n\tgoto ${N};\n}\n`,
    (i) => `int cont${i} = 1 + \\\n\t${N};\n/* ${N} */ int after_comment${i} = ${N};\n`,
];
const filler = (i: number): string => `static int pad${i}(void)\n{\n${Array.from({ length: 10 }, (_, k) => `\tint v${k} = ${i} * ${k}; /* padding ${k} */`).join('\n')}\n\treturn 0;\n}\n`;

describe('the C lexer against tree-sitter-c', () => {
    it('tells every occurrence as the whole parse does over seeded random files of hard cases (seeds 1-200)', async () => {
        const { parser } = await loaded(languageOf('x.c')!);
        const tally: Tally = { names: 0, occurrences: 0, told: 0, untold: 0 };
        for (let seed = 1; seed <= 200; seed++) {
            const rnd = mulberry32(seed);
            const parts: string[] = [];
            for (let i = 0, n = 6 + Math.floor(rnd() * 20); i < n; i++) parts.push(rnd() < 0.5 ? ITEMS[Math.floor(rnd() * ITEMS.length)]!(i) : filler(i));
            const text = parts.join('\n');
            expect(compare(parser, text, [N, 'pad1', 'x', 'v3', 'CALL2', 'holder1', 'say', 'n'], tally, `seed ${seed}`)).toBeNull();
        }
        // Not vacuous: most names were told by the lexer, some were not (and are parsed).
        expect(tally.told).toBeGreaterThan(400);
        expect(tally.untold).toBeGreaterThan(100);
    });

    it('tells the names no lexer may: keywords and primitive types are never taken for identifiers', async () => {
        const { parser } = await loaded(languageOf('x.c')!);
        for (const name of ['while', 'size_t', 'NULL', 'true', 'asm', 'defined', 'bool', 'uint32_t', '__attribute__', 'offsetof', '2x', 'a-b', '$x']) expect(plainIdentifier(parser, name), name).toBe(false);
        for (const name of ['mutex_destroy', 'kvm_make_request', 'u8', 'x', 'list_head']) expect(plainIdentifier(parser, name), name).toBe(true);
    });

    it.skipIf(!fs.existsSync(KERNEL))('tells every occurrence as the whole parse does over 400 files of the Linux tree (seeded sample, 12 of each file\'s words)', async () => {
        const { parser } = await loaded(languageOf('x.c')!);
        const files = kernelFiles();
        const rnd = mulberry32(2026);
        const tally: Tally = { names: 0, occurrences: 0, told: 0, untold: 0 };
        for (let k = 0; k < 400; k++) {
            const rel = files[Math.floor(rnd() * files.length)]!;
            const text = fs.readFileSync(path.join(KERNEL, rel), 'utf8');
            if (text.length > 300_000) continue;
            const words = [...new Set(text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [])];
            const names = Array.from({ length: 12 }, () => words[Math.floor(rnd() * words.length)]!).filter(Boolean);
            expect(compare(parser, text, names, tally, rel)).toBeNull();
        }
        expect(tally.told).toBeGreaterThan(2 * tally.untold);
    });
});

/** The tree's .c and .h files, in a fixed order (a few directories' worth, so the walk stays short). */
function kernelFiles(): string[] {
    const out: string[] = [];
    for (const top of ['kernel', 'mm', 'fs/ext4', 'drivers/gpu/drm/i915', 'net/ipv4', 'include/linux', 'arch/x86/kvm', 'drivers/usb/core', 'sound/core']) {
        const walk = (rel: string): void => {
            for (const e of fs.readdirSync(path.join(KERNEL, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
                const r = `${rel}/${e.name}`;
                if (e.isDirectory()) walk(r);
                else if (e.isFile() && /\.[ch]$/.test(e.name)) out.push(r);
            }
        };
        if (fs.existsSync(path.join(KERNEL, top))) walk(top);
    }
    return out;
}
