import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { benchArgs, fmtMs, intFlag, kernelTree, loadAverages, machine, median } from './common.js';

/**
 * `npm run bench -- symbols-outline [--dir TREE] [--lines 5000] [--files 5] [--runs 5]`: `file_outline`
 * without the index on the Linux tree's C files nearest `--lines` lines long (by path among
 * equals): for each, the first call (the file parsed; the package's pool and the C grammar loaded
 * before by an outline of another file) and the median of `--runs` calls after it (from the
 * package's cache of parses), and the outline's characters against the file's. Then the characters
 * the five navigation tools add to an MCP `tools/list` answer (name, title, description and input
 * schema of each, as the server lists them).
 */

/** Files outlined before the timed ones (see symbolsOutlineMain). */
const WARM_FILES = 24;

/** The `.c` files of `root` between 60 KB and 600 KB, with their line counts. */
function cFiles(root: string): { rel: string; lines: number; chars: number }[] {
    const found = execFileSync('find', [root, '-name', '*.c', '-type', 'f', '-size', '+60k', '-size', '-600k'], { encoding: 'utf8', maxBuffer: 1 << 26 }).split('\n').filter(Boolean);
    return found.map((p) => {
        const text = fs.readFileSync(p, 'utf8');
        let lines = 0;
        for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
        return { rel: path.relative(root, p), lines, chars: text.length };
    });
}

export async function symbolsOutlineMain(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const root = kernelTree(flags).root;
    const target = intFlag(flags, 'lines', 5000);
    const count = intFlag(flags, 'files', 5);
    const runs = intFlag(flags, 'runs', 5);
    const candidates = cFiles(root);
    const chosen = [...candidates]
        .sort((a, b) => Math.abs(a.lines - target) - Math.abs(b.lines - target) || (a.rel < b.rel ? -1 : 1))
        .slice(0, count)
        .sort((a, b) => (a.rel < b.rel ? -1 : 1));
    const { AccessType, FileToolPackage, Workspace, FileOutlineTool, FindSymbolTool, FindReferencesTool, ReadSymbolTool, RepoMapTool } = await import('../src/index.js');
    const { jsonSchemaOf } = await import('../src/tools/schema.js');
    const pkg = new FileToolPackage(new Workspace({ accesses: [{ type: AccessType.Read, path: root }], workspacePath: root }), { navigation: true });
    const outline = pkg.tools().find((t) => t.name === 'file_outline')!;
    const call = async (rel: string): Promise<{ ms: number; text: string; ok: boolean }> => {
        const t0 = performance.now();
        const [r] = await outline.execute({ path: rel });
        return { ms: performance.now() - t0, text: r!.result, ok: r!.status === 'success' };
    };
    console.log(`# file_outline without the index (${machine()}, load average ${loadAverages()})\n`);
    console.log(`\`npm run bench -- symbols-outline ${argv.join(' ')}\`; tree ${root}: the ${count} C files nearest ${target} lines.\n`);
    // As in a host that has made calls before: both pool threads started, the C grammar loaded
    // and the code warm (a thread's first outlines ran 3-5 times slower): other files of about the
    // same size outlined two at a time (each once: a second outline of a file is the cache's).
    const warm = candidates
        .filter((f) => !chosen.some((c) => c.rel === f.rel) && Math.abs(f.lines - target) < target / 2)
        .sort((a, b) => (a.rel < b.rel ? -1 : 1))
        .slice(0, WARM_FILES);
    for (let i = 0; i < warm.length; i += 2) await Promise.all(warm.slice(i, i + 2).map((f) => call(f.rel)));
    const rows = ['| file | lines | first call | median of the next | outline / file characters |', '| --- | ---: | ---: | ---: | ---: |'];
    const firsts: number[] = [];
    const shares: number[] = [];
    for (const f of chosen) {
        const first = await call(f.rel);
        if (!first.ok) throw new Error(`file_outline ${f.rel}: ${first.text}`);
        const next: number[] = [];
        for (let i = 0; i < runs; i++) next.push((await call(f.rel)).ms);
        firsts.push(first.ms);
        shares.push(first.text.length / f.chars);
        rows.push(`| ${f.rel} | ${f.lines} | ${fmtMs(first.ms)} | ${fmtMs(median(next))} | ${first.text.length} / ${f.chars} = ${(100 * first.text.length / f.chars).toFixed(1)}% |`);
    }
    await pkg.close();
    console.log(rows.join('\n'));
    console.log(`\n- first call (a parse): median **${fmtMs(median(firsts))}**, most ${fmtMs(Math.max(...firsts))} (target ≤ 30 ms)`);
    console.log(`- outline's share of the file's characters: most **${(100 * Math.max(...shares)).toFixed(1)}%** (target ≤ 15%)`);
    const listed = [FileOutlineTool, FindSymbolTool, FindReferencesTool, ReadSymbolTool, RepoMapTool]
        .map((T) => JSON.stringify({ name: T.declaration.name, title: T.declaration.title, description: T.declaration.description, inputSchema: jsonSchemaOf(T.declaration.schema) }).length)
        .reduce((a, b) => a + b, 0);
    console.log(`- characters the five navigation tools add to a \`tools/list\` answer: **${listed}** (target about 6,000 at most)`);
    console.log(`- load average ${loadAverages()}`);
}
