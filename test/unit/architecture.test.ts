import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The import rules of src/ and workers/ (.dependency-cruiser.mjs; ARCHITECTURE.md, "Import
 * rules"), checked by dependency-cruiser on the TypeScript sources, type-only imports included.
 * The same check from the command line: `npx depcruise src workers`. And the size of their files:
 * none over {@link MAX_LINES} lines, so that each stays one responsibility a reader takes in whole.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** One line per violation: the rule, the import (or the circle, from the importing module round to it), and why the rule exists. */
function describeViolation(v: IViolation, comments: ReadonlyMap<string, string>): string {
    const route = v.cycle && v.cycle.length > 0 ? [v.from, ...v.cycle.map((c) => c.name)].join(' → ') : `${v.from} → ${v.to}`;
    return `${v.rule.name}: ${route}` + (comments.has(v.rule.name) ? ` (${comments.get(v.rule.name)})` : '');
}

/**
 * Circles between folders, each folder standing for its own modules only (dependency-cruiser's
 * folder scope counts a folder with its subfolders, so it does not see a parent and its child
 * importing each other). Every strongly connected group of folders, sorted.
 */
function folderCircles(result: ICruiseResult): string[][] {
    const edges = new Map<string, Set<string>>();
    for (const m of result.modules) {
        const from = path.posix.dirname(m.source);
        for (const d of m.dependencies) {
            if (!/^(src|workers)\//.test(d.resolved)) continue;
            const to = path.posix.dirname(d.resolved);
            if (to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
        }
    }
    // Tarjan's strongly connected components.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const circles: string[][] = [];
    const visit = (v: string): void => {
        index.set(v, index.size);
        low.set(v, index.get(v)!);
        stack.push(v);
        for (const w of edges.get(v) ?? []) {
            if (!index.has(w)) {
                visit(w);
                low.set(v, Math.min(low.get(v)!, low.get(w)!));
            } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
        }
        if (low.get(v) === index.get(v)) {
            const group: string[] = [];
            let w: string;
            do {
                w = stack.pop()!;
                group.push(w);
            } while (w !== v);
            if (group.length > 1) circles.push(group.sort());
        }
    };
    for (const v of edges.keys()) if (!index.has(v)) visit(v);
    return circles;
}

describe('import rules', () => {
    let result: ICruiseResult;
    let comments: Map<string, string>;

    beforeAll(async () => {
        const options = await extractDepcruiseOptions(path.join(ROOT, '.dependency-cruiser.mjs'));
        const tsConfigFile = path.join(ROOT, 'tsconfig.json');
        // Paths from the root whatever the working directory: the rules' patterns are relative to it.
        const cruised = await cruise(['src', 'workers'], { ...options, baseDir: ROOT, tsConfig: { fileName: tsConfigFile } }, {}, { tsConfig: extractTSConfig(tsConfigFile) });
        result = cruised.output as ICruiseResult;
        comments = new Map((options.ruleSet?.forbidden ?? []).map((r) => [r.name ?? '', r.comment ?? '']));
    });

    it('reads the sources and resolves their .js specifiers to the .ts files', () => {
        // A checker that resolved nothing would find no violation either.
        expect(result.summary.totalCruised).toBeGreaterThan(100);
        const walk = result.modules.find((m) => m.source === 'workers/search/walk.ts');
        expect(walk?.dependencies.some((d) => /^src\/[^/]+\/shared\/.+\.ts$/.test(d.resolved))).toBe(true);
    });

    it('finds no forbidden import: worker code imports only shared/ folders, shared/ folders only each other, no concern a higher one, no circle between modules or folders', () => {
        const lines = [...new Set(result.summary.violations.map((v) => describeViolation(v, comments)))];
        expect(lines).toEqual([]);
        expect(folderCircles(result)).toEqual([]);
    });

    it('fails on each kind of forbidden import, added to a copy of the tree', async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lcf-arch-'));
        try {
            // A small tree laid out as the real one, one forbidden import per rule.
            const files: Record<string, string> = {
                'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src', 'workers'] }),
                'src/fs/shared/held.ts': "import { Engine } from '../../engine/engine.js';\nexport const held = Engine;\n",
                'src/fs/safe-write.ts': "import { Tool } from '../tools/base.js';\nexport const write = Tool;\n",
                'src/engine/engine.ts': 'export class Engine {}\n',
                'src/tools/base.ts': "import { cycleB } from './b.js';\nexport class Tool {}\nexport const cycleA = () => cycleB;\n",
                'src/tools/b.ts': "import { cycleA } from './base.js';\nexport const cycleB = () => cycleA;\n",
                // A circle between folders with none between modules: watch/ → search-index/ → watch/.
                'src/search-index/watch/changes.ts': "import { table } from '../table.js';\nexport const changes = table;\n",
                'src/search-index/table.ts': 'export const table = 1;\n',
                'src/search-index/plan.ts': "import { dirs } from './watch/dirs.js';\nexport const plan = dirs;\n",
                'src/search-index/watch/dirs.ts': 'export const dirs = 2;\n',
                'src/index.ts': "export { Tool } from './tools/base.js';\n",
                'workers/search/walk.ts': "import { Engine } from '../../src/engine/engine.js';\nimport { held } from '../../src/fs/shared/held.js';\nexport const walk = [Engine, held];\n",
                'workers/fs/held-at.ts': "import { walk } from '../search/walk.js';\nexport const heldAt = walk;\n",
            };
            for (const [f, text] of Object.entries(files)) {
                fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
                fs.writeFileSync(path.join(dir, f), text);
            }
            const options = await extractDepcruiseOptions(path.join(ROOT, '.dependency-cruiser.mjs'));
            const tsConfigFile = path.join(dir, 'tsconfig.json');
            const cruised = await cruise(['src', 'workers'], { ...options, baseDir: dir, tsConfig: { fileName: tsConfigFile } }, {}, { tsConfig: extractTSConfig(tsConfigFile) });
            const found = (cruised.output as ICruiseResult).summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
            expect(found).toEqual(
                expect.arrayContaining([
                    'worker-imports-host: workers/search/walk.ts → src/engine/engine.ts',
                    'shared-imports-host: src/fs/shared/held.ts → src/engine/engine.ts',
                    'upward-from-src/fs: src/fs/safe-write.ts → src/tools/base.ts',
                    'upward-from-workers/fs: workers/fs/held-at.ts → workers/search/walk.ts',
                    expect.stringMatching(/^no-circular: src\/tools\/(base|b)\.ts → src\/tools\/(base|b)\.ts$/),
                ]),
            );
            expect(folderCircles(cruised.output as ICruiseResult)).toEqual([['src/search-index', 'src/search-index/watch']]);
            // The shared import of the worker is allowed: only the host one is reported.
            expect(found.filter((f) => f.startsWith('worker-imports-host'))).toHaveLength(1);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});

/** Lines a source file of src/ or workers/ may have at most: past it, a file is split along its seams. */
const MAX_LINES = 300;

/** The .ts and .cts files under `dir`'s src/ and workers/ with more than `max` lines, as `path: N lines`, sorted. */
function oversized(dir: string, max: number): string[] {
    const out: string[] = [];
    for (const top of ['src', 'workers']) {
        for (const f of fs.readdirSync(path.join(dir, top), { recursive: true, encoding: 'utf8' })) {
            const file = path.join(dir, top, f);
            if (!/\.c?ts$/.test(f) || !fs.statSync(file).isFile()) continue;
            const text = fs.readFileSync(file, 'utf8');
            // Lines as an editor numbers them: a final newline ends the last line, it starts none.
            const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
            if (lines > max) out.push(`${top}/${f.split(path.sep).join('/')}: ${lines} lines`);
        }
    }
    return out.sort();
}

describe('file sizes', () => {
    it(`keeps every .ts and .cts file of src/ and workers/ at ${MAX_LINES} lines or fewer`, () => {
        const over = oversized(ROOT, MAX_LINES);
        expect(over, `over ${MAX_LINES} lines (split each along its seams): ${over.join(', ')}`).toEqual([]);
    });

    it('names each file over the limit with its count, in a copy of the tree', () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lcf-arch-size-'));
        try {
            const files: Record<string, string> = {
                'src/a/long.ts': 'x;\n'.repeat(MAX_LINES + 1),
                'src/a/edge.ts': 'x;\n'.repeat(MAX_LINES),
                'src/a/unended.ts': 'x;\n'.repeat(MAX_LINES) + 'x;',
                'workers/b/entry.cts': 'x;\n'.repeat(MAX_LINES + 5),
                'workers/b/notes.md': 'x\n'.repeat(MAX_LINES + 5),
            };
            for (const [f, text] of Object.entries(files)) {
                fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
                fs.writeFileSync(path.join(dir, f), text);
            }
            expect(oversized(dir, MAX_LINES)).toEqual([`src/a/long.ts: ${MAX_LINES + 1} lines`, `src/a/unended.ts: ${MAX_LINES + 1} lines`, `workers/b/entry.cts: ${MAX_LINES + 5} lines`]);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });
});
