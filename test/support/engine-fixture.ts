/**
 * What the engine tests (test/integration/search/engine-*.test.ts) share: directories kept for the
 * whole file (a tree built once in `beforeAll` outlives each test), a search request with no
 * limits, and the sequential reference a search's hits are compared with.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SearchHit, SearchRequest } from '../../src/search/shared/types.js';
import { searchRootAt } from '../../src/search/prepare.js';
import { afterEachFile } from './cleanup.js';

const tmpRoot = fs.realpathSync(os.tmpdir());
const dirs: string[] = [];
afterEachFile(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A fresh real directory, removed after the file's last test. */
export function fileTempDir(prefix: string): string {
    const d = fs.mkdtempSync(path.join(tmpRoot, prefix));
    dirs.push(d);
    return d;
}

/** Writes `content` at `rel` under `root`, creating parents. */
export function write(root: string, rel: string, content: string | Buffer): void {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
}

/** A request for `root` with no practical limit, symlink checks off unless `realRoots` is given. */
export function request(root: string, over: Partial<SearchRequest> & { realRoots?: readonly string[] | null } = {}): SearchRequest {
    const { realRoots = null, ...rest } = over;
    return {
        root: searchRootAt(root, realRoots),
        type: 'both',
        maxResults: 1_000_000,
        maxFileSize: 10 * 1024 * 1024,
        maxTotalEntries: 1_000_000,
        skipDirs: [],
        ...rest,
    };
}

/** The sequential reference: depth-first, children sorted by name, lines in order. */
export function sequential(root: string, opts: { name?: RegExp; content?: RegExp; type?: 'file' | 'directory' | 'both' }): SearchHit[] {
    const out: SearchHit[] = [];
    const walk = (dir: string, rel: string): void => {
        const names = fs.readdirSync(dir).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        for (const name of names) {
            const p = path.join(dir, name);
            const r = rel ? `${rel}/${name}` : name;
            const isDir = fs.statSync(p).isDirectory();
            const nameOk = !opts.name || opts.name.test(name);
            if (isDir) {
                if (nameOk && !opts.content && opts.type !== 'file') out.push({ path: r, kind: 'directory' });
                walk(p, r);
            } else if (nameOk && opts.type !== 'directory') {
                if (!opts.content) out.push({ path: r, kind: 'file' });
                else {
                    const lines = fs.readFileSync(p, 'utf8').split('\n');
                    if (lines[lines.length - 1] === '') lines.pop();
                    lines.forEach((l, i) => {
                        if (opts.content!.test(l)) out.push({ path: r, kind: 'file', line: i + 1, text: l });
                    });
                }
            }
        }
    };
    walk(root, '');
    return out;
}

/** Hits as comparable strings: `path`, `dir/`, or `path:line:text`. */
export const strip = (hits: SearchHit[]): string[] => hits.map((h) => `${h.path}${h.kind === 'directory' ? '/' : ''}${h.line ? `:${h.line}:${h.text}` : ''}`);
