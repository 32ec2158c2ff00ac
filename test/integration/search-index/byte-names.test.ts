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
