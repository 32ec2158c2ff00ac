/**
 * Odd files never hurt the host: FIFOs, sockets and devices are never opened for reading (a FIFO
 * would block forever); unreadable directories, vanished files and broken links are skipped and
 * reported; UTF-16 and Latin-1 text is decoded; binaries are refused with their size; and a
 * catastrophic regex is cut off by the timeout while other calls keep working.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolResult } from '@johannes.latzel/llm-chat';
import { AccessType, SearchConfiguration, SearchEntriesTool } from '../../src/index.js';
import { makePackage, tempDir, type Fixture } from '../support/helpers.js';

const isRoot = process.getuid?.() === 0;

/**
 * Resolves with the call's results, or rejects if it takes longer than `ms` (a blocked open,
 * which would never return: the bound is generous so that a loaded machine never trips it).
 */
async function prompt<T>(p: Promise<T>, ms = 20_000): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
        return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`did not return within ${ms} ms`)), ms)))]);
    } finally {
        clearTimeout(timer);
    }
}

const servers: net.Server[] = [];
afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function mkfifo(p: string): void {
    execFileSync('mkfifo', [p]);
}

async function listenOn(p: string): Promise<void> {
    const server = net.createServer((c) => c.end('hello from the socket'));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(p, resolve));
}

describe('FIFOs, sockets and devices', () => {
    let dir: string;
    let fx: Fixture;

    const setup = async (opts: Parameters<typeof makePackage>[1] = {}): Promise<void> => {
        dir = tempDir('lcf-odd-');
        fs.writeFileSync(path.join(dir, 'plain.txt'), 'plain text\n');
        mkfifo(path.join(dir, 'pipe'));
        await listenOn(path.join(dir, 'sock'));
        fs.symlinkSync('/dev/zero', path.join(dir, 'zero'));
        fs.symlinkSync('pipe', path.join(dir, 'link-to-pipe'));
        fx = makePackage(dir, { requireReadBeforeWrite: false, ...opts });
    };

    it('read_file refuses a FIFO, a socket and a link to a FIFO promptly, naming the kind', async () => {
        await setup();
        for (const [p, kind] of [['pipe', /FIFO/], ['sock', /socket/], ['link-to-pipe', /FIFO/]] as const) {
            const [r] = await prompt(fx.run('read_file', { paths: [p] }));
            expect(r!.status, p).toBe('error');
            expect(r!.result).toMatch(kind);
        }
    });

    it('a multi-path read with FIFOs and sockets returns promptly, reading the regular file', async () => {
        await setup();
        const results = await prompt(fx.run('read_file', { paths: ['pipe', 'plain.txt', 'sock', 'link-to-pipe'] }));
        expect(results.map((r) => r.status)).toEqual(['error', 'success', 'error', 'error']);
        expect(results[1]!.result).toContain('plain text');
    });

    it('refuses a device: outside the accesses by default, by kind when symlinks are not resolved', async () => {
        await setup();
        const [secure] = await prompt(fx.run('read_file', { paths: ['zero'] }));
        expect(secure!.status).toBe('error');
        expect(secure!.result).toMatch(/outside/);
        const relaxed = makePackage(dir, { resolveSymlinks: false, requireReadBeforeWrite: false });
        const [r] = await prompt(relaxed.run('read_file', { paths: ['zero'] }));
        expect(r!.status).toBe('error');
        expect(r!.result).toMatch(/device/);
        const many = await prompt(relaxed.run('read_file', { paths: ['zero', 'plain.txt'] }));
        expect(many.map((x) => x.status)).toEqual(['error', 'success']);
        const [edit] = await prompt(relaxed.run('replace_file_content', { path: 'zero', old_content: 'a', new_content: 'b' }));
        expect(edit!.status).toBe('error');
        const devAccess = makePackage(dir, { accesses: [{ type: AccessType.Write, path: dir }, { type: AccessType.Read, path: '/dev' }] });
        const [direct] = await prompt(devAccess.run('read_file', { paths: ['/dev/zero', '/dev/null'] }));
        expect(direct!.status).toBe('error');
        expect(direct!.result).toMatch(/device/);
    });

    it('edit and write tools refuse FIFOs and sockets promptly and leave them in place', async () => {
        await setup();
        const calls: [string, Record<string, unknown>][] = [
            ['write_file', { path: 'pipe', content: 'x' }],
            ['write_file', { path: 'sock', content: 'x' }],
            ['replace_file_content', { path: 'pipe', old_content: 'a', new_content: 'b' }],
            ['replace_file_lines', { path: 'sock', content: 'x', start_line: 1 }],
            ['insert_file_content', { path: 'link-to-pipe', content: 'x' }],
        ];
        for (const [tool, args] of calls) {
            const [r] = await prompt(fx.run(tool, args));
            expect(r!.status, tool).toBe('error');
        }
        expect(fs.statSync(path.join(dir, 'pipe')).isFIFO()).toBe(true);
        expect(fs.statSync(path.join(dir, 'sock')).isSocket()).toBe(true);
    });

    it('search, listing and entry_info walk past FIFOs and sockets without opening them', async () => {
        await setup();
        const [s] = await prompt(fx.run('search_entries', { content_pattern: 'text|hello' }));
        expect(s!.status).toBe('success');
        expect(s!.result).toContain('plain.txt');
        expect(s!.result).not.toContain('hello from the socket');
        const [byName] = await prompt(fx.run('search_entries', { name_pattern: 'pipe|sock' }));
        expect(byName!.status).toBe('success');
        const [l] = await prompt(fx.run('list_directory', { path: '.', recursive: true }));
        expect(l!.result).toMatch(/pipe/);
        const [info] = await prompt(fx.run('entry_info', { path: 'pipe' }));
        expect(info!.result).toMatch(/Type: FIFO/);
    });
});

