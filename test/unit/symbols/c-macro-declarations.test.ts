/**
 * C declarations made of a macro call alone (`static const DECLARE_TLV_DB_SCALE(hp_vol_tlv, -2250,
 * 150, 0);`), blanked for the definitions' parse (workers/symbols/repairs.ts
 * `withoutMacroDeclarations`): what is blanked and kept, and that a file whose longer such
 * declaration made error recovery take the declarations after it (the grammar read the next
 * initializer as a block holding the rest of the file, so the parse without function bodies did
 * not hold and the file was parsed three times) is parsed once, its outline that of the parse of
 * the whole file (a second instance of symbols.ts whose `withoutBodies` leaves nothing out, as in
 * c-bodies.test.ts), with the variables after the macro, as ctags has them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Parser } from 'web-tree-sitter';
import { runSymbolsTask } from '../../../workers/symbols/symbols.js';
import { loaded } from '../../../workers/symbols/parser.js';
import { withoutMacroDeclarations } from '../../../workers/symbols/repairs.js';
import { languageOf } from '../../../src/symbols/shared/languages.js';
import { outlineLines, symbolsWith, writeTemp, type SymbolsRun } from '../../support/symbols.js';

let wholeRun: SymbolsRun;
/** The calls of the oracle's `withoutBodies`: the oracle's parse asks it, not the module's own. */
let wholeCalls = 0;

const WHOLE_SYMBOLS = '../../../workers/symbols/symbols.js?macro-declarations-whole';
beforeAll(async () => {
    vi.doMock('../../../workers/symbols/bodies.js', async (original) => ({ ...(await original<object>()), withoutBodies: () => void wholeCalls++ }));
    wholeRun = ((await import(/* @vite-ignore */ WHOLE_SYMBOLS)) as typeof import('../../../workers/symbols/symbols.js')).runSymbolsTask;
    vi.doUnmock('../../../workers/symbols/bodies.js');
});
afterAll(() => vi.doUnmock('../../../workers/symbols/bodies.js'));
afterEach(() => vi.restoreAllMocks());

const write = (name: string, text: string): string => writeTemp('lcf-c-macro-decl-', name, text);

/** The parses of the C grammar's parser (one per thread, the worker's) while `run` runs. */
async function parsesDuring<T>(run: () => Promise<T>): Promise<{ result: T; parses: number }> {
    const { parser } = await loaded(languageOf('x.c')!);
    const parse = vi.spyOn(parser as Parser, 'parse');
    const result = await run();
    const parses = parse.mock.calls.length;
    parse.mockRestore();
    return { result, parses };
}

const CODEC = [
    '#include <sound/tlv.h>', // 1
    '',
    'static int codec_volatile_register(struct device *dev, unsigned int reg)',
    '{',
    '\tswitch (reg) {', // 5
    '\tcase 1:',
    '\t\treturn true;',
    '\tdefault:',
    '\t\treturn false;',
    '\t}', // 10
    '}',
    '',
    'static const DECLARE_TLV_DB_SCALE(hp_vol_tlv, -2250, 150, 0);',
    'static const DECLARE_TLV_DB_SCALE(in_bst_tlv, -1200, 75, 0);',
    '', // 15
    '/* {0, +20, +24, +30, +35, +40, +44, +50, +52} dB */',
    'static const DECLARE_TLV_DB_RANGE(bst_tlv,',
    '\t0, 0, TLV_DB_SCALE_ITEM(0, 0, 0),',
    '\t1, 1, TLV_DB_SCALE_ITEM(2000, 0, 0),',
    '\t2, 2, TLV_DB_SCALE_ITEM(2400, 0, 0),', // 20
    '\t3, 5, TLV_DB_SCALE_ITEM(3000, 500, 0),',
    '\t6, 6, TLV_DB_SCALE_ITEM(4400, 0, 0),',
    '\t7, 7, TLV_DB_SCALE_ITEM(5000, 0, 0),',
    '\t8, 8, TLV_DB_SCALE_ITEM(5200, 0, 0)',
    ');', // 25
    '',
    '/* Interface data select */',
    'static const char * const codec_data_select[] = {',
    '\t"L/R", "R/L", "L/L", "R/R"',
    '};', // 30
    '',
    'static int codec_hp_vol_put(struct snd_kcontrol *kcontrol, struct snd_ctl_elem_value *ucontrol)',
    '{',
    '\treturn snd_soc_put_volsw(kcontrol, ucontrol);',
    '}', // 35
    '',
    'static const struct snd_kcontrol_new codec_snd_controls[] = {',
    '\tSOC_DOUBLE_TLV("Headphone Playback Volume", 1, 0, 8, 31, 1, hp_vol_tlv),',
    '};',
    '', // 40
    'int codec_probe(struct device *dev)',
    '{',
    '\treturn codec_volatile_register(dev, 1);',
    '}',
    '',
].join('\n');

