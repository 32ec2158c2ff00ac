/** Paths the way models send them: `~/…` is the home directory, and the access-denied hint only when it helps. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType } from '../../../src/index.js';
import { makePackage, one, tempDir, writeTree } from '../../support/helpers.js';

const savedHome = process.env.HOME;
afterEach(() => {
    process.env.HOME = savedHome;
});

describe('a leading ~/ is the home directory', () => {
    it('is expanded, then access control applies: outside the accesses it is denied and nothing named ~ is created', async () => {
        const root = tempDir();
        const home = tempDir('lcf-home-');
        process.env.HOME = home;
        expect(os.homedir()).toBe(home);
        const fx = makePackage(root);
        const r = await one(fx.tool('write_file'), { path: '~/.config/app/settings.json', content: '{}' });
        expect(r.status).toBe('error');
        expect(r.result).toBe(
            `Access denied: ${home}/.config/app/settings.json is outside the configured writable directories. Call file_access_info to see what is accessible.`,
        );
        expect(fs.existsSync(path.join(root, '~'))).toBe(false);
        expect(fs.existsSync(path.join(home, '.config'))).toBe(false);
    });

    it('reaches the home directory when it is accessible; a name ~ stays reachable as ./~', async () => {
        const root = tempDir();
        const home = tempDir('lcf-home-');
        process.env.HOME = home;
        writeTree(root, { '~/inside.txt': 'tilde dir\n' });
        const fx = makePackage(root, { accesses: [{ type: AccessType.Write, path: root }, { type: AccessType.Write, path: home }] });
        const w = await one(fx.tool('write_file'), { path: '~/notes.txt', content: 'home\n' });
        expect(w).toMatchObject({ status: 'success', result: `Written: ${home}/notes.txt` });
        expect(fs.readFileSync(path.join(home, 'notes.txt'), 'utf8')).toBe('home\n');
        const listed = await one(fx.tool('list_directory'), { path: '~' });
        expect(listed.result).toBe(`${home}/notes.txt`);
        const named = await one(fx.tool('read_file'), { paths: ['./~/inside.txt'] });
        expect(named.result).toBe(`--- ${root}/~/inside.txt (lines 1-1 of 1) ---\ntilde dir\n`);
    });
});

describe('the access-denied hint for absolute paths', () => {
    const HINT = 'Absolute paths start at the filesystem root, not the workspace';

    it('is given when the path exists relative to the workspace', async () => {
        const root = tempDir();
        writeTree(root, { 'etc/passwd': 'mine\n' });
        const fx = makePackage(root);
        const r = await one(fx.tool('read_file'), { paths: ['/etc/passwd'] });
        expect(r.result).toBe(
            `Access denied: /etc/passwd is outside the configured readable directories. ${HINT}: use "." for the workspace root or a relative path such as "./etc/passwd". Call file_access_info to see what is accessible.`,
        );
    });

    it('is given when the first directory does not exist at the filesystem root', async () => {
        const fx = makePackage(tempDir());
        const r = await one(fx.tool('read_file'), { paths: ['/src-lcf-none/main.ts'] });
        expect(r.result).toContain(`${HINT}: use "." for the workspace root or a relative path such as "./src-lcf-none/main.ts".`);
    });

    it('is left out when it cannot help (a real system path, nothing like it in the workspace)', async () => {
        const fx = makePackage(tempDir());
        const r = await one(fx.tool('read_file'), { paths: ['/etc/passwd'] });
        expect(r.result).toBe('Access denied: /etc/passwd is outside the configured readable directories. Call file_access_info to see what is accessible.');
    });
});
