/** The symbols operation on what is not parseable source: each file gets its own error with a kind, and the others still parse. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSymbolsTask } from '../../../workers/symbols/symbols.js';
import { tempDir } from '../../support/helpers.js';

describe('symbols operation failures', () => {
    it('reports each bad file with its kind and parses the good ones in the same task', async () => {
        const dir = tempDir('lcf-symbols-bad-');
        const w = (name: string, data: string | Buffer) => fs.writeFileSync(path.join(dir, name), data);
        w('good.c', 'int main(void) { return 0; }\n');
        w('notes.txt', 'plain text\n');
        w('blob.c', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3, 0, 0]));
        w('big.py', 'x = 1\n'.repeat(2000));
        fs.mkdirSync(path.join(dir, 'dir.c'));
        const names = ['good.c', 'notes.txt', 'blob.c', 'missing.go', 'big.py', 'dir.c'];
        const r = await runSymbolsTask({ op: 'symbols', files: names.map((n) => ({ shown: n, real: path.join(dir, n) })), realRoots: null, maxBytes: 4096, parseMs: 60_000 });
        const kinds = r.files.map((f) => (f.ok ? `ok ${f.definitions.map((d) => d.name).join(',')}` : f.kind));
        expect(kinds).toEqual(['ok main', 'wrong_type', 'binary', 'not_found', 'too_large', 'wrong_type']);
        const unsupported = r.files[1]!;
        expect(!unsupported.ok && unsupported.message).toMatch(/No grammar for notes\.txt: code navigation supports c \(\.c \.h\), cpp/);
    });

    it('gives up a parse that takes longer than its time and says so; the thread parses the next file', async () => {
        const dir = tempDir('lcf-symbols-slow-');
        // A large generated file: thousands of field declarations (an initializer list's inside
        // is not parsed for definitions: bodies.ts).
        const big = path.join(dir, 'gen.c');
        fs.writeFileSync(big, `struct t {${'\n\tint a, b[4], *c;'.repeat(140_000)}\n};\n`);
        const small = path.join(dir, 'small.c');
        fs.writeFileSync(small, 'void f(void) {}\n');
        const r = await runSymbolsTask({ op: 'symbols', files: [{ shown: 'gen.c', real: big }, { shown: 'small.c', real: small }], realRoots: null, maxBytes: 64 << 20, parseMs: 1 });
        expect(r.files[0]).toMatchObject({ ok: false, kind: 'timeout' });
        expect(!r.files[0]!.ok && r.files[0]!.message).toMatch(/Parsing gen\.c took longer than 1 ms: the file was skipped\./);
        const again = await runSymbolsTask({ op: 'symbols', files: [{ shown: 'small.c', real: small }], realRoots: null, maxBytes: 1 << 20, parseMs: 60_000 });
        expect(again.files[0]).toMatchObject({ ok: true, definitions: [{ kind: 'function', name: 'f', line: 1, endLine: 1 }] });
    });

    it('does not follow a link out of the real roots', async () => {
        const dir = tempDir('lcf-symbols-link-');
        const outside = tempDir('lcf-symbols-outside-');
        fs.writeFileSync(path.join(outside, 'secret.c'), 'int secret(void) { return 1; }\n');
        fs.symlinkSync(path.join(outside, 'secret.c'), path.join(dir, 'link.c'));
        const r = await runSymbolsTask({ op: 'symbols', files: [{ shown: 'link.c', real: path.join(dir, 'link.c') }], realRoots: [{ path: dir, type: 'read' } as never], maxBytes: 1 << 20, parseMs: 60_000 });
        expect(r.files[0]!.ok).toBe(false);
        expect(JSON.stringify(r.files[0])).not.toContain('secret(void)');
    });

    it('finds references as identifiers only, not in comments or strings', async () => {
        const dir = tempDir('lcf-symbols-refs-');
        const file = path.join(dir, 'a.py');
        fs.writeFileSync(file, ['def target():', '    pass', '# target in a comment', 's = "target in a string"', 'target()', 'targets = 1', 'x.target', ''].join('\n'));
        const r = await runSymbolsTask({ op: 'symbols', files: [{ shown: 'a.py', real: file }], realRoots: null, maxBytes: 1 << 20, parseMs: 60_000, references: 'target' });
        expect(r.files[0]!.ok && r.files[0]!.references!.map((x) => `${x.line}:${x.column} ${x.text}`)).toEqual(['1:5 def target():', '5:1 target()', '7:3 x.target']);
    });
});