describe('C declarations made of a macro call alone', () => {
    it('blanks each such declaration at a line start, offsets and newlines kept, and nothing else', () => {
        const kept = [
            'static DEFINE_MUTEX(lock);', // no qualifier: the grammar reads a prototype
            '\tstatic const DECLARE_TLV_DB_SCALE(in_body, 0, 1, 0);', // not at a line's start
            'static const DECLARE_X(init) = { 1 };', // an initializer after the call
            'static const DECLARE_Y(braced, { 1 });', // a brace in the arguments
            'static const DECLARE_Z(open, 1', // no `)` before the `;`
            '#define TLV(n) \\',
            'static const DECLARE_TLV_DB_SCALE(n, 0, 1, 0);', // a macro's body
            'static const DECLARE_W(commented /* see',
            '#define LATER 1 */, 2);', // a directive's line in it, read by lostMacros
            'static const struct foo bar = FOO(1);',
        ].join('\n');
        expect(withoutMacroDeclarations(kept)).toBe(kept);
        const source = CODEC.split('\n');
        const blanked = withoutMacroDeclarations(CODEC);
        expect(blanked.length).toBe(CODEC.length);
        const lines = blanked.split('\n');
        expect(lines.length).toBe(source.length);
        for (let row = 0; row < source.length; row++) {
            const macro = (row >= 12 && row <= 13) || (row >= 16 && row <= 24);
            expect(lines[row], `line ${row + 1}`).toBe(macro ? ' '.repeat(source[row]!.length) : source[row]);
        }
        const odd = 'const volatile FOO(a, "x;)", \'(\', /* ) */ b)\n ;\nint after;';
        expect(withoutMacroDeclarations(odd)).toBe(odd.replace(/^[^]*;\n/, (m) => m.replace(/[^\n]/g, ' ')));
    });

    it('parses a file that such a declaration misled once, its outline the whole parse\'s, the variables after it kept', async () => {
        const file = write('codec.c', CODEC);
        const { result: ours, parses } = await parsesDuring(() => symbolsWith(runSymbolsTask, file, { checkpoints: true, spans: true }));
        expect(parses).toBe(1);
        const calls = wholeCalls;
        const whole = await symbolsWith(wholeRun, file, { checkpoints: true, spans: true });
        expect(wholeCalls).toBeGreaterThan(calls);
        expect(outlineLines(ours)).toEqual(outlineLines(whole));
        expect(ours.sigSpans).toEqual(whole.sigSpans);
        expect(ours.checkpoints).toEqual(whole.checkpoints);
        expect(ours.definitions.map((d) => `${d.line}-${d.endLine} ${d.kind} ${d.name}`)).toEqual([
            '3-11 function codec_volatile_register',
            '28-30 variable codec_data_select',
            '32-35 function codec_hp_vol_put',
            '37-39 variable codec_snd_controls',
            '41-44 function codec_probe',
        ]);
        // The enclosing definitions of the uses are the outline's.
        const refs = await symbolsWith(runSymbolsTask, file, { references: 'codec_volatile_register' });
        const wholeRefs = await symbolsWith(wholeRun, file, { references: 'codec_volatile_register' });
        expect(refs.references).toEqual(wholeRefs.references);
        expect(refs.references!.map((r) => r.line)).toEqual([3, 43]);
        expect(outlineLines(refs)).toEqual(outlineLines(wholeRefs));
    });
});
