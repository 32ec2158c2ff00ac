/**
 * `WorkspaceView.checkStat`, the check of a search's root with the stat taken alongside it: for
 * every kind of path (directory, file, links inside and out, missing, dangling, outside) it
 * decides as `check` followed by a stat of the checked real path, and a refused path is refused
 * whatever its stat would have said.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { AccessType, Workspace } from '../../../src/index.js';
import { tempDir, writeTree } from '../../support/helpers.js';

let base: string;
let proj: string;

beforeEach(() => {
    base = tempDir('lcf-check-stat-');
    proj = path.join(base, 'proj');
    writeTree(base, { 'proj/dir/f.txt': 'f\n', 'proj/file.txt': 'x\n', 'out/dir/s.txt': 's\n', 'out/file.txt': 'o\n' });
    fs.symlinkSync(path.join(proj, 'dir'), path.join(proj, 'link-in'));
    fs.symlinkSync(path.join(base, 'out', 'dir'), path.join(proj, 'link-out'));
    fs.symlinkSync(path.join(proj, 'gone'), path.join(proj, 'dangling'));
});

/** What a call gives: the error's kind and text, or the checked path and what its stat says (or its error code). */
async function outcome(f: () => Promise<{ real: string; stat: fs.Stats | Error }>): Promise<unknown> {
    try {
        const { real, stat } = await f();
        return { real, stat: stat instanceof Error ? (stat as NodeJS.ErrnoException).code : { dir: stat.isDirectory(), ino: stat.ino } };
    } catch (err) {
        return { error: String(err), kind: (err as { kind?: string }).kind };
    }
}

describe('checkStat', () => {
    for (const resolveSymlinks of [true, false]) {
        it(`decides as check then a stat of the real path (resolveSymlinks ${resolveSymlinks})`, async () => {
            const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: proj }], skipDirs: [], resolveSymlinks, workspacePath: proj });
            const inputs = ['.', 'dir', 'file.txt', 'link-in', 'link-out', 'dangling', 'missing', 'missing/deeper', '../out', '../out/dir', path.join(base, 'nowhere'), 'link-in/f.txt'];
            for (const input of inputs) {
                const view = ws.view();
                const was = await outcome(async () => {
                    const c = await view.check(input, AccessType.Read, 'search_entries');
                    return { real: c.real, stat: await fsp.stat(c.real).catch((err: Error) => err) };
                });
                const now = await outcome(async () => {
                    const { checked, stat } = await ws.view().checkStat(input, AccessType.Read, 'search_entries');
                    return { real: checked.real, stat };
                });
                expect(now, input).toEqual(was);
            }
        });
    }

    it('refuses a path outside the accesses though it exists, and a link leading out when links are resolved', async () => {
        const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: proj }], skipDirs: [], resolveSymlinks: true, workspacePath: proj });
        await expect(ws.view().checkStat('../out/dir', AccessType.Read, 'search_entries')).rejects.toMatchObject({ kind: 'outside_access' });
        await expect(ws.view().checkStat('link-out', AccessType.Read, 'search_entries')).rejects.toMatchObject({ kind: 'outside_access' });
        const { checked, stat } = await ws.view().checkStat('link-in', AccessType.Read, 'search_entries');
        expect(checked.real).toBe(path.join(fs.realpathSync(proj), 'dir'));
        expect(stat instanceof Error ? stat : stat.isDirectory()).toBe(true);
        const missing = await ws.view().checkStat('missing', AccessType.Read, 'search_entries');
        expect(missing.stat).toBeInstanceOf(Error);
        expect((missing.stat as NodeJS.ErrnoException).code).toBe('ENOENT');
    });
});
