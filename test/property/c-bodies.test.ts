/**
 * C function bodies blanked for the definitions' parse (workers/symbols/bodies.ts) against the
 * parse of the text as written (the same worker code with the blanking off): over seeded random C
 * files built of hard cases (literals and comments holding braces and quotes, directives and
 * `#else` in bodies, local types, K&R, macros before a body, blocks in macro arguments), the same
 * definitions, checkpoints and references' enclosing definitions; and the C lexer started at the
 * blanked parse's checkpoints tells each occurrence as the parse as written does; file-scope
 * initializer lists are left out too, and where the parse as written read one with an error (its
 * variable then dropped), the variable is kept and the checkpoints, spaced otherwise, still lie
 * where its file-scope items begin. Over a seeded
 * sample of the Linux tree's C files when it is on this machine: the same definitions, or the
 * parse as written met an error (where its error recovery runs past a function's end, the blanked
 * parse, whose bodies hold no error, is the one that reads the functions as ctags does).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Node } from 'web-tree-sitter';
import { runSymbolsTask } from '../../workers/symbols/symbols.js';
import { codeOccurrences } from '../../workers/symbols/c-lexer.js';
import { withoutBodies } from '../../workers/symbols/bodies.js';
import { occurrencesOf } from '../../workers/symbols/words.js';
import { loaded, parseWithin } from '../../workers/symbols/parser.js';
import { languageOf } from '../../src/symbols/shared/languages.js';
import type { FileSymbols, SymbolsTask } from '../../src/symbols/shared/types.js';
import { mulberry32 } from '../../bench/tree.js';
import { tempDir } from '../support/helpers.js';

const KERNEL = process.env['KERNEL_TREE'] ?? '/root/.cache/llm-chat-file-corpora/linux-source-6.1';

type Run = (task: SymbolsTask) => ReturnType<typeof runSymbolsTask>;
let plainRun: Run;

/** The calls of the oracle's `withoutBodies`: the oracle's parse asks it, not the module's own. */
let plainCalls = 0;
// The oracle is a second instance of symbols.ts alone (the query makes it another module), whose
// import of bodies.ts the mock answers; every other module stays the one the fork loaded. A reset
// of the module registry instead would make each next file of this fork load its modules again.
const PLAIN_SYMBOLS = '../../workers/symbols/symbols.js?plain';
beforeAll(async () => {
    vi.doMock('../../workers/symbols/bodies.js', async (original) => ({ ...(await original<object>()), withoutBodies: () => void plainCalls++ }));
    plainRun = ((await import(/* @vite-ignore */ PLAIN_SYMBOLS)) as typeof import('../../workers/symbols/symbols.js')).runSymbolsTask;
    expect((await import('../../workers/symbols/bodies.js')).withoutBodies('int f(void) { return 0; }')).toBeUndefined();
    vi.doUnmock('../../workers/symbols/bodies.js');
    // The oracle's parse of a C file asks the mock.
    const calls = plainCalls;
    const file = path.join(tempDir('lcf-c-bodies-oracle-'), 'oracle.c');
    fs.writeFileSync(file, 'int f(void) { return 0; }\n');
    await symbols(plainRun, file);
    expect(plainCalls).toBeGreaterThan(calls);
});
afterAll(() => vi.doUnmock('../../workers/symbols/bodies.js'));

async function symbols(run: Run, file: string, extra: Partial<SymbolsTask> = {}): Promise<FileSymbols & { ok: true }> {
    const r = (await run({ op: 'symbols', files: [{ shown: file, real: file }], realRoots: null, maxBytes: 1 << 20, parseMs: 120_000, ...extra })).files[0]!;
    if (!r.ok) throw new Error(`${file}: ${r.message}`);
    return r;
}

const outline = (r: FileSymbols & { ok: true }): string[] => r.definitions.map((d) => `${d.line}-${d.endLine} ${d.kind} ${[...d.container, d.name].join('.')} — ${d.signature}`);

