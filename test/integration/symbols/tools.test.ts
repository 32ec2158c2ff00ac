/** The code-navigation tools through the package: outputs, the read they count as, errors with kinds, and the option that turns them on. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AccessType } from '../../../src/config/shared/configuration.js';
import { NAVIGATION_TOOL_NAMES } from '../../../src/tools/catalog.js';
import { jsonSchemaOf } from '../../../src/tools/schema.js';
import { FileOutlineTool } from '../../../src/tools/file-outline.js';
import { FindReferencesTool } from '../../../src/tools/find-references.js';
import { FindSymbolTool } from '../../../src/tools/find-symbol.js';
import { ReadSymbolTool } from '../../../src/tools/read-symbol.js';
import { RepoMapTool } from '../../../src/tools/repo-map.js';
import { makePackage, one, snapshot, tempDir, writeTree } from '../../support/helpers.js';

const C = ['#include "util.h"', '', 'static int counter;', '', 'int util_add(int a, int b)', '{', '\treturn a + b; /* util_add in a comment */', '}', '', 'void run(void)', '{', '\tcounter = util_add(1, 2);', '}', ''].join('\n');
const H = ['#define UTIL_MAX 8', 'int util_add(int a, int b);', ''].join('\n');
const TS = ['export class Engine {', '    search(q: string): number {', '        return q.length;', '    }', '}', 'export function util_add(x: number): number {', '    return new Engine().search(String(x));', '}', ''].join('\n');

function project() {
    const root = tempDir('lcf-nav-');
    writeTree(root, { 'src/util.c': C, 'src/util.h': H, 'web/engine.ts': TS, 'docs/notes.txt': 'util_add is documented here\n', 'src/blob.c': Buffer.from([0, 1, 2, 3, 0, 0, 0, 0]) });
    return { root, ...makePackage(root, { packageOptions: { navigation: true } }) };
}

