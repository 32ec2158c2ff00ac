/**
 * Names that are not valid UTF-8 (legal on Linux): printed in one escaped, quoted form
 * (`"caf\xe9.txt"`, src/print/shared/display.ts) by every tool that prints paths, and taken back
 * in that form by every tool that takes one (src/print/shared/byte-names.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePackage, one, tempDir } from '../../support/helpers.js';
import { quotePath } from '../../../src/print/shared/display.js';
import { decodeName, unquotePath } from '../../../src/print/shared/byte-names.js';

const RAW = Buffer.from('caf\xe9.txt', 'latin1');
const DIR = Buffer.from('d\xff', 'latin1');
const SHOWN = `"caf\\xe9.txt"`;

function fixture() {
    const root = tempDir();
    const rootBytes = Buffer.from(root);
    fs.writeFileSync(Buffer.concat([rootBytes, Buffer.from('/'), RAW]), 'latin one\n');
    fs.mkdirSync(Buffer.concat([rootBytes, Buffer.from('/'), DIR]));
    fs.writeFileSync(Buffer.concat([rootBytes, Buffer.from('/'), DIR, Buffer.from('/in.txt')]), 'inside\n');
    return { root, ...makePackage(root, { requireReadBeforeWrite: false }) };
}
/** Every entry below `root` as raw bytes (the test helpers' snapshot reads names as strings). */
function tree(root: string): string[] {
    const out: string[] = [];
    const walk = (dir: Buffer): void => {
        for (const d of fs.readdirSync(dir, { withFileTypes: true, encoding: 'buffer' })) {
            const p = Buffer.concat([dir, Buffer.from('/'), d.name]);
            out.push(`${p.toString('hex')} ${d.isDirectory() ? 'dir' : fs.readFileSync(p).toString('hex')}`);
            if (d.isDirectory()) walk(p);
        }
    };
    walk(Buffer.from(root));
    return out.sort();
}
const exists = (root: string, name: Buffer): boolean => fs.existsSync(Buffer.concat([Buffer.from(root + '/'), name]));

describe('the escaped form (pure)', () => {
    it('round-trips any bytes, and leaves valid names alone', () => {
        for (const bytes of [RAW, DIR, Buffer.from([0xc3]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('a\\udce9"\n\x7f', 'latin1'), Buffer.from([0xf0, 0x9f, 0x98, 0x80, 0x80])]) {
            const name = decodeName(bytes);
            const shown = quotePath(name);
            expect(unquotePath(shown), shown).toBe(name);
        }
        expect(quotePath(decodeName(RAW))).toBe(SHOWN);
        expect(quotePath('café.txt')).toBe('café.txt');
        expect(quotePath('a\\udce9')).toBe('a\\udce9');
        expect(unquotePath('"caf\\xc3\\xa9"')).toBe('café');
        expect(unquotePath('"bad\\q"')).toBeUndefined();
    });
});

describe('a name that is not UTF-8', () => {
    it('is printed in the escaped form by listings and searches', async () => {
        const fx = fixture();
        expect((await one(fx.tool('list_directory'), { path: '.' })).result).toBe(`${SHOWN}\n"d\\xff/"`);
        expect((await one(fx.tool('list_directory'), { path: '.', recursive: true })).result).toBe(`${SHOWN}\n"d\\xff/"\n"d\\xff/in.txt"`);
        expect((await one(fx.tool('search_entries'), {})).result).toBe(`${SHOWN}\n"d\\xff/"\n"d\\xff/in.txt"`);
        expect((await one(fx.tool('search_entries'), { content_pattern: 'latin|inside' })).result).toBe(`${SHOWN}:1: latin one\n"d\\xff/in.txt":1: inside`);
    });

    it('is taken back in that form by every tool', async () => {
        const fx = fixture();
        expect((await one(fx.tool('read_file'), { paths: [SHOWN] })).result).toBe(`--- "${fx.root}/caf\\xe9.txt" (lines 1-1 of 1) ---\nlatin one\n`);
        expect((await one(fx.tool('entry_info'), { path: SHOWN })).result).toContain('Type: file');
        expect((await one(fx.tool('replace_file_content'), { path: SHOWN, old_content: 'latin', new_content: 'Latin' })).status).toBe('success');
        expect((await one(fx.tool('write_file'), { path: '"d\\xff/in.txt"', content: 'new\n' })).status).toBe('success');
        expect(fs.readFileSync(Buffer.concat([Buffer.from(fx.root + '/'), DIR, Buffer.from('/in.txt')]), 'utf8')).toBe('new\n');
        expect((await one(fx.tool('list_directory'), { path: '"d\\xff"' })).result).toBe('"d\\xff/in.txt"');
        expect((await one(fx.tool('search_entries'), { path: '"d\\xff"', content_pattern: 'new' })).result).toBe('"d\\xff/in.txt":1: new');
        const moved = await one(fx.tool('move_file'), { source: SHOWN, destination: '"d\\xff/caf\\xe9.txt"' });
        expect(moved.result).toBe(`Moved: "${fx.root}/caf\\xe9.txt" -> "${fx.root}/d\\xff/caf\\xe9.txt"`);
        expect(exists(fx.root, Buffer.concat([DIR, Buffer.from('/'), RAW]))).toBe(true);
        expect((await one(fx.tool('delete_file'), { path: '"d\\xff"', recursive: true })).result).toBe(`Deleted directory: "${fx.root}/d\\xff"`);
        expect(fs.readdirSync(fx.root)).toEqual([]);
    });

    it('is never reached through the U+FFFD form; a bad escape is refused; nothing changes', async () => {
        const fx = fixture();
        const before = tree(fx.root);
        const r = await one(fx.tool('read_file'), { paths: ['caf\ufffd.txt'] });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/^File not found/);
        const d = await one(fx.tool('delete_file'), { path: '"caf\\xe9.tx"' });
        expect(d.status).toBe('error');
        expect(tree(fx.root)).toEqual(before);
        expect(exists(fx.root, RAW)).toBe(true);
        void path;
    });
});