/** Top-level items, `N` a number the generator fills in (names differ per item). */
const ITEMS: readonly string[] = [
    'static int plainN(int a)\n{\n\treturn a + target;\n}\n',
    'int strN(void)\n{\n\tconst char *s = "} { \\" \' /* not a comment";\n\tchar c = \'{\', d = \'\\\'\';\n\treturn s[0] + c + d + target;\n}\n',
    'void commentN(void)\n{\n\t/* a { in a comment\n\t   } over lines */\n\t// a line comment { continued \\\n\t   on the next line }\n\ttarget++;\n}\n',
    'int dirN(int a)\n{\n#define LOCAL_N(x) { (x) }\n#if defined(A) /* { */\n\ta++;\n#endif\n\treturn a + target;\n}\n',
    'int elseN(int a)\n{\n#ifdef B\n\ta = 1;\n#elif defined(C)\n\ta = 2;\n#else\n\ta = target;\n#endif\n\treturn a;\n}\n',
    'static int typesN(void)\n{\n\tstruct localN { int x; } v = { target };\n\tenum { EN_A, EN_B } e = EN_A;\n\ttypedef int localN_t;\n\tunion uN { int a; long b; };\n\treturn v.x + e;\n}\n',
    'int krN(a, b)\n\tint a;\n\tint b;\n{\n\treturn a + b + target;\n}\n',
    'static void __attribute__((noinline)) attrN(void) {\n\tif (target) { target--; }\n}\n',
    'DEFINE_THINGN(name) {\n\ttarget = 2;\n}\n',
    'SYSCALL_DEFINE2(callN, int, a, int __user *, b)\n{\n\treturn target;\n}\n',
    'TRACE_EVENT(evN,\n\tTP_fast_assign(\n\t\tif (target) {\n\t\t\t__entry->a = 1;\n\t\t}\n\t)\n);\n',
    'static const char *multiN = "first \\\nsecond } {";\n',
    'struct sN {\n\tint a;\n\tint (*fn)(int);\n};\n',
    'static struct sN tableN[] = {\n\t{ 1, NULL },\n\t{ 2, NULL },\n};\n',
    'typedef struct { int a; } tN;\nenum eN { EN_XN, EN_YN };\n',
    '#define MACRO_N(x) do { (x)++; } while (0)\n',
    '#ifdef CONFIG_N\nint condN(void)\n{\n\treturn target;\n}\n#else\nstatic inline int condN(void) { return 0; }\n#endif\n',
    '#ifdef SPLIT_N\nint splitN(int a)\n#else\nint splitN(int a, int b)\n#endif\n{\n\treturn a + target;\n}\n',
    'int __init initN(void)\n{\n\tint i;\n\tfor (i = 0; i < 4; i++) {\n\t\tif (i) { target += i; } else { target -= i; }\n\t}\n\treturn 0;\n}\n',
    'static inline u32 __must_check readN(const volatile void __iomem *p) { return *(u32 *)p + target; }\n',
    'int target;\n',
];

function generated(rnd: () => number, k: number): string {
    const n = 4 + Math.floor(rnd() * 14);
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(ITEMS[Math.floor(rnd() * ITEMS.length)]!.replaceAll('N', `${k}_${i}`));
    return parts.join(rnd() < 0.5 ? '\n' : '');
}

/** Occurrences the parse of the text as written reads as an identifier of that text (symbols.ts, `referencesIn`). */
function parsedCode(root: Node, name: string, occurrences: readonly number[]): number[] {
    return occurrences.filter((i) => {
        const node = root.descendantForIndex(i, i + name.length);
        return node !== null && node.text === name && (node.type.endsWith('identifier') || node.type === 'constant' || node.type === 'name');
    });
}

/**
 * File-scope declarations whose initializer list the parse as written read with an error: their
 * first and last rows (1-based).
 */
function flawedLists(root: Node): [number, number][] {
    const out: [number, number][] = [];
    const visit = (node: Node): void => {
        for (const c of node.children) {
            if (c === null) continue;
            if (c.type.startsWith('preproc_') && c.type !== 'preproc_def' && c.type !== 'preproc_function_def') visit(c);
            const lists = c.type === 'declaration' ? c.namedChildren.filter((d) => d?.type === 'init_declarator').map((d) => d!.childForFieldName('value')) : [];
            if (lists.some((v) => v?.type === 'initializer_list' && v.hasError)) out.push([c.startPosition.row + 1, c.endPosition.row + 1]);
        }
    };
    visit(root);
    return out;
}

