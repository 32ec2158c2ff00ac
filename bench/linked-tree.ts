import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Trees of hard-linked copies of the Linux tree, as the churn and rebuild benches change them:
 * never written in place (the copies share inodes with the kernel tree), and identifiers sampled
 * from their C files to search for.
 */

/** `work/tree` made anew with `scale` hard-linked copies of `kernelRoot` (`c0`, `c1`, …); its path. */
export function linkedTree(kernelRoot: string, work: string, scale: number): string {
    const root = path.join(work, 'tree');
    fs.rmSync(work, { recursive: true, force: true });
    fs.mkdirSync(root, { recursive: true });
    for (let k = 0; k < scale; k++) execFileSync('cp', ['-al', kernelRoot, path.join(root, `c${k}`)]);
    return root;
}

/** Files of `dir` named `*ext`, relative to it, sorted. */
export function filesOf(dir: string, ext: string): string[] {
    return execFileSync('find', ['.', '-name', `*${ext}`, '-type', 'f'], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n').filter(Boolean).sort();
}

/** `n` identifiers of 10+ characters from `files` (absolute), sampled with `rand`. */
export function sampleIdentifiers(files: readonly string[], n: number, rand: () => number): string[] {
    const out = new Set<string>();
    while (out.size < n) {
        const words = fs.readFileSync(files[Math.floor(rand() * files.length)]!, 'latin1').match(/\b[a-z_][a-z0-9_]{9,}\b/g) ?? [];
        if (words.length > 0) out.add(words[Math.floor(rand() * words.length)]!);
    }
    return [...out];
}
