/**
 * What the search index tests (test/integration/search-index/) share: a tree indexed by a package
 * and the same tree's scan path (support/scan-path.ts), searched alike. `same` runs a search
 * through both, requires identical result strings and says whether the index answered it (its
 * `counts`), so a test cannot pass by silently falling back to the scan path.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Tool } from '@johannes.latzel/llm-chat';
import { expect } from 'vitest';
import { AccessType, FileToolPackage, SearchConfiguration, Workspace } from '../../src/index.js';
import { DEFAULT_SKIP_DIRS, type TreeIndex } from '../../src/internals.js';
import type { WatcherKind } from '../../src/search-index/watch/watch.js';
import { afterEachTest } from './cleanup.js';
import { SHARED_POOL, tempDir, writeTree } from './helpers.js';
import { COMPARED_TIMEOUT_MS, scanPathSearch, statusAndResult, WIDE_OUTPUT } from './scan-path.js';

const open: FileToolPackage[] = [];
// Before the trees and index directories (helpers.ts) are removed.
afterEachTest(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
}, -1);

/** Closes `pkg` after the test. */
export function closeAfterTest(pkg: FileToolPackage): FileToolPackage {
    open.push(pkg);
    return pkg;
}

export interface Pair {
    root: string;
    indexDir: string;
    indexed: FileToolPackage;
    /** The scan path's search_entries on the same tree. */
    plain: Tool;
    tree: TreeIndex;
}

export const LIMITS = (): SearchConfiguration => new SearchConfiguration(100_000, 100_000, 100_000, COMPARED_TIMEOUT_MS);

/** A package with the index on `root`, closed after the test; its engine on the fork's shared pool. */
export function pkgOf(root: string, index: { dir: string; rebuildAfter?: number; segmentBytes?: number; watcher?: WatcherKind }): FileToolPackage {
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    return closeAfterTest(new FileToolPackage(ws, LIMITS(), WIDE_OUTPUT(), undefined, { index, engine: SHARED_POOL }));
}

/** The scan path on `root`: a package's search_entries without the index (support/scan-path.ts). */
export function plainOf(root: string): Tool {
    return scanPathSearch(root, LIMITS());
}

/** `files` written to a new tree, indexed (ready) in `indexDir`, and its scan path. */
export async function pair(files: Record<string, string | Buffer>, indexDir = tempDir('lcf-index-'), prepare?: (root: string) => void, watcher?: WatcherKind): Promise<Pair> {
    const root = tempDir('lcf-tree-');
    writeTree(root, files);
    prepare?.(root);
    const indexed = pkgOf(root, { dir: indexDir, ...(watcher && { watcher }) });
    const plain = plainOf(root);
    const tree = (await indexed.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
    expect(tree.status().state, tree.status().error).toBe('ready');
    return { root, indexDir, indexed, plain, tree };
}

/** Runs `tool` of `pkg`: `status: result`. */
export async function call(pkg: FileToolPackage, tool: string, args: Record<string, unknown>): Promise<string> {
    const [r] = await pkg.tools().find((t) => t.name === tool)!.execute(args);
    return `${r!.status}: ${r!.result}`;
}

/** The search through both packages: identical results, and whether the index answered it. */
export async function same(p: Pair, args: Record<string, unknown>): Promise<{ text: string; answered: boolean }> {
    const before = p.tree.counts.answered;
    const a = await call(p.indexed, 'search_entries', args);
    const b = await statusAndResult(p.plain, args);
    expect(a, JSON.stringify(args)).toBe(b);
    return { text: a, answered: p.tree.counts.answered > before };
}

/** A small project: several encodings, a binary, a skipped directory, nested .gitignore files. */
export const FILES: Record<string, string | Buffer> = {
    'README.md': 'Project readme\nmentions alphaBeta once\n',
    'src/main.ts': 'import { alphaBeta } from "../../lib";\nconsole.log(alphaBeta(1));\n',
    'src/lib.ts': 'export function alphaBeta(x: number) {\n  return x * 2; // ALPHABETA doubled\n}\n',
    'src/deep/a/b/c.ts': 'const gammaDelta = 3;\n',
    'src/deep/a/b.txt': 'gammaDelta in a text file\n',
    'docs/guide.md': 'Guide: use alphaBeta and gammaDelta.\nÜmlaut straße café\n',
    'docs/latin1.txt': Buffer.from('caf\xe9 gammaDelta latin-1\n', 'latin1'),
    'docs/utf16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('utf16 gammaDelta here\n', 'utf16le')]),
    'bin/blob.bin': Buffer.from([0, 1, 2, 3, 0x61, 0x6c, 0x70, 0x68, 0x61, 0, 0, 0]),
    'empty.txt': '',
    'node_modules/dep/index.js': 'alphaBeta in a skipped dir\n',
    'CRLF.txt': 'line one gammaDelta\r\nline two\r\n',
    '.gitignore': '*.txt\n!CRLF.txt\nbin/\n',
    'src/.gitignore': 'deep/a/b/\n',
    'src/deep/.gitignore': '!*.txt\n',
};

/** Searches of every kind over FILES: content and names, modes, paths, filters, limits, .gitignore. */
export const QUERIES: Record<string, unknown>[] = [
    { content_pattern: 'alphaBeta' },
    { content_pattern: 'ALPHABETA', output_mode: 'count' },
    { content_pattern: 'gammaDelta', output_mode: 'files_with_matches' },
    { content_pattern: 'gamma(Delta|Ray)' },
    { content_pattern: 'caf[eé]' },
    { content_pattern: 'straße' },
    { content_pattern: 'STRASSE' },
    { content_pattern: '^const gamma' },
    { content_pattern: 'alpha.*doubled' },
    { content_pattern: 'nothing-like-this-anywhere' },
    { content_pattern: 'alphaBeta', context_lines: 1 },
    { content_pattern: 'gammaDelta', path: 'src' },
    { content_pattern: 'gammaDelta', path: 'src/deep/a' },
    { content_pattern: 'gammaDelta', include: '*.ts' },
    { content_pattern: 'gammaDelta', exclude: 'deep/' },
    { content_pattern: 'alphaBeta', name_pattern: '\\.ts$' },
    { content_pattern: 'gammaDelta', max_size: 10 },
    { content_pattern: 'alphaBeta', max_results: 2 },
    { name_pattern: 'guide' },
    { name_pattern: 'deep', type: 'directory' },
    { name_pattern: '\\.txt$', type: 'file' },
    { name_pattern: 'lib', modified_after: '2000-01-01T00:00:00Z' },
    { name_pattern: 'main|guide' },
    { content_pattern: 'gammaDelta', respect_gitignore: true },
    { content_pattern: 'alphaBeta', respect_gitignore: true, path: 'src' },
    { name_pattern: 'b', respect_gitignore: true },
];

/** The one segment file of the generation `p`'s index serves (a rebuilt index's old one may not be removed yet). */
export function servedSegment(p: Pair): string {
    const dir = path.join(p.indexDir, fs.readdirSync(p.indexDir)[0]!);
    const gen = (JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8').split('\n')[0]!) as { gen: string }).gen;
    const segs = fs.readdirSync(path.join(dir, gen)).filter((n) => n.startsWith('seg-'));
    expect(segs.length).toBe(1);
    return path.join(dir, gen, segs[0]!);
}
