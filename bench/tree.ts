import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/**
 * A deterministic synthetic tree for the benchmarks: many small source-like files in deep
 * folders (a random recursive tree, plus one 80-level chain and one flat directory of thousands
 * of files), a few binaries, a few large files, CRLF, UTF-8, Latin-1 and UTF-16 files, and
 * tokens whose matching lines the generator counts, so both our search and the native tools can
 * be checked against a known answer. The same `files` and `seed` give the same tree, byte for
 * byte, times included. Generated once into the cache directory and reused.
 *
 * CLI: `node dist/bench/tree.js [--files 200000] [--seed 1] [--dir PATH] [--force]`
 */

/** Bump when the generator's output changes: cached trees of other versions are not reused. */
const VERSION = 2;

export interface TreeOptions {
    /** Number of files (default 200,000). */
    files: number;
    /** PRNG seed (default 1). */
    seed: number;
    /** Where the tree goes; default `$XDG_CACHE_HOME/llm-chat-file-bench/synthetic-v<version>-<files>-s<seed>` (~/.cache). */
    dir?: string;
    /** Regenerate even when a complete tree is cached. */
    force?: boolean;
    log?: (line: string) => void;
}

/** What the generator made, written next to the tree as `<dir>.json` once it is complete. */
export interface TreeManifest {
    version: number;
    files: number;
    seed: number;
    dirs: number;
    textFiles: number;
    binaryFiles: number;
    /** Total bytes of all files. */
    bytes: number;
    largestFile: number;
    /** Deepest directory, in levels below the root. */
    maxDepth: number;
    /** Patterns used by the scenarios. */
    tokens: { absent: string; manyRegex: string; common: string; name: string };
    /**
     * Known answers, counted while generating (binaries excluded, as both ripgrep and our search
     * skip them): matching lines of `manyRegex` and `common`, entries (files and directories)
     * whose name contains `name`, files modified after `recentAfter`.
     */
    expected: { manyRegexLines: number; commonLines: number; nameEntries: number; recentFiles: number };
    /** ISO instant of the timestamp filter scenario. */
    recentAfter: string;
    generatedMs: number;
}

