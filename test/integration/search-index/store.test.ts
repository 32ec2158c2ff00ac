/**
 * Where the search index is kept and when it is served: outside the tree, private, never for a tree
 * that holds it, not while another index of the process watches the tree, off by default; a
 * truncated or corrupted index (found on open or while serving) rebuilt, its searches meanwhile
 * taking the scan path.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { AccessType, FileToolPackage, Workspace } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { SegmentReader } from '../../../src/search-index/shared/segment.js';
import type { IndexStatus } from '../../../src/search-index/status.js';
import { gramsOf } from '../../../src/search/shared/fold.js';
import { tempDir, writeTree } from '../../support/helpers.js';
import { call, closeAfterTest, FILES, pair, pkgOf, same } from '../../support/index-pair.js';

describe('search index storage', () => {
    it('stores the index outside the tree, in the given directory, private', async () => {
        const p = await pair(FILES);
        const found = fs.readdirSync(p.indexDir);
        expect(found.length).toBe(1);
        const dir = path.join(p.indexDir, found[0]!);
        expect(fs.existsSync(path.join(dir, 'manifest.json'))).toBe(true);
        expect(fs.statSync(p.indexDir).mode & 0o077).toBe(0);
        // Nothing was written into the searched tree.
        expect(fs.readdirSync(p.root).sort()).toEqual(['.gitignore', 'CRLF.txt', 'README.md', 'bin', 'docs', 'empty.txt', 'node_modules', 'src']);
    });

    it('never indexes a tree that holds the index directory', async () => {
        const root = tempDir('lcf-tree-');
        writeTree(root, { 'a.txt': 'alphaBeta\n' });
        const pkg = pkgOf(root, { dir: path.join(root, '.cache-index') });
        const states: IndexStatus[] = [];
        pkg.searchIndex!.onState((s) => states.push(s));
        expect(await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root])).toBeNull();
        expect(await call(pkg, 'search_entries', { content_pattern: 'alphaBeta' })).toBe('success: a.txt:1: alphaBeta');
        expect(fs.existsSync(path.join(root, '.cache-index'))).toBe(false);
        // Said once, as a failed index is: the status and the state listeners name the folder and why.
        const why = `the index directory ${path.join(root, '.cache-index')} is inside the tree; an index never indexes itself: set LLM_CHAT_FS_INDEX_DIR or the option dir to a folder outside the tree`;
        expect(pkg.searchIndex!.status()).toEqual([expect.objectContaining({ root, state: 'failed', error: why })]);
        expect(states).toEqual([expect.objectContaining({ root, state: 'failed', error: why })]);
        // A tree inside the index directory likewise.
        const outer = tempDir('lcf-index-outer-');
        const inner = path.join(outer, 'tree');
        writeTree(inner, { 'b.txt': 'gammaDelta\n' });
        const nested = pkgOf(inner, { dir: outer });
        expect(await nested.searchIndex!.warm(inner, DEFAULT_SKIP_DIRS, [inner])).toBeNull();
        expect(nested.searchIndex!.status()).toEqual([expect.objectContaining({ root: inner, state: 'failed', error: expect.stringContaining(`the tree is inside the index directory ${outer}`) })]);
    });


    it('is not served while another index of the same process watches the tree (@parcel/watcher\'s crawl is shared)', async () => {
        const p = await pair(FILES, undefined, undefined, 'parcel');
        const second = pkgOf(p.root, { dir: tempDir('lcf-index-'), watcher: 'parcel' });
        const tree = (await second.searchIndex!.warm(p.root, DEFAULT_SKIP_DIRS, [p.root]))!;
        expect(tree.status().state).toBe('failed');
        expect(tree.status().error).toMatch(/another index of this process watches this tree/);
        const q = { ...p, indexed: second, tree };
        const r = await same(q, { content_pattern: 'alphaBeta' });
        expect(r.answered).toBe(false);
        expect((await same(p, { content_pattern: 'alphaBeta' })).answered).toBe(true);
    });

    it('detects a truncated or corrupted index and rebuilds it', async () => {
        const indexDir = tempDir('lcf-index-');
        const p = await pair(FILES, indexDir);
        await p.indexed.close();
        const dir = path.join(indexDir, fs.readdirSync(indexDir)[0]!);
        /** The current generation's directory, from the manifest. */
        const current = (): string => path.join(dir, (JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8').split('\n')[0]!) as { gen: string }).gen);
        const flip = (file: string, at: number): void => {
            const b = fs.readFileSync(file);
            const i = at < 0 ? b.length + at : at;
            b[i] = b[i]! ^ 0xff;
            fs.writeFileSync(file, b);
        };
        const damages: (() => void)[] = [
            () => fs.truncateSync(path.join(current(), 'seg-0000.bin'), fs.statSync(path.join(current(), 'seg-0000.bin')).size - 3),
            () => flip(path.join(current(), 'table.bin'), -5),
            () => {
                // An entry's subtree ending before it (the `end` column, after the header and four
                // columns): the tree check's threads leave the checksum to the load, which fails.
                const file = path.join(current(), 'table.bin');
                const n = fs.readFileSync(file).readUInt32LE(12);
                flip(file, 48 + n * 28 + 4 + 3);
            },
            () => flip(path.join(current(), 'seg-0000.bin'), 70),
            () => flip(path.join(dir, 'manifest.json'), 10),
            () => {
                // A foreign format version, with a valid checksum.
                const [body] = fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8').split('\n');
                const m = JSON.parse(body!) as { version: number };
                m.version = 999;
                const text = JSON.stringify(m);
                fs.writeFileSync(path.join(dir, 'manifest.json'), `${text}\n${crc32(Buffer.from(text)).toString(16)}\n`);
            },
        ];
        for (const damage of damages) {
            damage();
            const again = pkgOf(p.root, { dir: indexDir });
            const tree = (await again.searchIndex!.warm(p.root, DEFAULT_SKIP_DIRS, [p.root]))!;
            expect(tree.status().state).toBe('ready');
            // Rebuilt: no reopen figure, a fresh generation.
            expect(tree.status().openMs).toBeUndefined();
            const q = { ...p, indexed: again, tree };
            expect((await same(q, { content_pattern: 'gammaDelta' })).answered).toBe(true);
            await again.close();
        }
    });

    it('detects a posting list corrupted while serving: that search takes the scan path, the index is rebuilt', async () => {
        const p = await pair(FILES);
        const dir = path.join(p.indexDir, fs.readdirSync(p.indexDir)[0]!);
        const gen = fs.readdirSync(dir).find((n) => n.startsWith('gen-'))!;
        const seg = path.join(dir, gen, 'seg-0000.bin');
        // Flip the bytes of the posting list of the gram "alp".
        const reader = new SegmentReader(seg);
        const ref = reader.lookup([...gramsOf('alp')][0]!)!;
        const at = reader.postingsAt + ref.off;
        reader.close();
        const fd = fs.openSync(seg, 'r+');
        const bytes = Buffer.alloc(ref.len);
        fs.readSync(fd, bytes, 0, ref.len, at);
        fs.writeSync(fd, bytes.map((x) => x ^ 0x5a), 0, ref.len, at);
        fs.closeSync(fd);
        const states: string[] = [];
        p.tree.on('state', (st: { state: string }) => states.push(st.state));
        const r = await same(p, { content_pattern: 'alphaBeta' });
        expect(r.text).toContain('src/lib.ts');
        expect(r.answered).toBe(false);
        expect(states[0]).toBe('failed');
        await new Promise<void>((resolve) => {
            const check = (): void => (p.tree.state === 'ready' ? resolve() : void setTimeout(check, 50));
            check();
        });
        expect((await same(p, { content_pattern: 'alphaBeta' })).answered).toBe(true);
    });


    it('is off by default in the library and on with the package option', () => {
        const root = tempDir('lcf-tree-');
        const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Read }], workspacePath: root });
        const before = process.env.LLM_CHAT_FS_INDEX;
        delete process.env.LLM_CHAT_FS_INDEX;
        try {
            const off = new FileToolPackage(ws);
            closeAfterTest(off);
            expect(off.searchIndex).toBeUndefined();
            process.env.LLM_CHAT_FS_INDEX = 'true';
            const on = new FileToolPackage(ws);
            closeAfterTest(on);
            expect(on.searchIndex).toBeDefined();
        } finally {
            if (before === undefined) delete process.env.LLM_CHAT_FS_INDEX;
            else process.env.LLM_CHAT_FS_INDEX = before;
        }
    });
});
