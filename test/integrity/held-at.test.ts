/**
 * workers/fs/held-at.ts on real permissions and descriptor limits, in child processes: an
 * ordinary user denied a file and a directory (EACCES) gets the same error from the native layer
 * (openat) as from the held path; at the descriptor limit (EMFILE) both refuse an open alike,
 * and the native layer still lists a held directory, which needs no second descriptor (the
 * held-path layer opens `/proc/<pid>/fd/N` again to list it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect } from 'vitest';
import { tempDir } from '../support/helpers.js';
import { childModule } from '../support/child-source.js';
import { itIf, noUsers, runNode, testUsers } from '../support/real-fs.js';

const NATIVE_EXPECTED = process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64');
const noNative = NATIVE_EXPECTED ? null : 'the native layer is for Linux x86-64 and arm64';

// The modules as runNode's child imports them: built or source (support/child-source.ts).
const HELD_AT = pathToFileURL(childModule('workers/fs/held-at.ts')).href;
const HELD = pathToFileURL(childModule('src/fs/shared/held.ts')).href;

/** A child script: the layers and flags loaded, `body` run with `dirFd` held on `dir`, its JSON printed. */
function script(dir: string, body: string): string {
    return `
        import fs from 'node:fs';
        const { HELD_PATH_AT, nativeAt } = await import(${JSON.stringify(HELD_AT)});
        const { DIR_FLAGS, DIR_NOFOLLOW_FLAGS, READ_NOFOLLOW_FLAGS } = await import(${JSON.stringify(HELD)});
        const native = nativeAt();
        if (native === null) throw new Error('the native layer did not load');
        const dirFd = fs.openSync(${JSON.stringify(dir)}, DIR_FLAGS);
        const err = (e) => ({ errno: e.errno, code: e.code, syscall: e.syscall, path: e.path, message: e.message });
        const opened = (layer, name, flags) => { try { layer.close(layer.open(dirFd, name, flags)); return 'opened'; } catch (e) { return err(e); } };
        const listed = (layer) => { try { return layer.list(dirFd).names; } catch (e) { return err(e); } };
        const out = {};
        ${body}
        console.log(JSON.stringify(out));`;
}

describe('the native layer under real permissions and limits', () => {
    itIf(noUsers ?? noNative)('gives an ordinary user the same EACCES as the held path for a file and a directory it may not open', async () => {
        const { user } = testUsers();
        const dir = tempDir('lcf-held-at-perm-');
        fs.chmodSync(dir, 0o755);
        fs.writeFileSync(path.join(dir, 'open.txt'), 'x\n');
        fs.writeFileSync(path.join(dir, 'locked.txt'), 'x\n');
        fs.chmodSync(path.join(dir, 'locked.txt'), 0o600);
        fs.mkdirSync(path.join(dir, 'locked'), { mode: 0o700 });
        const r = await runNode(
            script(
                dir,
                `
                out.file = [opened(HELD_PATH_AT, 'locked.txt', READ_NOFOLLOW_FLAGS), opened(native, 'locked.txt', READ_NOFOLLOW_FLAGS)];
                out.dir = [opened(HELD_PATH_AT, 'locked', DIR_NOFOLLOW_FLAGS), opened(native, 'locked', DIR_NOFOLLOW_FLAGS)];
                out.readable = [opened(HELD_PATH_AT, 'open.txt', READ_NOFOLLOW_FLAGS), opened(native, 'open.txt', READ_NOFOLLOW_FLAGS)];
                out.list = [listed(HELD_PATH_AT), listed(native)];`,
            ),
            { user },
        );
        expect(r.stderr).toBe('');
        const out = JSON.parse(r.stdout) as Record<string, [unknown, unknown]>;
        expect(out['file']![0]).toMatchObject({ code: 'EACCES', syscall: 'open' });
        expect(out['dir']![0]).toMatchObject({ code: 'EACCES', syscall: 'open' });
        for (const [what, [viaHeldPath, viaNative]] of Object.entries(out)) expect(viaNative, what).toEqual(viaHeldPath);
        expect(out['readable']).toEqual(['opened', 'opened']);
        expect(out['list']![0]).toEqual(['locked', 'locked.txt', 'open.txt']);
    });

    itIf(noNative)('refuses an open at the descriptor limit with the same EMFILE, and lists without a second descriptor', async () => {
        const dir = tempDir('lcf-held-at-limit-');
        fs.writeFileSync(path.join(dir, 'a.txt'), 'x\n');
        fs.mkdirSync(path.join(dir, 'sub'));
        const r = await runNode(
            script(
                dir,
                `
                const fillers = [];
                for (;;) { try { fillers.push(fs.openSync('/dev/null', 'r')); } catch (e) { if (e.code !== 'EMFILE') throw e; break; } }
                out.full = [opened(HELD_PATH_AT, 'a.txt', READ_NOFOLLOW_FLAGS), opened(native, 'a.txt', READ_NOFOLLOW_FLAGS)];
                out.fullDir = [opened(HELD_PATH_AT, 'sub', DIR_NOFOLLOW_FLAGS), opened(native, 'sub', DIR_NOFOLLOW_FLAGS)];
                out.listFull = [listed(HELD_PATH_AT), listed(native)];
                fs.closeSync(fillers.pop());
                out.oneFree = [opened(HELD_PATH_AT, 'a.txt', READ_NOFOLLOW_FLAGS), opened(native, 'a.txt', READ_NOFOLLOW_FLAGS)];
                out.listOneFree = [listed(HELD_PATH_AT), listed(native)];`,
            ),
            { nofile: 64 },
        );
        expect(r.stderr).toBe('');
        const out = JSON.parse(r.stdout) as Record<string, [unknown, unknown]>;
        expect(out['full']![0]).toMatchObject({ code: 'EMFILE', syscall: 'open' });
        expect(out['full']![1]).toEqual(out['full']![0]);
        expect(out['fullDir']![1]).toEqual(out['fullDir']![0]);
        // The one difference: listing needs a descriptor only through the held path.
        expect(out['listFull']).toEqual([expect.objectContaining({ code: 'EMFILE', syscall: 'scandir' }), ['a.txt', 'sub']]);
        expect(out['oneFree']).toEqual(['opened', 'opened']);
        expect(out['listOneFree']).toEqual([
            ['a.txt', 'sub'],
            ['a.txt', 'sub'],
        ]);
    });
});
