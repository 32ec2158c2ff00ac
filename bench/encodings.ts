import { isUtf8 } from 'node:buffer';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import { detectLegacy } from '../src/text/shared/legacy.js';
import { isBinary, textEncodingOf } from '../src/text/shared/text.js';
import { sampleTable, type Sample } from '../test/support/encoding-samples.js';
import { benchArgs, intFlag, loadAverages } from './common.js';

/**
 * `encodings [--seeds 4] [--dir TREE]`: the encoding detectors on files made from known text
 * (test/support/encoding-samples.ts): jschardet as the package runs it (legacy.ts
 * `detectLegacy`), jschardet's and chardet's own `detect` over all their encodings; a file
 * counts as right when it decodes back to its text. With `--dir`, the cost of the encoding
 * decision on a tree's text files (the Linux tree: how many are not UTF-8, and the CPU time of
 * `textEncodingOf` against the UTF-8 check alone, which is all the decision was before).
 */

type Detect = (bytes: Buffer) => string | null;

export async function encodingsMain(argv: readonly string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const seeds = intFlag(flags, 'seeds', 4);
    const require = createRequire(import.meta.url);
    const jschardet = require('jschardet') as typeof import('jschardet');
    const chardet = require('chardet') as { detect(b: Uint8Array): string | null };
    const detectors: Record<string, Detect> = {
        'package (jschardet, weighed encodings)': (b) => (isUtf8(b) ? 'utf-8' : (detectLegacy(b) ?? 'latin1')),
        'jschardet 4.0.0 detect': (b) => jschardet.detect(b).encoding,
        'chardet 2.2.0 detect': (b) => chardet.detect(b),
    };
    const sets: [string, Sample[]][] = [
        ['1-16 KB', sampleTable([1024, 2048, 4096, 16384], seeds)],
        ['100-300 B', sampleTable([100, 300], seeds)],
    ];
    console.log(`load average ${loadAverages()}, ${os.cpus().length} CPUs`);
    console.log('| detector | files | right | right % | ms | MB/s |\n| --- | --- | ---: | ---: | ---: | ---: |');
    for (const [name, detect] of Object.entries(detectors)) {
        detect(Buffer.from('warm up: caf\xe9\n', 'latin1'));
        for (const [label, set] of sets) {
            const t0 = process.hrtime.bigint();
            const found = set.map((s) => detect(s.bytes));
            const ms = Number(process.hrtime.bigint() - t0) / 1e6;
            const bytes = set.reduce((n, s) => n + s.bytes.length, 0);
            const right = set.filter((s, i) => readsBack(s, found[i] ?? null)).length;
            console.log(`| ${name} | ${label} (${set.length}) | ${right} | ${((100 * right) / set.length).toFixed(1)} | ${ms.toFixed(0)} | ${(bytes / 1e3 / ms).toFixed(2)} |`);
        }
    }
    const dir = flags.get('dir');
    if (dir !== undefined) treeCost(dir);
}

function readsBack(s: Sample, encoding: string | null): boolean {
    if (encoding === null || !iconv.encodingExists(encoding)) return false;
    return iconv.decode(s.bytes, encoding) === s.text;
}

/**
 * The encoding decision on every text file of `dir` up to 10 MiB, one file in memory at a time:
 * how each is decided, and the time of the UTF-8 check alone (all the decision was before) and
 * of `textEncodingOf` (the best of 3 calls per file, summed: the load of a shared machine
 * inflates single calls).
 */
function treeCost(dir: string): void {
    let files = 0;
    let bytes = 0;
    let before = 0;
    let after = 0;
    const kinds = new Map<string, number>();
    const best = (f: () => unknown): number => {
        let min = Infinity;
        for (let i = 0; i < 3; i++) {
            const t0 = process.hrtime.bigint();
            f();
            min = Math.min(min, Number(process.hrtime.bigint() - t0) / 1e6);
        }
        return min;
    };
    const walk = (d: string): void => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
            const p = path.join(d, e.name);
            if (e.isDirectory() && e.name !== '.git') walk(p);
            else if (e.isFile() && fs.statSync(p).size <= 10 * 1024 * 1024) {
                const b = fs.readFileSync(p);
                if (isBinary(b)) continue;
                files++;
                bytes += b.length;
                before += best(() => isUtf8(b));
                after += best(() => textEncodingOf(b));
                const info = textEncodingOf(b);
                const k = info.encoding === 'legacy' ? `legacy ${info.legacy}` : info.encoding;
                kinds.set(k, (kinds.get(k) ?? 0) + 1);
            }
        }
    };
    walk(dir);
    console.log(`\n${dir}: ${files} text files, ${(bytes / 1e6).toFixed(0)} MB; decided ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}`);
    console.log(`encoding decision over all of them, ms: UTF-8 check alone ${before.toFixed(1)}, textEncodingOf ${after.toFixed(1)}`);
    console.log(`load average ${loadAverages()}`);
}
