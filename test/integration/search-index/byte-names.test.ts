/** Names that are not UTF-8 through the index: the same escaped paths as the scan path prints (src/print/shared/byte-names.ts). */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { pair, same } from '../../support/index-pair.js';

describe('the index and names that are not UTF-8', () => {
    it('answers with the escaped form, as the scan path does', async () => {
        const raw = Buffer.from('caf\xe9.txt', 'latin1').toString('latin1');
        const p = await pair({ 'plain.txt': 'needle plain\n', 'other.txt': 'nothing\n' }, undefined, (root) => {
            fs.writeFileSync(Buffer.concat([Buffer.from(`${root}/`), Buffer.from(raw, 'latin1')]), 'needle bytes\n');
        });
        expect((await same(p, { content_pattern: 'needle' })).text).toBe('success: "caf\\xe9.txt":1: needle bytes\nplain.txt:1: needle plain');
        expect((await same(p, { name_pattern: 'caf' })).text).toBe('success: "caf\\xe9.txt"');
        expect((await same(p, {})).text).toBe('success: "caf\\xe9.txt"\nother.txt\nplain.txt');
    });
});

describe('the index and links whose names are not UTF-8', () => {
    it('answers for them as the scan path does', async () => {
        const p = await pair({ 'real/in.txt': 'needle through the link\n', 'a.txt': 'x\n', 'b.txt': 'y\n', 'c.txt': 'z\n' }, undefined, (root) => {
            fs.symlinkSync('real', Buffer.concat([Buffer.from(`${root}/`), Buffer.from('l\xe9nk', 'latin1')]));
            fs.symlinkSync('real/in.txt', Buffer.concat([Buffer.from(`${root}/`), Buffer.from('f\xe9.txt', 'latin1')]));
        });
        const r = await same(p, { content_pattern: 'needle' });
        // A link to a file is searched where it leads; one to a directory is not entered (as the scan path).
        expect(r.text).toBe('success: "f\\xe9.txt":1: needle through the link\nreal/in.txt:1: needle through the link');
        expect(r.answered).toBe(true);
    });
});
