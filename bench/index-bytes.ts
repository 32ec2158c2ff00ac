import fs from 'node:fs';
import path from 'node:path';
import { decodePostings } from '../src/search-index/shared/posting-codec.js';
import { BLOCKED, checkedBody, storedLength } from '../src/search-index/shared/posting-list.js';
import { DICT_ENTRY, SEG_HEADER, SegmentReader } from '../src/search-index/shared/segment.js';
import { benchArgs, fmtMB, machine } from './common.js';

/**
 * Where the bytes of a stored index go, for choosing what to make smaller:
 *
 *   npm run bench -- index-bytes --index-dir DIR
 *
 * DIR is an index directory (`--index-dir` of the `index` suite) holding one tree's folder. Prints
 * per part its bytes, its share of the index and of the text indexed: the posting lists by their
 * length class (postings per list), split into the postings' own bytes, their mask bytes and the
 * long lists' block tables; the dictionary, the block index, the checksums; the file table's
 * columns, names and name grams; the manifest and the other small files. Reads the served
 * generation through the reader's checks; reads only, so it may run on a copy of any index of
 * this format.
 */

/** Postings per list: the upper bounds of the length classes. */
const CLASSES = [1, 15, 127, 1023, 16_383, Number.POSITIVE_INFINITY];
const className = (k: number): string => {
    const lo = k === 0 ? 1 : CLASSES[k - 1]! + 1;
    const hi = CLASSES[k]!;
    return hi === lo ? `${lo}` : hi === Number.POSITIVE_INFINITY ? `${lo.toLocaleString('en')} or more` : `${lo.toLocaleString('en')}-${hi.toLocaleString('en')}`;
};

interface ClassTally {
    lists: number;
    postings: number;
    /** Bytes of the postings' deltas (varints, packed values, pack headers). */
    deltas: number;
    /** Bytes of masks: two per masked posting, and packs' bitmaps. */
    masks: number;
    /** Bytes of the long lists' block tables, their CRCs left out (counted with the checksums). */
    tables: number;
    packs: number;
}

/** Splits a body's bytes into deltas and masks, walking its units (a byte 0 or 1 starts a pack; formats before 8 have none). */
function splitBody(body: Uint8Array, t: ClassTally): void {
    for (let i = 0; i < body.length; ) {
        if (body[i]! <= 1) {
            const masked = body[i] === 1;
            const w = body[i + 1]!;
            // Format 8: the pack's span, a varint, follows its width.
            let p = i + 2;
            while (body[p++]! >= 0x80);
            p += 16 * w;
            t.deltas += p - i;
            t.packs++;
            if (masked) {
                let n = 0;
                for (let b = 0; b < 16; b++) for (let x = body[p + b]!; x !== 0; x &= x - 1) n++;
                t.masks += 16 + 2 * n;
                p += 16 + 2 * n;
            }
            i = p;
            continue;
        }
        let v = 0;
        let shift = 0;
        let c: number;
        const from = i;
        do {
            c = body[i++]!;
            v += (c & 0x7f) * 2 ** shift;
            shift += 7;
        } while (c & 0x80);
        t.deltas += i - from;
        if (v % 2 === 1) {
            t.masks += 2;
            i += 2;
        }
    }
}

function tableParts(file: string): { name: string; bytes: number }[] {
    const fd = fs.openSync(file, 'r');
    const h = Buffer.alloc(48);
    fs.readSync(fd, h, 0, 48, 0);
    fs.closeSync(fd);
    const n = h.readUInt32LE(12);
    const names = h.readDoubleLE(16);
    const grams = h.readUInt32LE(24);
    const ids = h.readUInt32LE(28);
    return [
        { name: 'file table: sizes (f64)', bytes: 8 * n },
        { name: 'file table: modification times (f64)', bytes: 8 * n },
        { name: 'file table: birth times (f64)', bytes: 8 * n },
        { name: 'file table: parents (u32)', bytes: 4 * n },
        { name: 'file table: subtree ends (u32)', bytes: 4 * n },
        { name: 'file table: change times (folded, u32)', bytes: 4 * n },
        { name: 'file table: kinds and flags (u8 each)', bytes: 2 * n },
        { name: 'file table: names (joined by NUL)', bytes: names },
        { name: 'file table: name grams (keys, list starts)', bytes: 4 * grams + 4 * (grams + 1) },
        { name: 'file table: name grams (ids, u32)', bytes: 4 * ids },
        { name: 'file table: header', bytes: 48 },
    ];
}