describe('unreadable directories, broken links and vanished files', () => {
    it('skips an unreadable directory and reports it (skipped as root, where chmod does not deny)', async () => {
        const dir = tempDir('lcf-odd-perm-');
        fs.mkdirSync(path.join(dir, 'locked'));
        fs.writeFileSync(path.join(dir, 'locked', 'in.txt'), 'hidden needle\n');
        fs.writeFileSync(path.join(dir, 'open.txt'), 'visible needle\n');
        fs.chmodSync(path.join(dir, 'locked'), 0o000);
        try {
            const fx = makePackage(dir);
            const [l] = await prompt(fx.run('list_directory', { path: '.', recursive: true }));
            expect(l!.status).toBe('success');
            const [s] = await prompt(fx.run('search_entries', { content_pattern: 'needle' }));
            expect(s!.status).toBe('success');
            expect(s!.result).toContain('open.txt');
            if (!isRoot) {
                expect(l!.result).toMatch(/Skipped 1 unreadable/);
                expect(s!.result).not.toContain('hidden needle');
                expect(s!.result).toMatch(/skipped|unreadable|permission/i);
            }
        } finally {
            fs.chmodSync(path.join(dir, 'locked'), 0o755);
        }
    });

    it('broken links are errors for reads, listed by listings, skipped by searches, described by entry_info', async () => {
        const dir = tempDir('lcf-odd-broken-');
        fs.writeFileSync(path.join(dir, 'ok.txt'), 'needle\n');
        fs.symlinkSync('missing.txt', path.join(dir, 'broken'));
        fs.mkdirSync(path.join(dir, 'sub'));
        fs.symlinkSync('../nowhere/dir', path.join(dir, 'sub', 'broken-dir'));
        const fx = makePackage(dir);
        const [r] = await prompt(fx.run('read_file', { paths: ['broken'] }));
        expect(r!.status).toBe('error');
        expect(r!.result).toMatch(/not found/i);
        expect(r!.result).toContain('broken');
        const many = await prompt(fx.run('read_file', { paths: ['broken', 'ok.txt', 'sub/broken-dir/x'] }));
        expect(many.map((x) => x.status)).toEqual(['error', 'success', 'error']);
        const [l] = await prompt(fx.run('list_directory', { path: '.', recursive: true }));
        expect(l!.status).toBe('success');
        expect(l!.result).toContain('broken');
        const [s] = await prompt(fx.run('search_entries', { content_pattern: 'needle' }));
        expect(s!.status).toBe('success');
        expect(s!.result).toContain('ok.txt');
        const [all] = await prompt(fx.run('search_entries', {}));
        expect(all!.status).toBe('success');
        const [info] = await prompt(fx.run('entry_info', { path: 'broken' }));
        expect(info!.result).toMatch(/broken/);
        const [del] = await prompt(fx.run('delete_file', { path: 'broken' }));
        expect(del!.status).toBe('success');
    });

    it('files and directories vanishing during walks and reads are skipped, never fatal', async () => {
        const dir = tempDir('lcf-odd-vanish-');
        const fx = makePackage(dir);
        for (let round = 0; round < 6; round++) {
            for (let d = 0; d < 10; d++) {
                fs.mkdirSync(path.join(dir, `r${round}`, `d${d}`), { recursive: true });
                for (let f = 0; f < 20; f++) fs.writeFileSync(path.join(dir, `r${round}`, `d${d}`, `f${f}.txt`), `needle ${f}\n`);
            }
            const paths = Array.from({ length: 20 }, (_, f) => `r${round}/d${f % 10}/f${f}.txt`);
            const calls = Promise.all([
                fx.run('search_entries', { content_pattern: 'needle', max_results: 1000 }),
                fx.run('search_entries', { name_pattern: 'f1', path: `r${round}` }),
                fx.run('list_directory', { path: `r${round}`, recursive: true }),
                fx.run('read_file', { paths }),
            ]);
            // Delete the tree while the calls run.
            await new Promise((r) => setImmediate(r));
            await fs.promises.rm(path.join(dir, `r${round}`), { recursive: true, force: true });
            const results = (await prompt(calls, 15_000)).flat();
            for (const r of results) {
                expect(['success', 'error']).toContain(r.status);
                expect(r.result.length).toBeGreaterThan(0);
                expect(r.error).toBeUndefined();
            }
        }
    });
});