/** mulberry32: a small, fast, well-distributed 32-bit PRNG (Tommy Ettinger, public domain). */
export function mulberry32(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

/** Identifier-like words. None contains `lock`, `widget` or `xyzzy`, so tokens appear only where inserted. */
const WORDS = (
    'alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega buffer cache queue table index node tree leaf root ' +
    'page frame block chunk slot entry record field value state flags mode count size length offset start end head tail next ' +
    'prev list item data info meta config option param arg result error status code ret err ctx dev drv irq dma reg addr ' +
    'port bus link pipe file path name dir inode mount super sched task thread proc timer clock event signal wait poll read ' +
    'write open close init exit probe remove setup reset enable disable start stop update check parse build emit load store ' +
    'alloc free get put map unmap push pop insert delete find match scan walk copy move swap sort merge split join hash key'
).split(' ');
const EXTS = ['c', 'h', 'ts', 'js', 'py', 'md', 'txt', 'json', 'rs', 'go', 'yaml', 'S'];
const SEPS = [' ', ' ', ' ', '(', ', ', ' = ', '->', '.', ' + ', ' && '];
/** Calls inserted into lines: all match `[a-z]+_lock\(` case-insensitively, some contain `spin_lock`. */
const CALLS = ['spin_lock(', 'raw_spin_lock(', 'SPIN_LOCK(', 'mutex_lock(', 'read_lock(', 'Write_Lock(', 'rcu_read_lock('];
/** Near misses of the regex (one of them contains `spin_lock`). */
const DECOYS = ['spin_unlock(', 'mutex_trylock (', '_lock(', 'lock(', 'spin_lock_irqsave ('];
const MANY_RE = /[a-z]+_lock\(/i;
const COMMON_RE = /spin_lock/i;

const DAY = 86_400_000;
const OLD_FROM = Date.UTC(2021, 0, 1);
const RECENT_AFTER = Date.UTC(2025, 0, 1);
const RECENT_FROM = Date.UTC(2025, 2, 1);

export function defaultDir(files: number, seed: number): string {
    const cache = process.env['XDG_CACHE_HOME'] ?? path.join(os.homedir(), '.cache');
    return path.join(cache, 'llm-chat-file-bench', `synthetic-v${VERSION}-${files}-s${seed}`);
}

/** The cached tree for these options, generated first if missing or incomplete. */
export async function ensureTree(opts: TreeOptions): Promise<{ root: string; manifest: TreeManifest }> {
    const dir = path.resolve(opts.dir ?? defaultDir(opts.files, opts.seed));
    const manifestFile = `${dir}.json`;
    const log = opts.log ?? (() => undefined);
    if (!opts.force && fs.existsSync(dir) && fs.existsSync(manifestFile)) {
        const m = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as TreeManifest;
        if (m.version === VERSION && m.files === opts.files && m.seed === opts.seed) {
            log(`synthetic tree: reusing ${dir}`);
            return { root: fs.realpathSync(dir), manifest: m };
        }
    }
    fs.rmSync(manifestFile, { force: true });
    fs.rmSync(dir, { recursive: true, force: true });
    const partial = `${dir}.partial-${process.pid}`;
    fs.rmSync(partial, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    log(`synthetic tree: generating ${opts.files} files (seed ${opts.seed}) into ${dir} ...`);
    const t0 = performance.now();
    const manifest = generate(partial, opts.files, opts.seed, log);
    manifest.generatedMs = Math.round(performance.now() - t0);
    fs.renameSync(partial, dir);
    // The manifest is written last: its presence means the tree is complete.
    fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2) + '\n');
    log(`synthetic tree: done in ${(manifest.generatedMs / 1000).toFixed(1)} s`);
    return { root: fs.realpathSync(dir), manifest };
}

interface Dir {
    rel: string;
    depth: number;
    parent: number;
}

function generate(root: string, files: number, seed: number, log: (s: string) => void): TreeManifest {
    const rnd = mulberry32(seed);
    const int = (n: number): number => Math.floor(rnd() * n);
    const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
    const m: TreeManifest = {
        version: VERSION,
        files,
        seed,
        dirs: 0,
        textFiles: 0,
        binaryFiles: 0,
        bytes: 0,
        largestFile: 0,
        maxDepth: 0,
        tokens: { absent: 'xyzzy_no_such_token_42', manyRegex: '[a-z]+_lock\\(', common: 'spin_lock', name: 'widget' },
        expected: { manyRegexLines: 0, commonLines: 0, nameEntries: 0, recentFiles: 0 },
        recentAfter: new Date(RECENT_AFTER).toISOString(),
        generatedMs: 0,
    };

    // Directories: a random recursive tree (each new directory under a uniformly chosen earlier
    // one: depth grows like ln n), one flat directory and one 80-level chain.
    const dirs: Dir[] = [{ rel: '', depth: 0, parent: -1 }];
    const nDirs = Math.max(1, Math.round(files / 40));
    for (let i = 1; i < nDirs; i++) {
        const parent = int(i);
        const r = rnd();
        const word = r < 0.002 ? (rnd() < 0.5 ? 'widgets' : 'Widget') : pick(WORDS);
        const name = `${r > 0.99 ? '.' : ''}${word}-${i.toString(36)}`;
        if (word.toLowerCase().includes('widget')) m.expected.nameEntries++;
        const p = dirs[parent]!;
        dirs.push({ rel: p.rel === '' ? name : `${p.rel}/${name}`, depth: p.depth + 1, parent });
    }
    const flat = dirs.length;
    dirs.push({ rel: 'bulk', depth: 1, parent: 0 });
    const chainStart = dirs.length;
    let chainRel = 'chain';
    for (let d = 0; d < 80; d++) {
        chainRel += `/d${String(d).padStart(2, '0')}`;
        dirs.push({ rel: chainRel, depth: d + 2, parent: -1 });
    }
    fs.mkdirSync(root, { recursive: true });
    for (const d of dirs) {
        if (d.rel !== '') fs.mkdirSync(path.join(root, d.rel), { recursive: true });
        m.maxDepth = Math.max(m.maxDepth, d.depth);
    }
    m.dirs = dirs.length - 1 + 1; // every directory below the root, plus `chain` itself
    const bulkFiles = Math.min(5000, Math.floor(files * 0.02));

    const lineOf = (counts: { many: number; common: number }): string => {
        const indent = '    '.repeat(int(4));
        const n = 2 + int(9);
        let s = indent + pick(WORDS);
        for (let k = 1; k < n; k++) s += pick(SEPS) + pick(WORDS);
        const r = rnd();
        if (r < 0.02) s += ' ' + pick(CALLS) + '&' + pick(WORDS) + ')';
        else if (r < 0.03) s += ' ' + pick(DECOYS) + pick(WORDS) + ')';
        // Counted on the text itself, so the answer is right whatever the word lists hold.
        if (MANY_RE.test(s)) counts.many++;
        if (COMMON_RE.test(s)) counts.common++;
        return s + pick([';', ';', ' {', '', ',']);
    };

    const times: [string, number][] = [];
    for (let f = 0; f < files; f++) {
        let dirIndex: number;
        if (f < bulkFiles) dirIndex = flat;
        else if (f < bulkFiles + 80) dirIndex = chainStart + (f - bulkFiles);
        else dirIndex = int(nDirs);
        const r = rnd();
        const widget = r < 0.005;
        const base = widget ? `${rnd() < 0.5 ? 'widget' : 'WidGet'}_${pick(WORDS)}` : `${pick(WORDS)}_${pick(WORDS)}`;
        if (widget) m.expected.nameEntries++;
        const kindRoll = rnd();
        let bytes: Buffer;
        let isBinary = false;
        let ext = pick(EXTS);
        const counts = { many: 0, common: 0 };
        if (kindRoll < 0.003) {
            // Binary: random bytes with a NUL at the start and a match inside, which must not count.
            isBinary = true;
            ext = pick(['bin', 'png', 'o', 'gz']);
            bytes = Buffer.alloc(256 + int(16 * 1024));
            for (let i = 0; i < bytes.length; i++) bytes[i] = int(256);
            bytes[3] = 0;
            bytes.write('\nspin_lock(&x);\n', 64 + int(bytes.length - 96), 'latin1');
        } else if (kindRoll < 0.008) {
            bytes = Buffer.alloc(0); // empty
        } else {
            const big = kindRoll > 0.9998; // ~0.02%: 1-4 MB
            const lines = big ? 20_000 + int(60_000) : 1 + Math.min(400, Math.floor(-Math.log(1 - rnd()) * 25));
            const crlf = rnd() < 0.02;
            const flavour = rnd();
            const parts: string[] = new Array(lines);
            for (let i = 0; i < lines; i++) parts[i] = lineOf(counts);
            if (rnd() < 0.02 || flavour > 0.998) parts.splice(int(lines + 1), 0, '// café naïve, Grüße, ünïcödé');
            let text = parts.join(crlf ? '\r\n' : '\n') + (rnd() < 0.9 ? (crlf ? '\r\n' : '\n') : '');
            if (flavour > 0.998) {
                // ~0.2% Latin-1 (invalid UTF-8): decoded as Latin-1 by us, searched as bytes by ripgrep.
                bytes = Buffer.from(text, 'latin1');
            } else if (flavour > 0.9975) {
                // ~0.05% UTF-16LE with a BOM: both tools decode it.
                bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
            } else {
                if (flavour > 0.995) text = '\ufeff' + text; // ~0.25% UTF-8 with a BOM
                bytes = Buffer.from(text, 'utf8');
            }
            m.expected.manyRegexLines += counts.many;
            m.expected.commonLines += counts.common;
        }
        const name = `${rnd() < 0.01 ? '.' : ''}${base}-${f.toString(36)}.${ext}`;
        const rel = dirs[dirIndex]!.rel;
        const file = path.join(root, rel, name);
        fs.writeFileSync(file, bytes);
        if (isBinary) m.binaryFiles++;
        else m.textFiles++;
        m.bytes += bytes.length;
        m.largestFile = Math.max(m.largestFile, bytes.length);
        const recent = rnd() < 0.01;
        const mtime = recent ? RECENT_FROM + rnd() * 60 * DAY : OLD_FROM + rnd() * 730 * DAY;
        if (recent) m.expected.recentFiles++;
        times.push([file, mtime]);
        if ((f + 1) % 20_000 === 0) log(`  ${f + 1} files`);
    }
    for (const [file, mtime] of times) {
        const t = new Date(Math.floor(mtime / 1000) * 1000);
        fs.utimesSync(file, t, t);
    }
    // Directories last (writing files changed their times), deepest first.
    const dirTime = new Date(OLD_FROM);
    const all = dirs.map((d) => d.rel).concat(['chain']).filter((r) => r !== '');
    all.sort((a, b) => b.split('/').length - a.split('/').length);
    for (const rel of all) fs.utimesSync(path.join(root, rel), dirTime, dirTime);
    return m;
}

/** CLI: generates (or finds) the tree and prints its root and manifest. */
async function main(argv: string[]): Promise<void> {
    const { values } = parseArgs({
        args: argv,
        options: { files: { type: 'string', default: '200000' }, seed: { type: 'string', default: '1' }, dir: { type: 'string' }, force: { type: 'boolean', default: false } },
    });
    const files = Number(values.files.replace(/k$/i, '000'));
    const seed = Number(values.seed);
    if (!Number.isSafeInteger(files) || files < 1 || !Number.isSafeInteger(seed)) {
        throw new Error('Usage: tree.js [--files N] [--seed S] [--dir PATH] [--force]');
    }
    const { root, manifest } = await ensureTree({ files, seed, ...(values.dir !== undefined && { dir: values.dir }), force: values.force, log: (s) => console.error(s) });
    console.log(root);
    console.log(JSON.stringify(manifest, null, 2));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
    main(process.argv.slice(2)).catch((err: unknown) => {
        console.error(err instanceof Error ? err.message : err);
        process.exitCode = 1;
    });
}
