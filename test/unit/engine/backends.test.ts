/**
 * The search-backend seam (src/search/backend.ts): backends handed to the engine when it is
 * built are asked for a search's walk in order, hear of every write through the tools before and
 * after it happens (by real path, and as written through a link), and never change a result: one
 * that answers nothing or fails leaves the search to the scan path.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType, FileToolPackage, Workspace } from '../../../src/index.js';
import type { SearchBackend, WriteEvent } from '../../../src/search/backend.js';
import type { PreparedSearch } from '../../../src/search/shared/protocol.js';
import { tempDir, writeTree } from '../../support/helpers.js';

const open: FileToolPackage[] = [];
afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
});

class Recorder implements SearchBackend {
    readonly plans: { pattern: string | undefined; rootReal: string }[] = [];
    readonly writes: WriteEvent[] = [];
    constructor(readonly fail = false) {}
    async plan(search: PreparedSearch, rootReal: string): Promise<null> {
        this.plans.push({ pattern: search.contentPattern?.source, rootReal });
        if (this.fail) throw new Error('backend down');
        return null;
    }
    write(event: WriteEvent): void {
        this.writes.push(event);
    }
}

function pkgWith(backends: SearchBackend[]): { pkg: FileToolPackage; root: string } {
    const root = fs.realpathSync(tempDir('lcf-backend-'));
    writeTree(root, { 'src/a.txt': 'alpha\n', 'src/b.txt': 'beta\n' });
    fs.symlinkSync(path.join(root, 'src'), path.join(root, 'via'));
    const pkg = new FileToolPackage(new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root }), { engine: { backends } });
    open.push(pkg);
    return { pkg, root };
}

async function call(pkg: FileToolPackage, tool: string, args: Record<string, unknown>): Promise<string> {
    const [r] = await pkg.tools().find((t) => t.name === tool)!.execute(args);
    return `${r!.status}: ${r!.result}`;
}

describe('search backends', () => {
    it('are asked for each search in order, with the prepared search and the real root; failing or empty ones leave the scan path', async () => {
        const first = new Recorder(true);
        const second = new Recorder();
        const { pkg, root } = pkgWith([first, second]);
        expect(pkg.engine.backends).toEqual([first, second]);
        // via -> src leads into the searched tree: the file is found once, under its own name.
        expect(await call(pkg, 'search_entries', { content_pattern: 'alpha' })).toBe('success: src/a.txt:1: alpha');
        expect(first.plans).toEqual([{ pattern: 'alpha', rootReal: root }]);
        expect(second.plans).toEqual([{ pattern: 'alpha', rootReal: root }]);
    });

    it('hear of a write through the tools before and after it, by real path and as written through a link', async () => {
        const rec = new Recorder();
        const { pkg, root } = pkgWith([rec]);
        expect(await call(pkg, 'write_file', { path: 'via/new.txt', content: 'gamma\n' })).toMatch(/^success/);
        const real = path.join(root, 'src/new.txt');
        const asWritten = path.join(root, 'via/new.txt');
        expect(rec.writes).toEqual([
            { path: real, phase: 'before' },
            { path: asWritten, phase: 'before' },
            { path: real, phase: 'after' },
            { path: asWritten, phase: 'after' },
        ]);
        // Reads and searches are not writes.
        rec.writes.length = 0;
        await call(pkg, 'read_file', { path: 'src/a.txt' });
        await call(pkg, 'search_entries', { content_pattern: 'gamma' });
        expect(rec.writes).toEqual([]);
        // A refused write is reported to no one.
        expect(await call(pkg, 'write_file', { path: '/etc/lcf-not-allowed.txt', content: 'x' })).toMatch(/^error/);
        expect(rec.writes).toEqual([]);
    });

    it('are made by the engine being built when given as a function, and the index is one of them', async () => {
        const root = fs.realpathSync(tempDir('lcf-backend-'));
        let threads = 0;
        const rec = new Recorder();
        const pkg = new FileToolPackage(new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root }), {
            index: { dir: tempDir('lcf-backend-index-') },
            engine: { maxThreads: 2, backends: [(e) => ((threads = e.maxThreads), rec)] },
        });
        open.push(pkg);
        expect(threads).toBe(2);
        expect(pkg.engine.backends).toHaveLength(2);
        expect(pkg.engine.backends[0]).toBe(pkg.searchIndex);
        expect(pkg.engine.backends[1]).toBe(rec);
    });
});
