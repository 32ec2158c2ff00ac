/**
 * `npm run bench -- symbols [--corpora c=DIR,python=DIR,...] [--files 300] [--seed 1]`: the
 * definitions code navigation finds (workers/symbols/) against Universal Ctags on the same files,
 * per language and kind: recall (ctags' definitions we find) and precision (ours that ctags has),
 * with the misses listed. Default corpora: four directories of the Linux tree for C, Python's
 * standard library, this repository's sources for TypeScript. Results to bench/results/symbols-<date>.md.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runSymbolsTask } from '../workers/symbols/symbols.js';
import { languageOf } from '../src/symbols/shared/languages.js';
import type { Definition } from '../src/symbols/shared/types.js';
import { benchArgs, have, intFlag, kernelTree, REPO } from './common.js';

/** The kinds compared, each as the set of our kinds and of ctags' kinds it stands for. */
const CATEGORIES: Record<string, { ours: readonly string[]; ctags: readonly string[] }> = {
    functions: { ours: ['function', 'method'], ctags: ['function', 'method', 'member', 'func', 'generator'] },
    'classes/structs': { ours: ['class', 'struct', 'union'], ctags: ['class', 'struct', 'union', 'record'] },
    enums: { ours: ['enum'], ctags: ['enum'] },
    macros: { ours: ['macro'], ctags: ['macro'] },
    types: { ours: ['type', 'interface'], ctags: ['typedef', 'type', 'interface', 'trait', 'annotation'] },
};
/** ctags' language names for ours. */
const CTAGS_LANG: Record<string, string> = { c: 'C', cpp: 'C++', javascript: 'JavaScript', typescript: 'TypeScript', tsx: 'TypeScript', python: 'Python', go: 'Go', rust: 'Rust', java: 'Java' };

interface Tag {
    file: string;
    name: string;
    line: number;
    /** Our definitions' last line (ctags gives one line, where the name is). */
    endLine: number;
    category: string;
}

function categoryOfOurs(kind: string): string | undefined {
    return Object.keys(CATEGORIES).find((c) => CATEGORIES[c]!.ours.includes(kind));
}

function categoryOfCtags(kind: string, lang: string): string | undefined {
    // Python's and Java's methods are ctags "member"/"method"; a C/C++ "member" is a struct field.
    if (kind === 'member' && (lang === 'C' || lang === 'C++')) return undefined;
    return Object.keys(CATEGORIES).find((c) => CATEGORIES[c]!.ctags.includes(kind));
}

function sample<T>(xs: T[], n: number, seed: number): T[] {
    let s = seed >>> 0 || 1;
    const rnd = (): number => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const copy = [...xs];
    for (let i = copy.length - 1; i > 0; i--) {
        const j = Math.floor(rnd() * (i + 1));
        [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, n).sort();
}

function sourceFiles(dirs: readonly string[], lang: string): string[] {
    const out: string[] = [];
    const walk = (d: string): void => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
            const p = path.join(d, e.name);
            if (e.isDirectory() && e.name !== 'node_modules' && e.name !== '.git') walk(p);
            else if (e.isFile() && languageOf(p)?.id === lang && fs.statSync(p).size < 1 << 20) out.push(p);
        }
    };
    for (const d of dirs) if (fs.existsSync(d)) walk(d);
    return out;
}

function ctagsTags(files: readonly string[], lang: string): Tag[] {
    const list = files.join('\n');
    const args = ['--output-format=json', '--fields=+nK', `--languages=${CTAGS_LANG[lang]}`, '-L', '-', '-f', '-'];
    if (lang === 'c') args.unshift('--langmap=C:.c.h');
    const out = execFileSync('ctags', args, { input: list, encoding: 'utf8', maxBuffer: 1 << 30 });
    const tags: Tag[] = [];
    for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        const t = JSON.parse(line) as { _type: string; name: string; path: string; line: number; kind: string };
        const category = t._type === 'tag' ? categoryOfCtags(t.kind, CTAGS_LANG[lang]!) : undefined;
        // ctags names anonymous structs and enums __anon...: they have no name to find.
        if (category !== undefined && !t.name.startsWith('__anon')) tags.push({ file: t.path, name: t.name, line: t.line, endLine: t.line, category });
    }
    return tags;
}

