import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { Engine } from '../src/internals.js';
import { alternate, fmtMs, fmtRatio, have, intFlag, machine, median, benchArgs, peerSample, pickTree, raiseLimits, REPO, request, versionOf, type Sample } from './common.js';

/**
 * The design names fast-glob for directory walking. This measures it against our engine's walk
 * and fd on the same tree, for a name-only search and for listing every entry, alternating runs
 * in one process:
 *
 *   node dist/bench/walkers.js --tree kernel [--runs 7] [--out bench/results]
 *
 * fast-glob runs on the main thread with its async fs walker (libuv's thread pool); options chosen
 * to match ours: case-insensitive, dot files, directories too, symlinks followed.
 */

async function main(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const runs = intFlag(flags, 'runs', 7);
    const tree = await pickTree(flags);
    const limits = raiseLimits(tree.largestFile);
    const engine = new Engine();
    const FD = have('fdfind') ? 'fdfind' : 'fd';
    const fgVersion = (await import('fast-glob/package.json', { with: { type: 'json' } }).catch(() => ({ default: { version: '?' } }))).default.version;
    const ours = async (extra: Parameters<typeof request>[3], checks: 'on' | 'off'): Promise<Sample> => {
        const t0 = performance.now();
        const out = await engine.search(request(tree, limits, checks, extra), { timeoutMs: limits.search.timeoutMs });
        return { ms: performance.now() - t0, count: out.hits.length };
    };
    const glob = async (pattern: string): Promise<Sample> => {
        const t0 = performance.now();
        const found = await fg.glob(pattern, { cwd: tree.root, dot: true, onlyFiles: false, caseSensitiveMatch: false, followSymbolicLinks: true, suppressErrors: true });
        return { ms: performance.now() - t0, count: found.length };
    };
    const cases = [
        {
            title: `name search \`${tree.name}\``,
            contenders: {
                'ours (checks on)': () => ours({ namePattern: tree.name }, 'on'),
                'ours (checks off)': () => ours({ namePattern: tree.name }, 'off'),
                [`fast-glob ${fgVersion} \`**/*${tree.name}*\``]: () => glob(`**/*${tree.name}*`),
                [`${FD} -u -i -L ${tree.name}`]: () => peerSample(FD, ['-u', '-i', '-L', tree.name, tree.root]),
            },
        },
        {
            title: 'every entry',
            contenders: {
                'ours (checks on)': () => ours({}, 'on'),
                'ours (checks off)': () => ours({}, 'off'),
                [`fast-glob ${fgVersion} \`**\``]: () => glob('**'),
                [`${FD} -u -L .`]: () => peerSample(FD, ['-u', '-L', '.', tree.root]),
            },
        },
    ];
    const lines: string[] = [];
    lines.push(`Walkers on the ${tree.id} tree: ${tree.description}`);
    lines.push(`${machine()}; ${versionOf(FD)}; ${runs} alternating runs after one warm-up each, medians.`);
    lines.push('');
    lines.push('| case | walker | median | vs ours (checks on) | vs fd | count |');
    lines.push('| --- | --- | ---: | ---: | ---: | ---: |');
    for (const c of cases) {
        const res = await alternate(c.contenders, runs);
        const names = Object.keys(res);
        const med = (n: string): number => median(res[n]!.map((s) => s.ms));
        const base = med(names[0]!);
        const fd = med(names[names.length - 1]!);
        for (const n of names) {
            lines.push(`| ${c.title} | ${n} | ${fmtMs(med(n))} | ${fmtRatio(med(n), base)} | ${fmtRatio(med(n), fd)} | ${[...new Set(res[n]!.map((s) => s.count))].join('/')} |`);
        }
        console.error(`${c.title}: ${names.map((n) => `${n} [${res[n]!.map((s) => s.ms.toFixed(0)).join(' ')}]`).join('; ')}`);
    }
    await engine.close();
    lines.push('');
    lines.push(`Command: \`node dist/bench/walkers.js ${argv.join(' ')}\` (or \`npm run bench -- walkers ${argv.join(' ')}\`)`);
    const md = lines.join('\n') + '\n';
    console.log(md);
    const outDir = path.resolve(flags.get('out') ?? path.join(REPO, 'bench', 'results'));
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `walkers-${tree.id}-${new Date().toISOString().slice(0, 10)}.md`);
    fs.writeFileSync(file, md);
    console.error(`written to ${path.relative(process.cwd(), file) || file}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
    main(process.argv.slice(2)).catch((err: unknown) => {
        console.error(err instanceof Error ? (err.stack ?? err.message) : err);
        process.exitCode = 1;
    });
}

export { main as walkersMain };
