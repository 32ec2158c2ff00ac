/**
 * Time-of-check/time-of-use: a separate process swaps a path between a regular file (or a real
 * directory) and a symlink to an outside canary while reads, writes and edits run in parallel.
 * Zero canary reads, zero writes outside. And switch_workspace racing other calls: an in-flight
 * call keeps the view it started with.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType, Workspace } from '../../src/index.js';
import { makePackage, snapshot, tempDir } from '../support/helpers.js';

const SECRET = 'CANARY-race-5d1e0b';

const children: ChildProcess[] = [];
afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
});

/**
 * Starts a process that, until killed, atomically replaces `target` with `a` then `b` (prepared
 * entries renamed over it), alternating as fast as it can.
 */
function startSwapper(target: string, makeA: string, makeB: string): ChildProcess {
    const script = `
        const fs = require('node:fs');
        const target = ${JSON.stringify(target)};
        const tmp = target + '.swap';
        const makeA = ${makeA};
        const makeB = ${makeB};
        let i = 0;
        for (;;) {
            try {
                fs.rmSync(tmp, { recursive: true, force: true });
                (i++ % 2 === 0 ? makeA : makeB)(tmp);
                fs.rmSync(target + '.old', { recursive: true, force: true });
                try { fs.renameSync(target, target + '.old'); } catch {}
                fs.renameSync(tmp, target);
            } catch {}
        }`;
    const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    children.push(child);
    return child;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Calls each race test makes, however fast the machine: at least as many as its 4 s (3 s for
 * search) window reached on an idle 2-core machine, so a loaded machine takes longer instead of
 * testing less.
 */
const RACE_CALLS = { file: 3336, dir: 15_708, search: 4539 };


/** `work/d/f.txt` inside, and an `outside` directory holding the canary under the same name plus an outside-only name. */
function dirSwapTree(prefix: string): { work: string; outside: string } {
    const base = tempDir(prefix);
    const work = path.join(base, 'work');
    const outside = path.join(base, 'outside');
    fs.mkdirSync(work);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'f.txt'), `${SECRET}\n`);
    fs.writeFileSync(path.join(outside, 'only-outside-name.txt'), `${SECRET}\n`);
    fs.mkdirSync(path.join(work, 'd'));
    fs.writeFileSync(path.join(work, 'd', 'f.txt'), 'inside\n');
    return { work, outside };
}

/** Flips `work/d` between a real directory holding `f.txt` and a link to `outside`. */
function startDirSwapper(work: string, outside: string): void {
    startSwapper(
        path.join(work, 'd'),
        `(p) => { fs.mkdirSync(p); fs.writeFileSync(p + '/f.txt', 'inside\\n'); }`,
        `(p) => fs.symlinkSync(${JSON.stringify(outside)}, p)`,
    );
}

