/**
 * `npm run bench -- symbols [--corpora c=DIR,python=DIR,...] [--langs c,cpp] [--files 150] [--seed 1]`: the
 * definitions code navigation finds (workers/symbols/) against Universal Ctags on the same files,
 * per language and category: recall (ctags' definitions we find) and precision (ours that ctags
 * has), with the misses listed. Corpora: bench/symbols-corpora.ts (one real tree per language);
 * ctags' kinds per category: bench/symbols-ctags.ts; docs/symbols-ctags.md explains both.
 * Where ctags is plainly wrong (a tag that names no definition, a definition it never tags) the
 * tag is counted in its own column and left out of the ratio it would distort. Results to
 * bench/results/symbols-<date>.md, every difference to symbols-differences.txt in the temp folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runSymbolsTask } from '../workers/symbols/symbols.js';
import { languageOf } from '../src/symbols/shared/languages.js';
import type { Definition } from '../src/symbols/shared/types.js';
import { benchArgs, have, intFlag, loadAverages, REPO } from './common.js';
import { annotationNames, CATEGORIES, COMPARABLE, ctagsTags, ctagsVersion, elseBranchLines, lacksDefinition, lostFunctionEnds, type Category, type Tag } from './symbols-ctags.js';
import { defaultCorpora, givenCorpora, type Corpus } from './symbols-corpora.js';

const OURS: Record<string, Category> = { function: 'functions', method: 'methods', class: 'classes/structs', struct: 'classes/structs', union: 'classes/structs', enum: 'enums', macro: 'macros', type: 'types', interface: 'types', variable: 'variables' };

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

function sourceFiles(corpus: Corpus): string[] {
    const out: string[] = [];
    const walk = (d: string): void => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
            const p = path.join(d, e.name);
            if (e.isDirectory() && e.name !== '.git' && e.name !== 'node_modules') walk(p);
            else if (e.isFile() && languageOf(p)?.id === corpus.lang && !corpus.skip?.(p) && fs.statSync(p).size < 1 << 20) out.push(p);
        }
    };
    for (const d of corpus.dirs) walk(d);
    return out;
}

async function ourTags(files: readonly string[]): Promise<{ tags: Tag[]; ms: number; bytes: number }> {
    const tags: Tag[] = [];
    let bytes = 0;
    let ms = 0;
    for (let i = 0; i < files.length; i += 16) {
        const batch = files.slice(i, i + 16).map((f) => ({ shown: f, real: f }));
        const t0 = performance.now();
        const r = await runSymbolsTask({ op: 'symbols', files: batch, realRoots: null, maxBytes: 1 << 20, parseMs: 10_000 });
        ms += performance.now() - t0;
        r.files.forEach((f, k) => {
            if (!f.ok) return;
            bytes += f.chars;
            const file = batch[k]!.real;
            const unread = f.language === 'c' || f.language === 'cpp' ? elseBranchLines(fs.readFileSync(file, 'utf8')) : undefined;
            // The definitions around the current one, outermost first (they come in source order).
            const around: Definition[] = [];
            for (const d of f.definitions as Definition[]) {
                while (around.length > 0 && !(around[around.length - 1]!.line <= d.line && d.endLine <= around[around.length - 1]!.endLine)) around.pop();
                const within = around[around.length - 1]?.kind;
                const inBody = around.some((a) => a.kind === 'function' || a.kind === 'method');
                around.push(d);
                const category = OURS[d.kind];
                const ctagsWrong = unread?.has(d.line) ? 'in an #else branch, which ctags does not read' : undefined;
                const container = d.container[d.container.length - 1];
                if (category === undefined) continue;
                tags.push({ file, name: d.name, line: d.line, endLine: d.endLine, category, signature: d.signature, inBody, ...(within && { within }), ...(container !== undefined && { container }), ...(ctagsWrong && { ctagsWrong }) });
            }
        });
    }
    return { tags, ms, bytes };
}

/** A tag's key: ctags writes `operator ()`, we keep the source's `operator()`. */
const key = (t: Tag): string => `${t.file}\0${t.name.replace(/\s+/g, '')}\0${t.category}`;

/**
 * Pairs tags of the same file, name and category where ctags' line lies within our definition's
 * lines. A ctags tag that finds only a definition paired already is a second tag of it
 * (`exports.parse = function parse(`, `Matrix3.prototype.isMatrix3 = true` in class `Matrix3`):
 * ctags is wrong to count one definition twice.
 */
function matchTags(ctags: Tag[], ours: Tag[]): { matched: number; missed: Tag[]; extra: Tag[] } {
    const pool = new Map<string, Tag[]>();
    const paired = new Map<string, Tag[]>();
    for (const t of ours) {
        const k = key(t);
        pool.set(k, [...(pool.get(k) ?? []), t]);
    }
    const missed: Tag[] = [];
    let matched = 0;
    const within = (t: Tag) => (o: Tag) => o.line <= t.line && t.line <= o.endLine;
    for (const t of ctags) {
        const list = pool.get(key(t)) ?? [];
        // The innermost of ours that holds ctags' line (`module.exports.parseRange = str => {` holds a local `parseRange`).
        let i = -1;
        list.forEach((o, j) => {
            if (within(t)(o) && (i === -1 || o.line > list[i]!.line)) i = j;
        });
        if (i !== -1) {
            matched++;
            paired.set(key(t), [...(paired.get(key(t)) ?? []), ...list.splice(i, 1)]);
        } else if (t.ctagsWrong === undefined && paired.get(key(t))?.some(within(t))) t.ctagsWrong = 'a second tag of one definition';
        else missed.push(t);
    }
    return { matched, missed, extra: [...pool.values()].flat() };
}