export async function indexBytesMain(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const root = flags.get('index-dir');
    if (!root) throw new Error('--index-dir DIR is required');
    const trees = fs.readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory());
    if (trees.length !== 1) throw new Error(`${root}: expected one tree's folder, found ${trees.length}`);
    const dir = path.join(root, trees[0]!.name);
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8').split('\n')[0]!) as { gen: string; segments: string[]; textBytes: number; version: number };
    const genDir = path.join(dir, m.gen);
    const tally: ClassTally[] = CLASSES.map(() => ({ lists: 0, postings: 0, deltas: 0, masks: 0, tables: 0, packs: 0 }));
    let dictionary = 0;
    let counts = 0;
    let crcs = 0;
    let headers = 0;
    let blockIndexKeys = 0;
    for (const s of m.segments) {
        const seg = new SegmentReader(path.join(genDir, s));
        try {
            headers += SEG_HEADER;
            blockIndexKeys += 4 * seg.blockCount;
            crcs += 4 * seg.blockCount + 4 * seg.gramCount;
            dictionary += (DICT_ENTRY - 8) * seg.gramCount;
            counts += 4 * seg.gramCount;
            for (let b = 0; b < seg.blockCount; b += 64) {
                const dict = seg.dictBlocks(b, 64);
                for (let e = 0; e < dict.length; e += DICT_ENTRY) {
                    const off = dict.readUInt32LE(e + 4);
                    const field = dict.readUInt32LE(e + 8);
                    const len = storedLength(field);
                    const stored = Buffer.alloc(len);
                    seg.postingBytes(stored, off, len);
                    const blocked = (field & BLOCKED) !== 0;
                    const body = checkedBody(stored, blocked, dict.readUInt32LE(e + 12), s);
                    const count = decodePostings(body, 0).ids.length;
                    const t = tally[CLASSES.findIndex((hi) => count <= hi)]!;
                    t.lists++;
                    t.postings += count;
                    const table = len - body.length;
                    t.tables += table === 0 ? 0 : table - 4 * ((table - 4) / 12);
                    crcs += table === 0 ? 0 : 4 * ((table - 4) / 12);
                    splitBody(body, t);
                }
            }
        } finally {
            seg.close();
        }
    }
    const other = fs.readdirSync(dir).filter((n) => n !== m.gen).reduce((sum, n) => sum + fs.statSync(path.join(dir, n)).size, 0);
    const parts: { name: string; bytes: number }[] = [];
    for (const [k, t] of tally.entries()) {
        if (t.lists === 0) continue;
        const label = `lists of ${className(k)} postings (${t.lists.toLocaleString('en')} lists, ${t.postings.toLocaleString('en')} postings, ${t.packs.toLocaleString('en')} packs)`;
        parts.push({ name: `${label}: deltas`, bytes: t.deltas });
        if (t.masks > 0) parts.push({ name: `${label}: masks`, bytes: t.masks });
        if (t.tables > 0) parts.push({ name: `${label}: block tables`, bytes: t.tables });
    }
    parts.push({ name: 'dictionary (key, offset, length per gram)', bytes: dictionary }, { name: 'dictionary: posting counts (u32 per gram)', bytes: counts }, { name: 'dictionary block index (first keys)', bytes: blockIndexKeys }, { name: 'checksums (dictionary entries and blocks, list blocks)', bytes: crcs }, { name: 'segment headers', bytes: headers });
    parts.push(...tableParts(path.join(genDir, 'table.bin')));
    parts.push({ name: 'manifest and other files of the tree folder', bytes: other });
    const onDisk = fs.readdirSync(genDir).reduce((sum, n) => sum + fs.statSync(path.join(genDir, n)).size, 0) + other;
    const counted = parts.reduce((sum, p) => sum + p.bytes, 0);
    const postings = tally.reduce((sum, t) => sum + t.postings, 0);
    const listBytes = tally.reduce((sum, t) => sum + t.deltas + t.masks + t.tables, 0);
    const pct = (b: number, of: number): string => `${((100 * b) / of).toFixed(1)}%`;
    const lines = [
        `# Index bytes (${machine()})`,
        '',
        `\`npm run bench -- index-bytes ${argv.join(' ')}\`: format ${m.version}, ${m.segments.length} segment file(s), ${fmtMB(m.textBytes)} of text indexed, ${fmtMB(onDisk)} on disk (${pct(onDisk, m.textBytes)} of the text); ${postings.toLocaleString('en')} postings in ${fmtMB(listBytes)} (${(listBytes / Math.max(1, postings)).toFixed(2)} bytes each, block tables included).`,
        '',
        '| Part | Bytes | Share of the index | Share of the text |',
        '| --- | ---: | ---: | ---: |',
        ...parts.map((p) => `| ${p.name} | ${p.bytes.toLocaleString('en')} | ${pct(p.bytes, onDisk)} | ${pct(p.bytes, m.textBytes)} |`),
        `| counted | ${counted.toLocaleString('en')} | ${pct(counted, onDisk)} | ${pct(counted, m.textBytes)} |`,
        '',
    ];
    console.log(lines.join('\n'));
}