describe('file <-> symlink swap race', () => {
    it('never returns the canary and never writes outside while a path flips between a file and a link out', async () => {
        const base = tempDir('lcf-race-');
        const work = path.join(base, 'work');
        const outside = path.join(base, 'outside');
        fs.mkdirSync(work);
        fs.mkdirSync(outside);
        const canary = path.join(outside, 'canary.txt');
        fs.writeFileSync(canary, `${SECRET}\nline two\n`);
        fs.writeFileSync(path.join(work, 'other.txt'), 'other\n');
        fs.writeFileSync(path.join(work, 'swap.txt'), 'inside one\nline two\n');
        const before = snapshot(outside);
        const fx = makePackage(work, { requireReadBeforeWrite: false });
        startSwapper(
            path.join(work, 'swap.txt'),
            `(p) => fs.writeFileSync(p, 'inside one\\nline two\\n')`,
            `(p) => fs.symlinkSync(${JSON.stringify(canary)}, p)`,
        );
        await sleep(100);

        let canaryReads = 0;
        let reads = 0;
        let writes = 0;
        let attempts = 0;
        while (attempts < RACE_CALLS.file) {
            const batch = await Promise.all([
                fx.run('read_file', { paths: ['swap.txt'] }),
                fx.run('read_file', { paths: ['swap.txt', 'other.txt'] }),
                fx.run('read_file', { paths: ['swap.txt'], start_line: 2 }),
                fx.run('write_file', { path: 'swap.txt', content: 'written inside\nline two\n' }),
                fx.run('replace_file_content', { path: 'swap.txt', old_content: 'line two', new_content: 'line 2' }),
                fx.run('replace_file_lines', { path: 'swap.txt', content: 'replaced', start_line: 1 }),
                fx.run('insert_file_content', { path: 'swap.txt', content: 'inserted', line: 1 }),
                fx.run('search_entries', { content_pattern: 'CANARY|line' }),
            ]);
            attempts += batch.length;
            for (const [i, results] of batch.entries()) {
                for (const r of results) {
                    expect(typeof r.result).toBe('string');
                    expect(r.error).toBeUndefined();
                    if (r.result.includes(SECRET)) canaryReads++;
                    if (r.status === 'success' && i < 3) reads++;
                    if (r.status === 'success' && i >= 3 && i < 7) writes++;
                }
            }
        }
        console.log(`[race file<->symlink] ${attempts} calls, ${reads} successful reads, ${writes} successful writes, ${canaryReads} canary reads`);
        expect(canaryReads).toBe(0);
        expect(snapshot(outside)).toEqual(before);
        expect(fs.readFileSync(canary, 'utf8')).toBe(`${SECRET}\nline two\n`);
        // The race really ran both ways: some operations got through on the regular file.
        expect(reads).toBeGreaterThan(0);
        expect(writes).toBeGreaterThan(0);
    });

    it('never writes outside while a parent directory flips between a real directory and a link out', async () => {
        const { work, outside } = dirSwapTree('lcf-race-dir-');
        const before = snapshot(outside);
        const fx = makePackage(work, { requireReadBeforeWrite: false });
        startDirSwapper(work, outside);
        await sleep(100);
        let canaryReads = 0;
        let outsideNames = 0;
        let attempts = 0;
        let successes = 0;
        let n = 0;
        while (attempts < RACE_CALLS.dir) {
            n++;
            const batch = await Promise.all([
                fx.run('read_file', { paths: ['d/f.txt'] }),
                fx.run('read_file', { paths: ['d/f.txt', 'd/f.txt'] }),
                fx.run('write_file', { path: 'd/f.txt', content: 'written\n' }),
                fx.run('write_file', { path: `d/new-${n}/deeper.txt`, content: 'new\n' }),
                fx.run('replace_file_content', { path: 'd/f.txt', old_content: 'inside', new_content: 'edited' }),
                fx.run('create_folder', { path: `d/sub-${n}/inner` }),
                fx.run('delete_file', { path: 'd/f.txt' }),
                fx.run('move_file', { source: 'd/f.txt', destination: `moved-${n}.txt` }),
                fx.run('list_directory', { path: 'd', recursive: true }),
                fx.run('list_directory', { path: '.', recursive: true }),
                fx.run('entry_info', { path: 'd/f.txt' }),
            ]);
            attempts += batch.length;
            for (const results of batch) {
                for (const r of results) {
                    if (r.result.includes(SECRET)) canaryReads++;
                    if (r.result.includes('only-outside-name')) outsideNames++;
                    if (r.status === 'success') successes++;
                }
            }
        }
        console.log(`[race dir<->symlink] ${attempts} calls, ${successes} succeeded, ${canaryReads} canary reads, ${outsideNames} outside names shown`);
        expect(canaryReads).toBe(0);
        expect(outsideNames).toBe(0);
        expect(snapshot(outside)).toEqual(before);
        expect(successes).toBeGreaterThan(0);
        for (const f of fs.readdirSync(work).filter((x) => x.startsWith('moved-'))) {
            expect(fs.readFileSync(path.join(work, f), 'utf8')).not.toContain(SECRET);
        }
    });

    it('search_entries never searches outside while the searched directory flips between a real directory and a link out', async () => {
        const { work, outside } = dirSwapTree('lcf-race-search-');
        const fx = makePackage(work);
        startDirSwapper(work, outside);
        await sleep(100);
        let leaks = 0;
        let found = 0;
        let attempts = 0;
        while (attempts < RACE_CALLS.search) {
            const batch = await Promise.all([
                fx.run('search_entries', { path: 'd', content_pattern: 'CANARY|inside' }),
                fx.run('search_entries', { path: 'd', name_pattern: 'only-outside|f' }),
                fx.run('search_entries', { content_pattern: 'CANARY|inside' }),
            ]);
            attempts += batch.length;
            for (const [r] of batch) {
                if (r!.result.includes(SECRET) || r!.result.includes('only-outside-name')) leaks++;
                if (r!.result.includes('inside')) found++;
            }
        }
        console.log(`[race dir<->symlink, search] ${attempts} searches, ${found} found the inside file, ${leaks} showed outside content or names`);
        expect(leaks).toBe(0);
        expect(found).toBeGreaterThan(0);
    });
});