describe('code navigation tools', () => {
    it('are off unless the package option turns them on', () => {
        const root = tempDir('lcf-nav-off-');
        expect(makePackage(root).pkg.tools().map((t) => t.name)).not.toContain('file_outline');
        expect(makePackage(root, { packageOptions: { navigation: true } }).pkg.tools().map((t) => t.name).slice(-NAVIGATION_TOOL_NAMES.length)).toEqual([...NAVIGATION_TOOL_NAMES]);
    });

    it('file_outline: the definitions as an indented outline with line ranges', async () => {
        const p = project();
        const r = await one(p.tool('file_outline'), { path: 'web/engine.ts' });
        expect(r.status).toBe('success');
        expect(r.result).toBe(
            [`--- ${path.join(p.root, 'web/engine.ts')} (typescript, 8 lines, 3 definitions) ---`, '1-5 class Engine', '  2-4 method search — search(q: string): number {', '6-8 function util_add — export function util_add(x: number): number {'].join('\n'),
        );
        const top = await one(p.tool('file_outline'), { path: 'web/engine.ts', depth: 1 });
        expect(top.result).not.toContain('method search');
        const c = await one(p.tool('file_outline'), { path: 'src/util.c' });
        expect(c.result).toContain('\n3 variable counter\n5-8 function util_add — int util_add(int a, int b)\n10-13 function run — void run(void)');
    });

    it('file_outline cuts a long outline at maxCharsPerFile and says how to see the rest', async () => {
        const root = tempDir('lcf-nav-long-');
        writeTree(root, { 'many.py': Array.from({ length: 400 }, (_, i) => `def function_number_${i}():\n    pass\n`).join('') });
        const p = makePackage(root, { maxCharsPerFile: 1000, packageOptions: { navigation: true } });
        const r = await one(p.tool('file_outline'), { path: 'many.py' });
        expect(r.result.length).toBeLessThan(1300);
        expect(r.result).toMatch(/\n\[\d+ more definitions not shown \(limit 1000 characters\): pass depth: 1 for the top level, or read_file with start_line after line \d+\]$/);
    });

    it('find_symbol: definitions by name across languages, by name path, by kind and by regex', async () => {
        const p = project();
        expect((await one(p.tool('find_symbol'), { name: 'util_add' })).result).toBe(
            ['src/util.c:5: function util_add — int util_add(int a, int b)', 'web/engine.ts:6: function util_add — export function util_add(x: number): number {'].join('\n'),
        );
        expect((await one(p.tool('find_symbol'), { name: 'Engine/search' })).result).toBe('web/engine.ts:2: method Engine.search — search(q: string): number {');
        expect((await one(p.tool('find_symbol'), { name: 'Engine.search' })).result).toBe('web/engine.ts:2: method Engine.search — search(q: string): number {');
        expect((await one(p.tool('find_symbol'), { name: 'UTIL_MAX', kind: 'macro' })).result).toBe('src/util.h:1: macro UTIL_MAX — #define UTIL_MAX 8');
        expect((await one(p.tool('find_symbol'), { name: 'util_add', kind: 'class' })).result).toMatch(/^No definitions of "util_add" \(kind class\) found in \. \(3 source files mention it, in any case\)\.$/);
        expect((await one(p.tool('find_symbol'), { name: '^util_', regex: true })).result).toContain('src/util.c:5: function util_add');
        expect((await one(p.tool('find_symbol'), { name: 'util_add', path: 'web' })).result).toBe('web/engine.ts:6: function util_add — export function util_add(x: number): number {');
    });

    it('find_references: identifier uses with their enclosing definition, not comments, strings or other files', async () => {
        const p = project();
        expect((await one(p.tool('find_references'), { name: 'util_add' })).result).toBe(
            [
                'src/util.c:5: [function util_add] int util_add(int a, int b)',
                'src/util.c:12: [function run] counter = util_add(1, 2);',
                'src/util.h:2: int util_add(int a, int b);',
                'web/engine.ts:6: [function util_add] export function util_add(x: number): number {',
            ].join('\n'),
        );
        // The workspace's root is shown as `.`, and the sentence ends with one period.
        expect((await one(p.tool('find_references'), { name: 'no_such_name' })).result).toBe('No references to "no_such_name" found in .');
    });

    it('finds names that begin or end with a letter outside ASCII, and C++ destructors, without the index', async () => {
        const root = tempDir('lcf-nav-unicode-');
        writeTree(root, {
            'a.ts': 'export function café() { return 1 }\nexport const x = café();\nexport function éclair() { return naïve(); }\nfunction naïve() { return 2 }\n',
            'b.py': 'def Ñame():\n    return 1\n\nÑame()\n',
            'c.cpp': 'class Widget {\npublic:\n    ~Widget();\n};\nWidget::~Widget() {}\n',
        });
        const p = makePackage(root, { packageOptions: { navigation: true } });
        expect((await one(p.tool('find_symbol'), { name: 'café' })).result).toBe('a.ts:1: function café — export function café() { return 1 }');
        expect((await one(p.tool('find_symbol'), { name: 'éclair' })).result).toBe('a.ts:3: function éclair — export function éclair() { return naïve(); }');
        expect((await one(p.tool('find_symbol'), { name: 'Ñame' })).result).toBe('b.py:1: function Ñame — def Ñame():');
        expect((await one(p.tool('find_symbol'), { name: 'é.*r$', regex: true })).result).toContain('a.ts:3: function éclair');
        expect((await one(p.tool('find_references'), { name: 'café' })).result.split('\n')).toEqual(['a.ts:1: [function café] export function café() { return 1 }', 'a.ts:2: [variable x] export const x = café();']);
        expect((await one(p.tool('find_symbol'), { name: '~Widget' })).result).toContain('c.cpp:');
    });

    it('find_references with a name path lists the name\'s uses and says that the container is not checked', async () => {
        const p = project();
        const plain = (await one(p.tool('find_references'), { name: 'util_add' })).result;
        for (const name of ['Util.util_add', 'ns::util_add', 'Util/util_add']) {
            expect((await one(p.tool('find_references'), { name })).result).toBe(`${plain}\n[References are syntactic: every identifier util_add counts, whatever it belongs to; the container in ${JSON.stringify(name)} is not checked.]`);
        }
    });

    it('find_references lists a line once when the name is used on it more than once, as a word search does', async () => {
        const p = project();
        fs.writeFileSync(path.join(p.root, 'twice.c'), 'int twice(int n) { return n > 0 ? twice(n - 1) + twice(n - 2) : 0; }\nint other(void) { return twice(3); }\n');
        const r = await one(p.tool('find_references'), { name: 'twice', max_results: 1 });
        expect(r.result).toBe(['twice.c:1: [function twice] int twice(int n) { return n > 0 ? twice(n - 1) + twice(n - 2) : 0; }', '[1 more references not shown: raise max_results, or narrow path or include.]'].join('\n'));
        expect((await one(p.tool('find_references'), { name: 'twice' })).result.split('\n')).toEqual([
            'twice.c:1: [function twice] int twice(int n) { return n > 0 ? twice(n - 1) + twice(n - 2) : 0; }',
            'twice.c:2: [function other] int other(void) { return twice(3); }',
        ]);
    });

    it('find_references with line: a C static limits the search to its file, any other definition or use searches the workspace', async () => {
        const root = tempDir('lcf-nav-line-');
        writeTree(root, {
            'a/one.c': 'static int helper(void)\n{\n\treturn 1;\n}\nint run_one(void) { return helper(); }\n',
            'b/two.c': 'static int helper(void) { return 2; }\nint run_two(void) { return helper(); }\n',
            'c/api.c': 'int shared_api(int x) { return x; }\n',
            'c/use.c': 'int shared_api(int x);\nint caller(void) { return shared_api(1); }\n',
        });
        const p = makePackage(root, { packageOptions: { navigation: true } });
        expect((await one(p.tool('find_references'), { name: 'helper', path: 'b/two.c', line: 2 })).result).toBe(
            ['b/two.c:1: [function helper] static int helper(void) { return 2; }', 'b/two.c:2: [function run_two] int run_two(void) { return helper(); }', '[helper is file-local (static) at b/two.c:1: only that file was searched.]'].join('\n'),
        );
        expect((await one(p.tool('find_references'), { name: 'helper', path: 'a/one.c', line: 1 })).result).toContain('a/one.c:5: [function run_one]');
        expect((await one(p.tool('find_references'), { name: 'helper', path: 'a/one.c', line: 1 })).result).not.toContain('b/two.c');
        // A use in a file that does not define the name: the whole workspace.
        expect((await one(p.tool('find_references'), { name: 'shared_api', path: 'c/use.c', line: 2 })).result).toBe(
            ['c/api.c:1: [function shared_api] int shared_api(int x) { return x; }', 'c/use.c:1: int shared_api(int x);', 'c/use.c:2: [function caller] int caller(void) { return shared_api(1); }'].join('\n'),
        );
        const bad: [Record<string, unknown>, RegExp][] = [
            [{ name: 'helper', line: 1 }, /line needs path/],
            [{ name: 'helper', path: 'a/one.c', line: 3 }, /"helper" is not an identifier on line 3 of a\/one.c/],
            [{ name: 'helper', path: 'a/one.c', line: 0 }, /line/],
            [{ name: 'helper', path: 'a/one.c', line: 99999 }, /line 99999 is past the end of a\/one.c \(\d+ lines\)/],
            [{ name: 'helper', path: 'a', line: 1 }, /with line, path names the file the line is in; a is a directory/],
        ];
        for (const [args, message] of bad) {
            const r = await one(p.tool('find_references'), args);
            expect({ args, status: r.status, kind: (r as { kind?: string }).kind }).toEqual({ args, status: 'error', kind: 'invalid_argument' });
            expect(r.result).toMatch(message);
        }
        expect((await one(p.tool('find_references'), { name: 'x', path: 'missing.c', line: 1 })).status).toBe('error');
    });

    it('read_symbol: the definition with line numbers, and the read counts for replace_file_lines', async () => {
        const p = project();
        const r = await one(p.tool('read_symbol'), { path: 'src/util.c', name: 'util_add' });
        expect(r.result).toBe(
            ['function util_add', `--- ${path.join(p.root, 'src/util.c')} (lines 5-8 of 13) ---`, '     5\tint util_add(int a, int b)', '     6\t{', '     7\t\treturn a + b; /* util_add in a comment */', '     8\t}', ''].join('\n'),
        );
        const edit = await one(p.tool('replace_file_lines'), { path: 'src/util.c', start_line: 7, end_line: 7, content: '\treturn b + a;' });
        expect(edit.status).toBe('success');
        expect(fs.readFileSync(path.join(p.root, 'src/util.c'), 'utf8')).toContain('\treturn b + a;\n}');
    });

    it('read_symbol on a definition over maxCharsPerFile names the read_file call that shows the rest, and that call works', async () => {
        const root = tempDir('lcf-nav-longdef-');
        const rows = Array.from({ length: 400 }, (_, i) => `\t{ ${i}, "entry number ${i}" },`);
        writeTree(root, { 'table.c': ['int before;', 'static const struct item table[] = {', ...rows, '};', ''].join('\n') });
        const p = makePackage(root, { maxCharsPerFile: 1000, packageOptions: { navigation: true } });
        const r = await one(p.tool('read_symbol'), { path: 'table.c', name: 'table' });
        expect(r.status).toBe('success');
        const note = /\n\[Truncated at 1000 characters \(maxCharsPerFile\): line (\d+) is cut off; continue with read_file on this path with start_line=(\d+) and end_line=403\.\]$/.exec(r.result);
        expect(note, r.result.slice(-300)).not.toBeNull();
        expect(note![2]).toBe(note![1]);
        // read_symbol takes no start_line: the note names the call that does.
        expect((await one(p.tool('read_symbol'), { path: 'table.c', name: 'table', start_line: Number(note![1]) } as never)).status).toBe('error');
        const rest = await one(p.tool('read_file'), { paths: 'table.c', start_line: Number(note![2]), end_line: 403 });
        expect(rest.status).toBe('success');
        expect(rest.result.split('\n')[0]).toMatch(new RegExp(`^--- ${path.join(root, 'table.c').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(lines ${note![2]}-\\d+ of 403\\) ---$`));
    });

    it('read_symbol in a minified file shows its line from where the definition begins, and says so', async () => {
        const root = tempDir('lcf-nav-min-');
        const min = Array.from({ length: 300 }, (_, i) => `function f${i}(a){return a+${i}}var v${i}=f${i}(1);`).join('');
        writeTree(root, { 'min.js': min });
        const p = makePackage(root, { maxCharsPerFile: 1000, packageOptions: { navigation: true } });
        const at = min.indexOf('function f250(') + 1;
        const r = await one(p.tool('read_symbol'), { path: 'min.js', name: 'f250' });
        expect(r.status).toBe('success');
        const lines = r.result.split('\n');
        expect(lines.slice(0, 2)).toEqual(['function f250', `--- ${path.join(root, 'min.js')} (lines 1-1 of 1) ---`]);
        expect(lines[2]!.startsWith('     1\tfunction f250(a){return a+250}')).toBe(true);
        expect(lines.at(-1)).toBe(`[Line 1 shown from character ${at.toLocaleString('en-US')}, where the definition begins.]`);
        expect(lines.at(-2)).toMatch(/^\[Truncated at 1000 characters \(maxCharsPerFile\): showed characters \d+-\d+ of its \d+ of line 1; continue with read_file on this path with start_line=1, start_char=\d+ and end_line=1\.\]$/);
        // At the line's start, and in a line within the budget, nothing changes.
        const first = await one(p.tool('read_symbol'), { path: 'min.js', name: 'f0' });
        expect(first.result.split('\n')[2]!.startsWith('     1\tfunction f0(a)')).toBe(true);
        expect(first.result).not.toContain('where the definition begins');
    });

    it('a definition after another statement on its line has its own signature', async () => {
        const root = tempDir('lcf-nav-line-');
        writeTree(root, { 'm.js': 'function a(){return b()}function b(){return 1}var c=a();\n' });
        const p = makePackage(root, { packageOptions: { navigation: true } });
        expect((await one(p.tool('file_outline'), { path: 'm.js' })).result.split('\n').slice(1)).toEqual([
            '1 function a — function a(){return b()}function b(){return 1}var c=a();',
            '1 function b — function b(){return 1}var c=a();',
            '1 variable c',
        ]);
    });

    it('find_references in C++ with lone macro lines: the enclosing definitions are the outline\'s, and the macro\'s use is listed', async () => {
        const root = tempDir('lcf-nav-macro-');
        writeTree(root, { 'u.cpp': 'NS_BEGIN\n\nclass Shape {\npublic:\n    STATIC_ASSERT(sizeof(int) == 4);\n    int id() const { return id_; }\n    int id_;\n};\n' });
        const p = makePackage(root, { packageOptions: { navigation: true } });
        expect((await one(p.tool('file_outline'), { path: 'u.cpp' })).result.split('\n').slice(1)).toEqual(['3-8 class Shape', '  6 method id — int id() const { return id_; }']);
        expect((await one(p.tool('find_references'), { name: 'id_' })).result).toBe('u.cpp:6: [method Shape.id] int id() const { return id_; }\nu.cpp:7: [class Shape] int id_;');
        expect((await one(p.tool('find_references'), { name: 'STATIC_ASSERT' })).result).toBe('u.cpp:5: [class Shape] STATIC_ASSERT(sizeof(int) == 4);');
    });

    it('counts one line, one definition and one file in the singular', async () => {
        const p = project();
        fs.writeFileSync(path.join(p.root, 'one.c'), 'int only_one(void) { return 0; }');
        expect((await one(p.tool('file_outline'), { path: 'one.c' })).result).toBe(`--- ${path.join(p.root, 'one.c')} (c, 1 line, 1 definition) ---\n1 function only_one — int only_one(void) { return 0; }`);
        expect((await one(p.tool('find_symbol'), { name: 'only_one', kind: 'class' })).result).toMatch(/\(1 source file mentions it, in any case\)\.$/);
    });

    it('takes a name written with the call parentheses, name(), as the name', async () => {
        const p = project();
        for (const [tool, args, bare] of [
            ['find_symbol', { name: 'util_add()' }, { name: 'util_add' }],
            ['find_symbol', { name: 'Engine/search()' }, { name: 'Engine/search' }],
            ['find_symbol', { name: 'Engine()/search()' }, { name: 'Engine/search' }],
            ['read_symbol', { path: 'web/engine.ts', name: 'Engine().search' }, { path: 'web/engine.ts', name: 'Engine.search' }],
            ['find_references', { name: 'util_add()' }, { name: 'util_add' }],
            ['read_symbol', { path: 'src/util.c', name: 'util_add()' }, { path: 'src/util.c', name: 'util_add' }],
        ] as const) {
            const r = await one(p.tool(tool), args);
            expect(r.status, `${tool} ${JSON.stringify(args)}`).toBe('success');
            expect(r.result).toBe((await one(p.tool(tool), bare)).result);
        }
    });

    it('gives each bad input an error with its kind and changes nothing on disk', async () => {
        const p = project();
        const before = snapshot(p.root);
        const cases: [string, Record<string, unknown>, string, RegExp][] = [
            ['file_outline', { path: 'docs/notes.txt' }, 'wrong_type', /No grammar for .*notes\.txt: code navigation supports c \(\.c \.h\)/],
            ['file_outline', { path: 'src/blob.c' }, 'binary', /Binary file/],
            ['file_outline', { path: 'src/missing.c' }, 'not_found', /not found/i],
            ['file_outline', { path: 'src' }, 'wrong_type', /Not a file: .*src is a directory/],
            ['file_outline', { path: '/etc/passwd' }, 'outside_access', /./],
            ['file_outline', { path: 'web/engine.ts', depth: 0 }, 'invalid_argument', /depth/],
            ['read_symbol', { path: 'src/util.c', name: 'nothing_here' }, 'not_found', /No definition named "nothing_here" in .*util\.c; its definitions include: counter, util_add, run\./],
            ['read_symbol', { path: 'src/util.c', name: 'a b' }, 'invalid_argument', /not an identifier or a name path/],
            ['find_symbol', { name: 'x', kind: 'widget' }, 'invalid_argument', /kind/],
            ['find_symbol', { name: '(a+)+$', regex: true }, 'invalid_argument', /may backtrack without bound \(a repeated group holding a quantifier/],
            ['find_symbol', { name: '(a|aa)*b', regex: true }, 'invalid_argument', /may backtrack without bound \(.*an alternation/],
            ['find_symbol', { name: '(x)\\1', regex: true }, 'invalid_argument', /may backtrack without bound \(.*a backreference\)/],
            ['find_symbol', { name: '(', regex: true }, 'invalid_argument', /not a valid regex/],
            ['find_symbol', { name: '(?s)kvm_', regex: true }, 'invalid_argument', /Invalid group\. JavaScript regular expressions have no inline flags such as "\(\?s\)"\.$/],
            ['find_references', { name: '::' }, 'invalid_argument', /^Invalid arguments for find_references: name "::" is not an identifier or a name path such as "Class\/method"\.$/],
            ['read_symbol', { path: 'web/engine.ts', name: 'Engine.' }, 'invalid_argument', /name "Engine\." is not an identifier or a name path such as "Class\/method"\.$/],
            ['find_symbol', { name: 'a..b' }, 'invalid_argument', /name "a\.\.b" is not an identifier or a name path such as "Class\/method" \(use regex: true for a pattern\)\.$/],
            ['find_references', { name: '.util_add' }, 'invalid_argument', /name "\.util_add" is not an identifier/],
            ['find_references', { name: 'Engine/' }, 'invalid_argument', /name "Engine\/" is not an identifier/],
            ['find_symbol', { name: '(?i)kvm_', regex: true }, 'invalid_argument', /not a valid regex: .*Invalid group\. JavaScript regular expressions have no inline flags such as "\(\?i\)": a name regex matches case-sensitively, so write a class such as \[Aa\] where either case may appear\.$/],
            ['find_symbol', { name: 'a'.repeat(5000) }, 'invalid_argument', /name is 5,000 characters long, above the limit of 4,096/],
            ['find_references', { name: 'a'.repeat(5000) }, 'invalid_argument', /name is 5,000 characters long, above the limit of 4,096/],
            ['find_references', { name: 'util_add', path: '../outside' }, 'outside_access', /./],
            ['repo_map', { path: '../outside' }, 'outside_access', /./],
            ['repo_map', { path: 'no/such/dir' }, 'not_found', /./],
            ['repo_map', { max_chars: 10 }, 'invalid_argument', /max_chars/],
            ['find_symbol', { name: 'util_*' }, 'invalid_argument', /^Invalid arguments for find_symbol: name "util_\*" is not an identifier or a name path such as "Class\/method": it reads as a glob; with regex: true, "\^util_" finds the names it means\.$/],
            ['find_symbol', { name: '*_add' }, 'invalid_argument', /with regex: true, "_add\$" finds the names it means\.$/],
            ['find_references', { name: 'util_*' }, 'invalid_argument', /^Invalid arguments for find_references: name "util_\*" is not an identifier or a name path such as "Class\/method"\.$/],
            ['find_symbol', { name: 'util_add(int)' }, 'invalid_argument', /name "util_add\(int\)" is not an identifier/],
        ];
        for (const [tool, args, kind, message] of cases) {
            const r = await one(p.tool(tool), args);
            expect({ tool, args, status: r.status, kind: (r as { kind?: string }).kind }).toEqual({ tool, args, status: 'error', kind });
            expect(r.result, `${tool} ${JSON.stringify(args)}`).toMatch(message);
        }
        expect(snapshot(p.root)).toEqual(before);
    });

    it('repo_map: the most mentioned definitions first, grouped by file, within max_chars', async () => {
        const root = tempDir('lcf-nav-map-');
        writeTree(root, {
            'lib/store.ts': ['export class KeyStore {', '    fetchValue(key: string): string {', '        return key;', '    }', '}', 'export function unusedHelper(): void {}', ''].join('\n'),
            'app/a.ts': "import { KeyStore } from '../lib/store';\nexport const storeA = new KeyStore().fetchValue('a');\n",
            'app/b.ts': "import { KeyStore } from '../lib/store';\nexport const storeB = new KeyStore();\n",
            'app/c.py': 'def fetchValue():\n    return 1\n',
            'notes.txt': 'KeyStore KeyStore KeyStore\n',
        });
        const p = makePackage(root, { packageOptions: { navigation: true } });
        const r = await one(p.tool('repo_map'), {});
        expect(r.status).toBe('success');
        expect(r.result).toBe(
            [
                '--- Map of .: 6 of 6 definitions in 4 of 4 source files, ranked by the other files that mention each name ---',
                'lib/store.ts:',
                '  1-5 class KeyStore [2 files]',
                '  2-4 method KeyStore.fetchValue — fetchValue(key: string): string { [2 files]',
                '  6 function unusedHelper — export function unusedHelper(): void {} [0 files]',
                'app/c.py:',
                '  1-2 function fetchValue — def fetchValue(): [2 files]',
                'app/a.ts:',
                '  2 variable storeA [0 files]',
                'app/b.ts:',
                '  2 variable storeB [0 files]',
            ].join('\n'),
        );
        const small = await one(p.tool('repo_map'), { max_chars: 500 });
        expect(small.result).toBe(
            [
                '--- Map of .: 4 of 6 definitions in 2 of 4 source files, ranked by the other files that mention each name ---',
                'lib/store.ts:',
                '  1-5 class KeyStore [2 files]',
                '  2-4 method KeyStore.fetchValue — fetchValue(key: string): string { [2 files]',
                '  6 function unusedHelper — export function unusedHelper(): void {} [0 files]',
                'app/c.py:',
                '  1-2 function fetchValue — def fetchValue(): [2 files]',
                '[2 more definitions not shown (max_chars 500): raise max_chars, map a subdirectory, or use file_outline on one file.]',
            ].join('\n'),
        );
        expect(small.result.length).toBeLessThanOrEqual(500);
        expect((await one(p.tool('repo_map'), { path: 'app', include: '*.py' })).result).toContain('app/c.py:\n  1-2 function fetchValue');
        const empty = tempDir('lcf-nav-map-empty-');
        writeTree(empty, { 'a.txt': 'no code\n' });
        expect((await one(makePackage(empty, { packageOptions: { navigation: true } }).tool('repo_map'), {})).result).toBe('No definitions found in . (0 source files parsed).');
        const lone = tempDir('lcf-nav-map-lone-');
        writeTree(lone, { 'a.c': '/* no definitions */\n' });
        expect((await one(makePackage(lone, { packageOptions: { navigation: true } }).tool('repo_map'), {})).result).toBe('No definitions found in . (1 source file parsed).');
    });

    it('stays inside the accesses: a link out of them is not parsed', async () => {
        const root = tempDir('lcf-nav-link-');
        const outside = tempDir('lcf-nav-outside-');
        fs.writeFileSync(path.join(outside, 'secret.c'), 'int secret_fn(void) { return 1; }\n');
        fs.symlinkSync(path.join(outside, 'secret.c'), path.join(root, 'link.c'));
        const p = makePackage(root, { accesses: [{ type: AccessType.Read, path: root }], packageOptions: { navigation: true } });
        const r = await one(p.tool('file_outline'), { path: 'link.c' });
        expect(r.status).toBe('error');
        expect(r.result).not.toContain('secret_fn');
        expect((await one(p.tool('find_symbol'), { name: 'secret_fn' })).result).not.toContain('link.c:');
    });

    it('keeps the five descriptions and schemas short (characters added to a tools/list answer)', () => {
        const size = [FileOutlineTool, FindSymbolTool, FindReferencesTool, ReadSymbolTool, RepoMapTool]
            .map((T) => JSON.stringify({ name: T.declaration.name, title: T.declaration.title, description: T.declaration.description, inputSchema: jsonSchemaOf(T.declaration.schema) }).length)
            .reduce((a, b) => a + b, 0);
        expect(size).toBeLessThanOrEqual(6000);
    });
});
