/**
 * File-scope initializers (`= { … }`) left out of the definitions' parse as function bodies are
 * (workers/symbols/bodies.ts): what the scan leaves out and keeps, and that the outline, the
 * checkpoints and the references' enclosing definitions are those of the parse that leaves out
 * the function bodies alone (the same worker code whose `withoutBodies` is asked for no
 * initializers). A variable whose initializer the grammar reads with an error (a macro among the
 * items without a comma) is a definition in both, as ctags has it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runSymbolsTask } from '../../../workers/symbols/symbols.js';
import { withoutBodies } from '../../../workers/symbols/bodies.js';
import type { FileSymbols, SymbolsTask } from '../../../src/symbols/shared/types.js';
import { parsedText, outlineLines, symbolsWith, writeTemp, type SymbolsRun } from '../../support/symbols.js';

type Run = SymbolsRun;
let bodiesRun: Run;
/** The calls of the oracle's `withoutBodies`: the oracle's parse asks it, not the module's own. */
let oracleCalls = 0;

// The oracle is a second instance of symbols.ts alone (see c-bodies.test.ts), whose bodies.ts
// leaves out function bodies only.
const ORACLE_SYMBOLS = '../../../workers/symbols/symbols.js?bodies-only';
beforeAll(async () => {
    vi.doMock('../../../workers/symbols/bodies.js', async (original) => {
        const real = await original<typeof import('../../../workers/symbols/bodies.js')>();
        return { ...real, withoutBodies: (text: string) => (oracleCalls++, real.withoutBodies(text, false)) };
    });
    bodiesRun = ((await import(/* @vite-ignore */ ORACLE_SYMBOLS)) as typeof import('../../../workers/symbols/symbols.js')).runSymbolsTask;
    vi.doUnmock('../../../workers/symbols/bodies.js');
});
afterAll(() => vi.doUnmock('../../../workers/symbols/bodies.js'));

const symbols = symbolsWith;
const write = (name: string, text: string): string => writeTemp('lcf-c-inits-', name, text);
const seen = parsedText;
const outline = outlineLines;

/** Each initializer in the list is left out: the oracle's and ours give the same rows, checkpoints and references. */
async function same(name: string, text: string): Promise<FileSymbols & { ok: true }> {
    const file = write(name, text);
    const calls = oracleCalls;
    const ours = await symbols(runSymbolsTask, file, { checkpoints: true, spans: true });
    const oracle = await symbols(bodiesRun, file, { checkpoints: true, spans: true });
    expect(oracleCalls, name).toBeGreaterThan(calls);
    expect(outline(ours), name).toEqual(outline(oracle));
    expect(ours.sigSpans, name).toEqual(oracle.sigSpans);
    expect(ours.checkpoints, name).toEqual(oracle.checkpoints);
    const refs = await symbols(runSymbolsTask, file, { references: 'target' });
    const oracleRefs = await symbols(bodiesRun, file, { references: 'target' });
    expect(refs.references, name).toEqual(oracleRefs.references);
    expect(outline(refs), name).toEqual(outline(oracleRefs));
    return ours;
}

const SOURCE = [
    '#include <linux/pci.h>', // 1
    'static const struct pci_device_id ids[] = {',
    '\t{ PCI_DEVICE(0x8086, 0x1234), .driver_data = (kernel_ulong_t)&info_a },',
    '\t{ PCI_VDEVICE(INTEL, 0x5678), 0 },',
    '\t{ }', // 5
    '};',
    'static const char *const names[] = { "a } {", "\\" }", \'{\', /* } */ "b" };',
    'static const struct file_operations fops = {',
    '\t.owner = THIS_MODULE,',
    '\t.read = target_read, // a } in a line comment', // 10
    '\t.llseek = noop_llseek,',
    '};',
    'static int regs[4][2] = { [0] = { 1, 2 }, [1 ... 2] = { 3, 4 }, [3] = { target } };',
    'int target;',
    'static void *ptrs[] = { &(struct pt { int a; }){ 1 }, NULL };', // 15
    'static int counts[] = {',
    '#ifdef CONFIG_A',
    '\t1,',
    '#endif',
    '\t2,', // 20
    '};',
    'static int target_read(void)',
    '{',
    '\treturn regs[0][0] + target;',
    '}', // 25
    'struct point { int x, y; } origin = { .x = 0, .y = 0 }, unit = { 1, 1 };',
    'static const struct point *cp = &(const struct point){ .x = 2 };',
    'enum mode { MODE_A, MODE_B } mode = MODE_A;',
    'typedef struct { int a; } pair_t;',
    'static pair_t pairs[] = { { 1 }, { 2 } };', // 30
    '',
].join('\n');