describe('switch_workspace racing other calls', () => {
    it('keeps the view an in-flight call started with', async () => {
        const base = tempDir('lcf-switch-');
        const a = path.join(base, 'a');
        const b = path.join(base, 'b');
        fs.mkdirSync(path.join(a, 'deep/er/still'), { recursive: true });
        fs.mkdirSync(path.join(b, 'deep/er/still'), { recursive: true });
        fs.writeFileSync(path.join(a, 'x.txt'), 'from A\n');
        fs.writeFileSync(path.join(b, 'x.txt'), 'from B\n');
        fs.writeFileSync(path.join(a, 'y.txt'), 'y from A\n');
        fs.writeFileSync(path.join(b, 'y.txt'), 'y from B\n');
        const fx = makePackage(a, {
            accesses: [
                { type: AccessType.Write, path: a },
                { type: AccessType.Write, path: b },
            ],
            requireReadBeforeWrite: false,
        });
        for (let i = 0; i < 40; i++) {
            const from = i % 2 === 0 ? a : b;
            const to = i % 2 === 0 ? b : a;
            const tag = from === a ? 'A' : 'B';
            expect(fx.ws.path).toBe(from);
            // Calls started before the switch, all racing it.
            const pending = [
                fx.run('read_file', { paths: ['x.txt', 'y.txt'] }),
                fx.run('read_file', { paths: ['x.txt'] }),
                fx.run('write_file', { path: `deep/er/still/w${i}.txt`, content: tag }),
                fx.run('list_directory', { path: '.', recursive: true }),
                fx.run('search_entries', { content_pattern: 'from' }),
                fx.run('create_folder', { path: `made${i}/inner` }),
            ] as const;
            const switched = fx.run('switch_workspace', { path: to });
            const [[x, y], [x1], [w], [l], [s], [c]] = await Promise.all(pending);
            expect((await switched)[0]!.status).toBe('success');
            expect(x!.result).toContain(`from ${tag}`);
            expect(y!.result).toContain(`y from ${tag}`);
            expect(x!.result).toContain(path.join(from, 'x.txt'));
            expect(x1!.result).toContain(`from ${tag}`);
            expect(w!.status).toBe('success');
            expect(fs.readFileSync(path.join(from, `deep/er/still/w${i}.txt`), 'utf8')).toBe(tag);
            expect(fs.existsSync(path.join(to, `deep/er/still/w${i}.txt`))).toBe(false);
            expect(l!.result).toContain('x.txt');
            expect(s!.result).toContain(`from ${tag}`);
            expect(s!.result).not.toContain(`from ${tag === 'A' ? 'B' : 'A'}`);
            expect(c!.status).toBe('success');
            expect(fs.existsSync(path.join(from, `made${i}/inner`))).toBe(true);
            expect(fs.existsSync(path.join(to, `made${i}`))).toBe(false);
            expect(fx.ws.path).toBe(to);
        }
    });

    it('a view taken before a switch still resolves against the old workspace', async () => {
        const base = tempDir('lcf-switch-view-');
        const a = path.join(base, 'a');
        const b = path.join(base, 'b');
        fs.mkdirSync(a);
        fs.mkdirSync(b);
        const ws = new Workspace({ accesses: [{ type: AccessType.Write, path: a }, { type: AccessType.Read, path: b }], workspacePath: a });
        const view = ws.view();
        await ws.switchTo(b);
        const checked = await view.check('new.txt', AccessType.Write, 'test');
        expect(checked.abs).toBe(path.join(a, 'new.txt'));
        await expect(ws.view().check('new.txt', AccessType.Write, 'test')).rejects.toThrow(/read-only/);
    });
});