describe('text detection by content', () => {
    it('decodes UTF-16LE and UTF-16BE with a BOM', async () => {
        const dir = tempDir('lcf-odd-utf16-');
        fs.writeFileSync(path.join(dir, 'le.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('grüße LE\nline 2\n', 'utf16le')]));
        const be = Buffer.from('grüße BE\nline 2\n', 'utf16le');
        be.swap16();
        fs.writeFileSync(path.join(dir, 'be.txt'), Buffer.concat([Buffer.from([0xfe, 0xff]), be]));
        const fx = makePackage(dir);
        const [le1] = await fx.run('read_file', { paths: ['le.txt'] });
        expect(le1!.result).toContain('grüße LE\nline 2\n');
        const both = await fx.run('read_file', { paths: ['le.txt', 'be.txt'] });
        expect(both[0]!.result).toContain('grüße LE');
        expect(both[1]!.result).toContain('grüße BE');
        expect(both[1]!.result).toMatch(/lines 1-2 of 2/);
        const [s] = await fx.run('search_entries', { content_pattern: 'grüße' });
        expect(s!.status).toBe('success');
    });

    it('reads and searches Latin-1 text without crashing', async () => {
        const dir = tempDir('lcf-odd-latin1-');
        fs.writeFileSync(path.join(dir, 'latin1.txt'), Buffer.from('caf\xe9 cr\xe8me br\xfbl\xe9e\nna\xefve\n', 'latin1'));
        const fx = makePackage(dir);
        const [r] = await fx.run('read_file', { paths: ['latin1.txt'] });
        expect(r!.status).toBe('success');
        expect(r!.result).toContain('café crème brûlée');
        const [s] = await fx.run('search_entries', { content_pattern: 'cr.me' });
        expect(s!.status).toBe('success');
        expect(s!.result).toContain('latin1.txt');
        const [s2] = await fx.run('search_entries', { content_pattern: 'na.ve' });
        expect(s2!.status).toBe('success');
    });

    it('refuses real binaries with their size', async () => {
        const dir = tempDir('lcf-odd-bin-');
        const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), Buffer.alloc(1000, 0)]);
        fs.writeFileSync(path.join(dir, 'image.png'), png);
        fs.writeFileSync(path.join(dir, 'elf'), Buffer.concat([Buffer.from('\x7fELF\x02\x01\x01\x00', 'latin1'), Buffer.alloc(3000, 0x00)]));
        const fx = makePackage(dir, { requireReadBeforeWrite: false });
        const [r] = await fx.run('read_file', { paths: ['image.png'] });
        expect(r!.status).toBe('error');
        // Named as an image, it goes to the image reader, which refuses it with its size too.
        expect(r).toMatchObject({ kind: 'binary' });
        expect(r!.result).toMatch(/^Cannot read image: .*image\.png \(1012 bytes\) is (not an image|a damaged or truncated PNG)/);
        const many = await fx.run('read_file', { paths: ['elf', 'image.png'] });
        expect(many[0]!.result).toMatch(/Binary file refused: .*elf \(3008 bytes\)/);
        expect(many[1]!.status).toBe('error');
        const [e] = await fx.run('replace_file_content', { path: 'image.png', old_content: 'PNG', new_content: 'GIF' });
        expect(e!.status).toBe('error');
        expect(e!.result).toMatch(/Binary/);
        expect(fs.readFileSync(path.join(dir, 'image.png'))).toEqual(png);
    });
});