describe('C file-scope initializers left out of the definitions\' parse', () => {
    it('leaves out the inside of initializers, braces kept; keeps those with a directive or a type defined in them', () => {
        const b = withoutBodies(SOURCE)!;
        expect(withoutBodies(SOURCE, false)!.inits.size).toBe(0);
        const lines = seen(SOURCE)!.split('\n');
        const src = SOURCE.split('\n');
        expect(lines.length).toBe(src.length);
        expect(lines[1]).toBe(src[1]);
        expect(lines.slice(2, 5).every((l) => l.trim() === '')).toBe(true);
        expect(lines[5]).toBe('};');
        expect(lines[6]!.trimEnd()).toBe('static const char *const names[] = {' + ' '.repeat(src[6]!.length - 'static const char *const names[] = {'.length - 2) + '};');
        expect(lines.slice(8, 11).every((l) => l.trim() === '')).toBe(true);
        expect(lines[12]!.replace(/ +/g, ' ')).toBe('static int regs[4][2] = { };');
        // A struct defined in a compound literal, an #ifdef: read whole.
        expect(lines[14]).toBe(src[14]);
        expect(lines.slice(15, 21)).toEqual(src.slice(15, 21));
        // Two declarators' initializers, a function's body, and the last list.
        expect(lines[25]!.replace(/ +/g, ' ')).toBe('struct point { int x, y; } origin = { }, unit = { };');
        expect(lines[29]!.replace(/ +/g, ' ')).toBe('static pair_t pairs[] = { };');
        expect(lines[23]!.trim()).toBe('');
        expect([...b.inits].map((at) => SOURCE.charAt(at))).toEqual(Array(b.inits.size).fill('{'));
        expect(b.inits.size).toBe(7);
        for (const at of b.inits) expect(b.bodies).toContain(at);
    });

    it('gives the rows, signatures, checkpoints and references the parse with function bodies alone left out gives', async () => {
        const ours = await same('inits.c', SOURCE);
        // Every declarator, nested or second in its list (declarators.ts); a list holding an
        // #ifdef is one the grammar reads with an error, left out.
        expect(ours.definitions.filter((d) => d.kind === 'variable').map((d) => `${d.line}-${d.endLine} ${d.name}`)).toEqual([
            '2-6 ids',
            '7-7 names',
            '8-12 fops',
            '13-13 regs',
            '14-14 target',
            '15-15 ptrs',
            '26-26 origin',
            '26-26 unit',
            '27-27 cp',
            '28-28 mode',
            '30-30 pairs',
        ]);
    });

    it('gives the same rows with CRLF line ends, nested lists, macros and a struct defined in a list', async () => {
        await same('crlf.c', SOURCE.replaceAll('\n', '\r\n'));
        const nested = ['static struct ops table[] = {', '\t[OP_A] = { .fn = op_a, .args = { 1, 2, { 3 } } },', '\tOPS_ENTRY(OP_B, op_b),', '\t{ .fn = NULL, .s = { .v = 1 } },', '};', 'int after(void) { return table[0].args[0]; }', ''].join('\n');
        expect(withoutBodies(nested)!.inits.size).toBe(1);
        await same('nested.c', nested);
        // A struct defined in a compound literal in the list: read whole.
        const literal = 'static struct ops table[] = {\n\t{ .s = (struct inner { int v; }){ .v = 1 } },\n};\n';
        expect(withoutBodies(literal)).toBeUndefined();
        await same('literal.c', literal);
        const local = 'static struct { int a; struct deep { int b; } d; } holder = { 1, { 2 } };\nstatic int x = { target };\n';
        await same('local.c', local);
    });

    it('parses as written a file cut in an initializer, and one whose list the grammar does not read as a declaration\'s', async () => {
        const cut = 'int a[] = { 1, 2,\nint f(void) { return 0; }\n';
        expect(withoutBodies(cut)).toBeUndefined();
        await same('cut.c', cut);
        // `MACRO(x) = { … }` is not a declaration to the grammar: the functions' bodies alone are left out.
        const odd = 'DEFINE_THING(thing) = { .a = 1, .b = { 2 } };\nint f(void)\n{\n\treturn target;\n}\nint g = { 3 };\n';
        expect(withoutBodies(odd)!.inits.size).toBe(2);
        await same('odd.c', odd);
    });

    // 300 blocks: past those left out as ranges, blanked in a copy of the text.
    it('gives the same rows past 256 blocks, initializers and bodies blanked in a copy', async () => {
        const text = Array.from({ length: 150 }, (_, k) => `static const int t${k}[] = {\n${'\t1, 2, 3, 4,\n'.repeat(12)}};\nint f${k}(void)\n{\n\treturn t${k}[0] + target;\n}\n`).join('\n');
        const b = withoutBodies(text)!;
        expect(b.text).toBeDefined();
        expect(b.inits.size).toBe(150);
        const ours = await same('many.c', text);
        expect(ours.definitions.length).toBe(300);
        expect(ours.checkpoints!.length).toBeGreaterThan(4);
    });

    it('finds a variable whose list the grammar reads with an error, which the parse of the list drops', async () => {
        const text = ['static const struct dev_pm_ops foo_pm_ops = {', '\tSET_SYSTEM_SLEEP_PM_OPS(foo_suspend, foo_resume)', '\tSET_RUNTIME_PM_OPS(foo_rt_suspend, foo_rt_resume, NULL)', '};', 'int foo_probe(void) { return 0; }', ''].join('\n');
        const file = write('pm.c', text);
        const ours = outline(await symbols(runSymbolsTask, file));
        const oracle = outline(await symbols(bodiesRun, file));
        // An error inside the list does not make the whole parse drop the variable either (workers/symbols/declarators.ts).
        expect(ours).toEqual(['1-4 variable foo_pm_ops — static const struct dev_pm_ops foo_pm_ops = {', '5-5 function foo_probe — int foo_probe(void) { return 0; }']);
        expect(oracle).toEqual(ours);
    });
});