async function ourTags(files: readonly string[]): Promise<{ tags: Tag[]; ms: number; bytes: number }> {
    const tags: Tag[] = [];
    let bytes = 0;
    const t0 = performance.now();
    for (let i = 0; i < files.length; i += 16) {
        const batch = files.slice(i, i + 16).map((f) => ({ shown: f, real: f }));
        const r = await runSymbolsTask({ op: 'symbols', files: batch, realRoots: null, maxBytes: 1 << 20, parseMs: 10_000 });
        r.files.forEach((f, k) => {
            if (!f.ok) return;
            bytes += f.chars;
            for (const d of f.definitions as Definition[]) {
                const category = categoryOfOurs(d.kind);
                if (category !== undefined) tags.push({ file: batch[k]!.real, name: d.name, line: d.line, endLine: d.endLine, category });
            }
        });
    }
    return { tags, ms: performance.now() - t0, bytes };
}

/** Pairs tags of the same file, name and category where ctags' line lies within our definition's lines. */
function matchTags(ctags: Tag[], ours: Tag[]): { matched: number; missed: Tag[]; extra: Tag[] } {
    const pool = new Map<string, Tag[]>();
    for (const t of ours) {
        const k = `${t.file}\0${t.name}\0${t.category}`;
        pool.set(k, [...(pool.get(k) ?? []), t]);
    }
    const missed: Tag[] = [];
    let matched = 0;
    for (const t of ctags) {
        const list = pool.get(`${t.file}\0${t.name}\0${t.category}`) ?? [];
        const i = list.findIndex((o) => o.line <= t.line && t.line <= o.endLine);
        if (i === -1) missed.push(t);
        else {
            matched++;
            list.splice(i, 1);
        }
    }
    return { matched, missed, extra: [...pool.values()].flat() };
}

export async function symbolsMain(argv: readonly string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    if (!have('ctags')) throw new Error('Universal Ctags is needed (Debian: apt-get install universal-ctags).');
    const n = intFlag(flags, 'files', 300);
    const seed = intFlag(flags, 'seed', 1);
    const corpora = new Map<string, string[]>();
    const given = flags.get('corpora');
    if (given !== undefined) {
        for (const spec of given.split(',')) {
            const [lang, dir] = spec.split('=');
            corpora.set(lang!, [...(corpora.get(lang!) ?? []), dir!]);
        }
    } else {
        const k = kernelTree(flags).root;
        corpora.set('c', ['kernel', 'mm', 'fs/ext4', 'net/ipv4'].map((d) => path.join(k, d)));
        const py = fs.readdirSync('/usr/lib').filter((d) => /^python3\.\d+$/.test(d)).sort().pop();
        if (py !== undefined) corpora.set('python', [path.join('/usr/lib', py)]);
        corpora.set('typescript', [path.join(REPO, 'src'), path.join(REPO, 'workers')]);
    }
    const rows: string[] = ['| Language | Files | MB | Parse MB/s | Kind | ctags | ours | Recall | Precision |', '| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |'];
    const missLines: string[] = [];
    for (const [lang, dirs] of corpora) {
        const files = sample(sourceFiles(dirs, lang), n, seed);
        if (files.length === 0) {
            rows.push(`| ${lang} | 0 | | | no files in ${dirs.join(', ')} | | | | |`);
            continue;
        }
        const theirs = ctagsTags(files, lang);
        const ours = await ourTags(files);
        for (const category of Object.keys(CATEGORIES)) {
            const c = theirs.filter((t) => t.category === category);
            const o = ours.tags.filter((t) => t.category === category);
            if (c.length === 0 && o.length === 0) continue;
            const m = matchTags(c, o);
            const pct = (a: number, b: number): string => (b === 0 ? '–' : `${((100 * a) / b).toFixed(1)}%`);
            rows.push(`| ${lang} | ${files.length} | ${(ours.bytes / 1e6).toFixed(1)} | ${(ours.bytes / 1e3 / ours.ms).toFixed(2)} | ${category} | ${c.length} | ${o.length} | ${pct(m.matched, c.length)} | ${pct(o.length - m.extra.length, o.length)} |`);
            for (const t of m.missed.slice(0, 8)) missLines.push(`- ${lang} ${category} missed: ${path.relative('/', t.file)}:${t.line} ${t.name}`);
            for (const t of m.extra.slice(0, 5)) missLines.push(`- ${lang} ${category} not in ctags: ${path.relative('/', t.file)}:${t.line} ${t.name}`);
        }
    }
    const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const report = [`# Definitions against Universal Ctags`, '', `\`npm run bench -- symbols --files ${n} --seed ${seed}\`, ${new Date().toISOString()}, load average ${load}; one thread, in process.`, '', ...rows, '', '## Differences (first of each)', '', ...missLines, ''].join('\n');
    console.log(report);
    const out = path.join(REPO, 'bench', 'results', `symbols-${new Date().toISOString().slice(0, 10)}.md`);
    fs.writeFileSync(out, report);
    console.error(`written to ${out}`);
}