describe('hostile regexes', () => {
    /** The timeout of the search cut off by it: short, as its stuck thread spins a core until then. */
    const TIMEOUT = 500;

    /**
     * The tree, and a package whose calls never time out on a loaded machine (60 s): a runaway
     * search on it ends only when aborted, so "other calls finish while it runs" does not
     * depend on how fast the machine is.
     */
    function hostileTree(): Fixture & { dir: string } {
        const dir = tempDir('lcf-odd-redos-');
        fs.writeFileSync(path.join(dir, 'evil.txt'), 'a'.repeat(40) + '!\n');
        fs.writeFileSync(path.join(dir, 'a'.repeat(40) + '!'), 'x\n');
        fs.writeFileSync(path.join(dir, 'other.txt'), 'still readable\n');
        fs.writeFileSync(path.join(dir, 'third.txt'), 'third\n');
        return { dir, ...makePackage(dir, { search: new SearchConfiguration(50, 200, 5000, 60_000) }) };
    }

    /** Starts a search that runs until `signal` aborts; `done()` says whether it has returned. */
    function runaway(fx: Fixture, args: Record<string, unknown>, signal: AbortSignal): { result: Promise<ToolResult[]>; done: () => boolean } {
        let finished = false;
        const result = (fx.tool('search_entries') as SearchEntriesTool).executeWithSignal(args, signal).then((r) => {
            finished = true;
            return r;
        });
        return { result, done: () => finished };
    }

    for (const param of ['content_pattern', 'name_pattern'] as const) {
        it(`a catastrophic ${param} is cut off by the timeout while other calls keep working`, async () => {
            const fx = hostileTree();
            const ac = new AbortController();
            const search = runaway(fx, { [param]: '(a+)+$' }, ac.signal);
            await new Promise((r) => setTimeout(r, 200));
            // Calls made while the regex runs all finish while it is still running.
            const [read] = await fx.run('read_file', { paths: ['other.txt'] });
            const [list] = await fx.run('list_directory', { path: '.' });
            const [info] = await fx.run('entry_info', { path: 'other.txt' });
            const many = await fx.run('read_file', { paths: ['other.txt', 'third.txt'] });
            const [written] = await fx.run('write_file', { path: 'new.txt', content: 'written meanwhile' });
            expect(search.done()).toBe(false);
            expect(read!.status).toBe('success');
            expect(read!.result).toContain('still readable');
            expect(list!.status).toBe('success');
            expect(info!.status).toBe('success');
            expect(many.map((r) => r.status)).toEqual(['success', 'success']);
            expect(written!.status).toBe('success');
            ac.abort();
            const [s] = await search.result;
            expect(s!.result).toMatch(/aborted/i);
            // The timeout cuts the same search off on its own.
            const short = makePackage(fx.dir, { search: new SearchConfiguration(50, 200, 5000, TIMEOUT) });
            const [timed] = await short.run('search_entries', { [param]: '(a+)+$' });
            expect(timed!.result).toMatch(new RegExp(`timed out after ${TIMEOUT} ms`, 'i'));
            // The pool recovers: a normal search works right after.
            const [after] = await prompt(fx.run('search_entries', { content_pattern: 'readable' }));
            expect(after!.status).toBe('success');
            expect(after!.result).toContain('other.txt');
        });
    }

    it('two catastrophic searches at once do not starve a third, normal search', async () => {
        const fx = hostileTree();
        const ac = new AbortController();
        const evil = [runaway(fx, { content_pattern: '(a+)+$' }, ac.signal), runaway(fx, { name_pattern: '(a|a)+$' }, ac.signal)];
        await new Promise((r) => setTimeout(r, 100));
        const [normal] = await fx.run('search_entries', { content_pattern: 'third' });
        expect(normal!.result).toContain('third.txt');
        expect(evil.map((e) => e.done())).toEqual([false, false]);
        ac.abort();
        for (const e of evil) expect((await e.result)[0]!.result).toMatch(/aborted/i);
    });
});
