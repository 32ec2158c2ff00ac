/**
 * Debris after a crash: the library's temporary files are never shown, searched or read by its
 * tools, and a later write in the same directory removes those whose writer is gone (restoring
 * the old content kept in a backup of an interrupted in-place write).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePackage, one, tempDir } from '../support/helpers.js';
import { debris, NODE_ARGS, SOURCE } from '../support/real-fs.js';

/** Start time of this process, as the library writes it into its temporary names. */
const selfStart = ((): string => {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
})();

/** A process id that is not running (the highest possible one, beyond pid_max). */
const DEAD_PID = 2 ** 22 + 12345;

describe('temporary files of interrupted writes', () => {
    it('are not listed, found by name or content, or read; a later write removes stale ones and keeps live ones', async () => {
        const root = tempDir('lcf-debris-');
        fs.writeFileSync(path.join(root, 'f.txt'), 'NEEDLE in the real file\n');
        const stale = `.f.txt.lcf-${DEAD_PID}-4242-0123456789ab.tmp`;
        const live = `.g.txt.lcf-${process.pid}-${selfStart}-abcdefabcdef.tmp`;
        const reused = `.h.txt.lcf-${process.pid}-1-abcdefabcdef.tmp`;
        for (const name of [stale, live, reused]) fs.writeFileSync(path.join(root, name), 'NEEDLE half-writ');
        fs.mkdirSync(path.join(root, 'sub'));
        fs.writeFileSync(path.join(root, 'sub', stale), 'NEEDLE');
        const fx = makePackage(root);

        const list = await one(fx.tool('list_directory'), { path: '.', recursive: true });
        expect(list.result).toBe('f.txt\nsub/');
        const byName = await one(fx.tool('search_entries'), { path: '.', name_pattern: 'tmp|txt' });
        expect(byName.result).not.toMatch(/lcf-/);
        expect(byName.result).toContain('f.txt');
        const byContent = await one(fx.tool('search_entries'), { path: '.', content_pattern: 'NEEDLE' });
        expect(byContent.result).toContain('f.txt');
        expect(byContent.result).not.toMatch(/lcf-|half-writ/);
        const read = await fx.run('read_file', { paths: [stale, `sub/${stale}`, 'f.txt'] });
        expect(read.map((r) => r.status)).toEqual(['error', 'error', 'success']);
        expect(read[0]!.result).toMatch(/^Not read: .*\.tmp is a temporary file of a write by llm-chat-file/);

        // A write in the directory removes the stale ones (a dead writer, a reused process id), not the live one.
        await one(fx.tool('read_file'), { paths: ['f.txt'] });
        expect((await one(fx.tool('write_file'), { path: 'f.txt', content: 'new\n' })).status).toBe('success');
        expect(debris(root).sort()).toEqual([live, `sub/${stale}`].sort());
        expect((await one(fx.tool('write_file'), { path: 'sub/new.txt', content: 'x' })).status).toBe('success');
        expect(debris(root)).toEqual([live]);
    });

    it('a stale backup of an interrupted in-place write is restored onto its file, and a write based on the torn file is refused', async () => {
        const root = tempDir('lcf-debris-bak-');
        // The file as an interrupted in-place write left it: half new content.
        fs.writeFileSync(path.join(root, 'torn.txt'), 'NEW NEW NEW old content line 2\n');
        fs.writeFileSync(path.join(root, `.torn.txt.lcf-${DEAD_PID}-4242-00000000abcd.bak`), `llm-chat-file backup of "torn.txt"\nold content line 1\nold content line 2\n`);
        const fx = makePackage(root);
        await one(fx.tool('read_file'), { paths: ['torn.txt'] });
        const r = await one(fx.tool('replace_file_content'), { path: 'torn.txt', old_content: 'NEW NEW NEW', new_content: 'x' });
        expect(r.status).toBe('error');
        expect(r.result).toMatch(/^File changed since it was last read: .*torn\.txt was restored from the backup of an interrupted earlier write/);
        expect(fs.readFileSync(path.join(root, 'torn.txt'), 'utf8')).toBe('old content line 1\nold content line 2\n');
        expect(debris(root)).toEqual([]);
    });

    it('a writer killed during writes leaves nothing the tools show, and the next write cleans up after it', async () => {
        const root = tempDir('lcf-debris-kill-');
        fs.writeFileSync(path.join(root, 'big.txt'), 'o'.repeat(1000));
        fs.linkSync(path.join(root, 'big.txt'), path.join(root, 'big-link.txt'));
        // A child that keeps rewriting two files (one replaced, one written in place: it has a hard link).
        const script = `
            import fs from 'node:fs';
            import { FileToolPackage, FileConfiguration, Workspace, AccessType } from ${JSON.stringify(SOURCE)};
            const pkg = new FileToolPackage(new Workspace({ accesses: [{ type: AccessType.Write, path: ${JSON.stringify(root)} }], workspacePath: ${JSON.stringify(root)} }), undefined, new FileConfiguration(100_000_000, 100_000_000, false));
            const write = pkg.tools().find((t) => t.name === 'write_file');
            const content = 'n'.repeat(20_000_000);
            for (let i = 0; ; i++) {
                await write.execute({ path: i % 2 ? 'big.txt' : 'new.txt', content });
                if (i === 1) process.stdout.write('started\\n');
            }`;
        const child = spawn(process.execPath, [...NODE_ARGS, '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
        await new Promise<void>((resolve) => child.stdout.on('data', () => resolve()));
        // Several kills in a row would be timing-dependent; one kill at an arbitrary point is enough:
        // whatever it leaves, the checks below must hold.
        child.kill('SIGKILL');
        await new Promise<void>((resolve) => child.on('close', () => resolve()));
        const fx = makePackage(root, { maxCharsPerFile: 100_000_000, maxFileSize: 100_000_000 });
        const list = await one(fx.tool('list_directory'), { path: '.' });
        expect(list.result.split('\n').sort()).toEqual(['big-link.txt', 'big.txt', 'new.txt']);
        await one(fx.tool('read_file'), { paths: ['big.txt'] });
        const r = await one(fx.tool('write_file'), { path: 'big.txt', content: 'final\n' });
        // Refused only when a backup of big.txt was restored (the kill hit its in-place write).
        if (r.status === 'error') expect(r.result).toMatch(/was restored from the backup of an interrupted earlier write/);
        expect(debris(root)).toEqual([]);
        const valid = new Set(['o'.repeat(1000), 'n'.repeat(20_000_000), 'final\n']);
        for (const name of ['big.txt', 'new.txt']) {
            const content = fs.readFileSync(path.join(root, name), 'utf8');
            expect(valid.has(content), `${name}: ${content.length} characters, starting ${JSON.stringify(content.slice(0, 20))}`).toBe(true);
        }
        expect(fs.readFileSync(path.join(root, 'big-link.txt')).equals(fs.readFileSync(path.join(root, 'big.txt')))).toBe(true);
    });
});
