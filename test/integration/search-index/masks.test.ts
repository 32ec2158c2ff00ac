/**
 * The index's per-posting masks on a real build: a file holding every trigram of a literal, but
 * never side by side, is ruled out of the candidates, a file holding the literal kept, and every
 * answer is the scan path's, also where small files' postings are stored without masks; an index
 * of the previous format version is rebuilt, never read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { FORMAT_VERSION } from '../../../src/search-index/shared/format.js';
import { MASKS_FROM } from '../../../src/search-index/shared/masks.js';
import { SEG_HEADER } from '../../../src/search-index/shared/segment.js';
import { pair, pkgOf, same, type Pair } from '../../support/index-pair.js';

const APART = 'xtroy ronx ponny zonne znes\nxstrx xtrax raßx ßex\n';
/** Lines holding none of the literals' grams, up to the size from which masks are stored. */
const PAD = 'qqqq\n'.repeat(Math.ceil(MASKS_FROM / 5));

/** Files holding none of the literals' grams, so that the few candidates are well under half the files. */
const FILLER: Record<string, string> = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`filler/f${i}.txt`, `plain words ${i}\nnothing to see\n`]));

const FILES: Record<string, string> = {
    ...FILLER,
    // Every trigram of "tronnes" and of "straße" (folded UTF-8), none next to the one after it; a
    // file large enough for its postings to keep their masks (shared/masks.ts masksPay).
    'apart.txt': `${APART}${PAD}`,
    // The literals, in other cases.
    'holder.txt': 'Noralf TRONNES\n',
    'strasse.txt': 'Die STRAßE\n',
    // Both grams sets side by side, but across a line end: candidates (grams run across lines), no hit.
    'across.txt': 'tron\nnes\n',
};

/** The search through both paths: the same output, answered by the index, and its candidate files. */
async function candidatesOf(p: Pair, pattern: string): Promise<{ text: string; candidates: number }> {
    const r = await same(p, { content_pattern: pattern });
    expect(r.answered, pattern).toBe(true);
    return { text: r.text, candidates: p.tree.lastPlan.candidates };
}

describe('search index masks', () => {
    it('rules out a file holding a literal\'s trigrams apart, keeps the one holding it, and answers as the scan path does', async () => {
        const p = await pair(FILES);
        const t = await candidatesOf(p, 'tronnes');
        expect(t.text).toContain('holder.txt:1: Noralf TRONNES');
        expect(t.text).not.toContain('apart.txt');
        expect(t.candidates).toBe(1);
        // Non-ASCII: the literal's folded UTF-8 bytes, case folded as the build folds them.
        const s = await candidatesOf(p, 'straße');
        expect(s.text).toContain('strasse.txt:1: Die STRAßE');
        expect(s.candidates).toBe(1);
        // Within an AND and an OR of literals: each literal's grams are checked side by side.
        expect((await candidatesOf(p, 'noralf.*tronnes')).candidates).toBe(1);
        expect((await candidatesOf(p, 'tronnes|straße')).candidates).toBe(2);
        expect((await candidatesOf(p, '(tron|zonk)nes')).candidates).toBe(1);
        // The literal's bytes side by side across a line end: kept (a necessary condition only), no hit.
        const across = await candidatesOf(p, 'tron\\nnes');
        expect(across.text).toMatch(/^success: No entries found/);
        expect(across.candidates).toBe(1);
        // Literals of 3 bytes (no pair to check) and a file holding the grams apart: kept as before.
        expect((await candidatesOf(p, 'xtr')).candidates).toBe(1);
    });

    it('stores a small file\'s postings without masks: such a file holding the grams apart is a candidate, and the answer is still the scan path\'s', async () => {
        const p = await pair({ ...FILES, 'small/apart.txt': APART, 'small/holder.txt': 'tronnes and straße\n' });
        const t = await candidatesOf(p, 'tronnes');
        expect(t.text).toContain('small/holder.txt:1: tronnes and straße');
        expect(t.text).not.toContain('apart.txt');
        // holder.txt, small/holder.txt and small/apart.txt (no masks to rule it out); the large apart.txt ruled out.
        expect(t.candidates).toBe(3);
        expect((await candidatesOf(p, 'straße')).candidates).toBe(3);
        // A literal whose grams' lists mix postings with and without masks, within an AND.
        expect((await candidatesOf(p, 'noralf.*tronnes')).candidates).toBe(1);
    });

    it('rebuilds an index of the previous format version (its lists have no blocks), never reads it', async () => {
        for (const stale of ['every file', 'segment files only'] as const) {
            const p = await pair(FILES);
            await p.indexed.close();
            const dir = path.join(p.indexDir, fs.readdirSync(p.indexDir)[0]!);
            const [body] = fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8').split('\n');
            const m = JSON.parse(body!) as { version: number; gen: string };
            const genDir = path.join(dir, m.gen);
            // The version field and the header's CRC rewritten, as the previous release wrote them.
            const restamp = (file: string, crcAt: number): void => {
                const b = fs.readFileSync(file);
                b.writeUInt32LE(FORMAT_VERSION - 1, 8);
                b.writeUInt32LE(crc32(b.subarray(0, crcAt)), crcAt);
                fs.writeFileSync(file, b);
            };
            const segments = fs.readdirSync(genDir).filter((n) => n.endsWith('.bin') && n !== 'table.bin');
            expect(segments.length).toBeGreaterThan(0);
            for (const s of segments) restamp(path.join(genDir, s), SEG_HEADER - 4);
            if (stale === 'every file') {
                restamp(path.join(genDir, 'table.bin'), 44);
                m.version = FORMAT_VERSION - 1;
                const text = JSON.stringify(m);
                fs.writeFileSync(path.join(dir, 'manifest.json'), `${text}\n${crc32(Buffer.from(text)).toString(16)}\n`);
            }
            const again = pkgOf(p.root, { dir: p.indexDir });
            const tree = (await again.searchIndex!.warm(p.root, DEFAULT_SKIP_DIRS, [p.root]))!;
            expect(tree.status().state, stale).toBe('ready');
            // Rebuilt: no reopen figure; the new build's masks rule the apart file out again.
            expect(tree.status().openMs, stale).toBeUndefined();
            const q = { ...p, indexed: again, tree };
            expect((await candidatesOf(q, 'tronnes')).candidates).toBe(1);
            await again.close();
        }
    });
});