describe('C bodies blanked: the definitions of the text as written', () => {
    it('over seeded random C files of hard cases: definitions, checkpoints, enclosing definitions and the lexer from the checkpoints', async () => {
        const rnd = mulberry32(2026);
        const dir = tempDir('lcf-c-bodies-prop-');
        const { parser } = await loaded(languageOf('x.c')!);
        let [blanked, points, lists] = [0, 0, 0];
        for (let k = 0; k < 120; k++) {
            const text = generated(rnd, k);
            const file = path.join(dir, `g${k}.c`);
            fs.writeFileSync(file, text);
            const ours = await symbols(runSymbolsTask, file, { checkpoints: true });
            const plain = await symbols(plainRun, file, { checkpoints: true });
            // A file-scope list the parse as written reads with an error (`NULL` made `k_iULL` by the
            // generator) is left out, and its variable kept, as the parse as written keeps it too
            // (an error inside a list's value does not drop its variable, declarators.ts). Its
            // checkpoints then follow another spacing, each still where an item of the parse as
            // written begins at file scope (what a parse or the lexer started there needs).
            const written = parseWithin(parser, text, 60_000)!;
            const flawed = flawedLists(written.rootNode);
            const itemStarts = written.rootNode.children.map((c) => `${c!.startIndex}:${c!.startPosition.row}`);
            written.delete();
            expect(outline(ours), file).toEqual(outline(plain));
            if (flawed.length === 0) expect(ours.checkpoints, file).toEqual(plain.checkpoints);
            else {
                lists++;
                for (let i = 0; i < ours.checkpoints!.length; i += 2) expect(itemStarts, file).toContain(`${ours.checkpoints![i]}:${ours.checkpoints![i + 1]}`);
            }
            const refs = await symbols(runSymbolsTask, file, { references: 'target' });
            const plainRefs = await symbols(plainRun, file, { references: 'target' });
            expect(refs.references, file).toEqual(plainRefs.references);
            // With uses asked, a parse with an error adds the macros the query left out of the uses'
            // lines (repairs.ts, `lostMacros`): the parse as written did, for the list's error.
            const oursRefs = outline(refs);
            expect(oursRefs, file).toEqual(outline(plainRefs).filter((l) => flawed.length === 0 || !/^\d+-\d+ macro /.test(l) || oursRefs.includes(l)));
            const starts = (ours.checkpoints ?? []).filter((_, i) => i % 2 === 0);
            points += starts.length;
            const occ = occurrencesOf(text, 'target');
            const lexed = codeOccurrences(text, 'target', occ, starts);
            if (lexed !== null) {
                const tree = parseWithin(parser, text, 60_000)!;
                expect(lexed, file).toEqual(parsedCode(tree.rootNode, 'target', occ));
                tree.delete();
            }
            if (withoutBodies(text) !== undefined) blanked++;
        }
        // Most files had bodies blanked, and there were checkpoints to lex from.
        expect(blanked).toBeGreaterThan(60);
        expect(points).toBeGreaterThan(0);
        expect(lists).toBeGreaterThan(0);
    });

    it.skipIf(!fs.existsSync(path.join(KERNEL, 'kernel')))('over a seeded sample of the Linux tree: the same definitions, or the parse as written met an error', async () => {
        const rnd = mulberry32(27);
        const all: string[] = [];
        for (const d of ['kernel', 'mm', 'fs/ext4', 'net/ipv4', 'drivers/net/ethernet/intel/e1000', 'include/linux']) {
            for (const e of fs.readdirSync(path.join(KERNEL, d), { recursive: true, encoding: 'utf8' })) if (/\.[ch]$/.test(e)) all.push(path.join(KERNEL, d, e));
        }
        all.sort();
        const files = Array.from({ length: 60 }, () => all[Math.floor(rnd() * all.length)]!).filter((f) => fs.statSync(f).size < 1 << 20);
        const { parser } = await loaded(languageOf('x.c')!);
        let differ = 0;
        for (const file of files) {
            const ours = outline(await symbols(runSymbolsTask, file));
            const plain = outline(await symbols(plainRun, file));
            if (ours.join('\n') === plain.join('\n')) continue;
            differ++;
            const tree = parseWithin(parser, fs.readFileSync(file, 'utf8'), 60_000)!;
            expect(tree.rootNode.hasError, `${file}: definitions differ from the parse as written, which met no error`).toBe(true);
            tree.delete();
        }
        expect(differ).toBeLessThan(files.length / 10);
    });
});
