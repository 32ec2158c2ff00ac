/** The code-navigation tools on a file whose name is not UTF-8: the quoted form tools print (`"caf\xe9.c"`) reaches its bytes, as read_file's does. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makePackage, one, tempDir } from '../../support/helpers.js';

const C = ['int cafe_fn(int a)', '{', '\treturn a + 1;', '}', '', 'int cafe_user(void)', '{', '\treturn cafe_fn(2);', '}', ''].join('\n');

function project() {
    const root = tempDir('lcf-nav-bytes-');
    fs.writeFileSync(Buffer.concat([Buffer.from(`${root}/`), Buffer.from('caf\xe9.c', 'latin1')]), C);
    return { root, ...makePackage(root, { packageOptions: { navigation: true } }) };
}

const QUOTED = '"caf\\xe9.c"';

describe('code navigation on a name that is not UTF-8', () => {
    it('read_file takes the quoted form (the reference the tools below follow)', async () => {
        const p = project();
        const r = await one(p.tool('read_file'), { paths: [QUOTED] });
        expect(r.status, r.result).toBe('success');
        expect(r.result).toContain('cafe_fn(2)');
    });

    it('file_outline lists its definitions', async () => {
        const p = project();
        const r = await one(p.tool('file_outline'), { path: QUOTED });
        expect(r.status, r.result).toBe('success');
        expect(r.result).toContain('1-4 function cafe_fn');
        expect(r.result).toContain('6-9 function cafe_user');
    });

    it('read_symbol reads a definition', async () => {
        const p = project();
        const r = await one(p.tool('read_symbol'), { path: QUOTED, name: 'cafe_fn' });
        expect(r.status, r.result).toBe('success');
        expect(r.result).toContain('return a + 1;');
    });

    it('find_symbol finds the definition', async () => {
        const p = project();
        const r = await one(p.tool('find_symbol'), { name: 'cafe_fn' });
        expect(r.status, r.result).toBe('success');
        expect(r.result).toContain('"caf\\xe9.c":1');
    });

    it('find_references finds the use', async () => {
        const p = project();
        const r = await one(p.tool('find_references'), { name: 'cafe_fn' });
        expect(r.status, r.result).toBe('success');
        expect(r.result).toContain('return cafe_fn(2);');
        expect(r.result).toMatch(/^"caf\\xe9\.c":8: /m);
    });

    it('repo_map parses it', async () => {
        const p = project();
        const r = await one(p.tool('repo_map'), {});
        expect(r.status, r.result).toBe('success');
        expect(r.result).toContain('cafe_fn');
        expect(r.result).not.toContain('could not be parsed');
        expect(r.result).toMatch(/^"caf\\xe9\.c":$/m);
    });
});