const pct = (a: number, b: number): string => (b === 0 ? '–' : `${((100 * a) / b).toFixed(1)}%`);
const shown = (t: Tag): string => `${path.relative('/', t.file)}:${t.line} ${t.name}${t.ctagsWrong ? ` (${t.ctagsWrong})` : ''}`;

export async function symbolsMain(argv: readonly string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    if (!have('ctags')) throw new Error('Universal Ctags is needed (Debian: apt-get install universal-ctags).');
    const n = intFlag(flags, 'files', 150);
    const seed = intFlag(flags, 'seed', 1);
    const given = flags.get('corpora');
    const langs = flags.get('langs')?.split(',');
    const corpora = (given === undefined ? defaultCorpora(flags) : givenCorpora(given)).filter((c) => langs === undefined || langs.includes(c.lang));
    const rows: string[] = [
        '| Language | Files | MB | Parse MB/s | Category | ctags | ctags wrong | ours | ctags lacks | Recall | Precision |',
        '| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ];
    const sources: string[] = [];
    const missLines: string[] = [];
    const allLines: string[] = [];
    for (const corpus of corpora) {
        const { lang } = corpus;
        const files = corpus.dirs.length === 0 ? [] : sample(sourceFiles(corpus), n, seed);
        if (files.length === 0) {
            sources.push(`- ${lang}: skipped, no corpus (${corpus.source}); to get it: \`${corpus.install}\``);
            continue;
        }
        sources.push(`- ${lang}: ${corpus.source}; install: \`${corpus.install}\``);
        const { tags: theirs, lastMember, lastTag, inFunction, otherKind } = ctagsTags(files, lang);
        const ours = await ourTags(files);
        const lostAt = lostFunctionEnds(ours.tags, inFunction);
        for (const t of ours.tags) t.ctagsWrong ??= lacksDefinition(lang, t, lastMember, lastTag, lostAt, otherKind);
        annotationNames(lang, theirs, ours.tags);
        const speed = `${files.length} | ${(ours.bytes / 1e6).toFixed(1)} | ${(ours.bytes / 1e3 / ours.ms).toFixed(2)}`;
        for (const category of CATEGORIES) {
            const o = ours.tags.filter((t) => t.category === category);
            if (!COMPARABLE[lang]!.includes(category)) {
                if (o.length > 0) rows.push(`| ${lang} | ${speed} | ${category} | not comparable | | ${o.length} | | | |`);
                continue;
            }
            const c = theirs.filter((t) => t.category === category);
            const m = matchTags(c, o);
            // After matching, which marks second tags of one definition.
            const wrong = c.filter((t) => t.ctagsWrong !== undefined);
            const missed = m.missed.filter((t) => t.ctagsWrong === undefined);
            const lacks = m.extra.filter((t) => t.ctagsWrong !== undefined);
            const extra = m.extra.filter((t) => t.ctagsWrong === undefined);
            rows.push(`| ${lang} | ${speed} | ${category} | ${c.length} | ${wrong.length} | ${o.length} | ${lacks.length} | ${pct(c.length - wrong.length - missed.length, c.length - wrong.length)} | ${pct(o.length - lacks.length - extra.length, o.length - lacks.length)} |`);
            for (const t of missed.slice(0, 8)) missLines.push(`- ${lang} ${category} missed: ${shown(t)}`);
            for (const t of extra.slice(0, 8)) missLines.push(`- ${lang} ${category} not in ctags: ${shown(t)}`);
            for (const t of [...wrong.slice(0, 2), ...lacks.slice(0, 2)]) missLines.push(`- ${lang} ${category} ctags wrong: ${shown(t)}`);
            for (const t of m.missed) allLines.push(`${lang} ${category} missed ${shown(t)}`);
            for (const t of wrong.filter((w) => !m.missed.includes(w))) allLines.push(`${lang} ${category} second ${shown(t)}`);
            for (const t of m.extra) allLines.push(`${lang} ${category} extra ${shown(t)}`);
        }
    }
    const report = [
        '# Definitions against Universal Ctags',
        '',
        `\`npm run bench -- symbols --files ${n} --seed ${seed}\`, ${new Date().toISOString()}, ${ctagsVersion()}, load average ${loadAverages()}; one thread, in process.`,
        'Recall: ctags\' definitions we find, less those ctags gets plainly wrong ("ctags wrong"); precision: ours that ctags has, less those ctags plainly lacks ("ctags lacks"). docs/symbols-ctags.md says what each category counts per language and why.',
        '',
        ...rows,
        '',
        '## Corpora',
        '',
        ...sources,
        '',
        '## Differences (first of each)',
        '',
        ...missLines,
        '',
    ].join('\n');
    console.log(report);
    const out = path.join(REPO, 'bench', 'results', `symbols-${new Date().toISOString().slice(0, 10)}.md`);
    fs.writeFileSync(out, report);
    const all = path.join(os.tmpdir(), 'symbols-differences.txt');
    fs.writeFileSync(all, allLines.join('\n') + '\n');
    console.error(`written to ${out}; every difference in ${all}`);
}
