/**
 * The symbol table's bounds: a regex over the names stops with the call's time and says so, one
 * process makes a generation's table while another waits for it and loads it, a lock left by a
 * process that died is taken over, and a failed build is tried again by a later call.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType, FileConfiguration, FileToolPackage, SearchConfiguration, Workspace } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { symbolsOf } from '../../../src/symbols/symbol-table.js';
import { SYMBOLS_FILE } from '../../../src/symbols/shared/symbol-format.js';
import { SHARED_POOL, snapshot, tempDir, writeTree } from '../../support/helpers.js';

const open: FileToolPackage[] = [];
afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
});

function pkgOf(root: string, index: false | { dir: string; symbols?: boolean }, timeoutMs: number): FileToolPackage {
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    const pkg = new FileToolPackage(ws, { searchConfig: new SearchConfiguration(100_000, 100_000, 100_000, timeoutMs), fileConfig: new FileConfiguration(undefined, undefined, false), index: index && { ...index, symbols: true }, navigation: true, engine: SHARED_POOL });
    open.push(pkg);
    return pkg;
}

async function call(pkg: FileToolPackage, args: Record<string, unknown>): Promise<string> {
    const [r] = await pkg.tools().find((t) => t.name === 'find_symbol')!.execute(args);
    return `${r!.status}: ${r!.result}`;
}

/** Source files defining `n` names in all (macros), `per` a file. */
function manyNames(n: number, per: number): Record<string, string> {
    const files: Record<string, string> = {};
    for (let f = 0; f * per < n; f++) {
        const lines: string[] = [];
        for (let i = f * per; i < Math.min(n, (f + 1) * per); i++) lines.push(`#define NAME_${i} ${i}`);
        files[`src/m${f}.h`] = `${lines.join('\n')}\n`;
    }
    files['src/main.c'] = 'int main(void)\n{\n\treturn 0;\n}\n';
    return files;
}

describe('the symbol table bounds', () => {
    it('stops a regex matching every name at the time limit, with the note, and changes nothing', async () => {
        const root = tempDir('lcf-symbound-');
        // src/m0.h is over 1 MB: parsed on the build's thread for large files.
        writeTree(root, manyNames(80_000, 50_000));
        expect(fs.statSync(path.join(root, 'src/m0.h')).size).toBeGreaterThan(1 << 20);
        // A 1 ms limit: looking at 80,000 names and their definitions takes longer on any machine.
        const indexDir = tempDir('lcf-symbound-index-');
        const pkg = pkgOf(root, { dir: indexDir }, 1);
        const tree = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        const symbols = symbolsOf(tree);
        const store = await symbols.ready();
        expect(store, symbols.error).not.toBeNull();
        expect(store!.counts.names).toBeGreaterThan(80_000);
        const before = snapshot(root);
        const answered = symbols.answered;
        for (const name of ['.', '^NAME_', '[0-9]$']) {
            const r = await call(pkg, { name, regex: true, max_results: 5 });
            expect(r, name).toMatch(/^success: /);
            expect(r, name).toMatch(/\n\[The search timed out: these are the definitions of the names looked at so far; narrow the regex, path or kind\.\]$/);
            expect(r.split('\n').length, name).toBeLessThanOrEqual(7);
        }
        expect(symbols.answered - answered, 'the table answered, stopped').toBe(3);
        // An exact name is one look-up: no time limit reached, no note. A package with a longer
        // timeout loads the index and table just made (a second build of 80,000 names checks nothing more).
        const gen = tree.served()!.gen;
        await pkg.close();
        const one = pkgOf(root, { dir: indexDir }, 600_000);
        const tree2 = (await one.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        expect(tree2.served()!.gen).toBe(gen);
        expect(await symbolsOf(tree2).ready()).not.toBeNull();
        expect(symbolsOf(tree2).figures, 'loaded, not built again').toBeUndefined();
        expect(await call(one, { name: 'NAME_79999' })).toBe('success: src/m1.h:30000: macro NAME_79999 — #define NAME_79999 79999');
        expect(await call(one, { name: 'NAME_49999' })).toBe('success: src/m0.h:50000: macro NAME_49999 — #define NAME_49999 49999');
        expect(snapshot(root)).toEqual(before);
    });

    it('is off by default: the index on, find_symbol takes the scan and makes no table', async () => {
        const root = tempDir('lcf-symbound-off-');
        writeTree(root, manyNames(100, 50));
        const dir = tempDir('lcf-symbound-off-index-');
        const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
        const pkg = new FileToolPackage(ws, { index: { dir }, navigation: true, engine: SHARED_POOL });
        open.push(pkg);
        const tree = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        expect(await call(pkg, { name: 'NAME_7' })).toBe('success: src/m0.h:8: macro NAME_7 — #define NAME_7 7');
        expect(symbolsOf(tree).answered).toBe(0);
        expect(fs.readdirSync(tree.served()!.genDir).filter((f) => f.startsWith('symbols'))).toEqual([]);
    });

    it('is made by one of two processes at once; the other loads it', async () => {
        const root = tempDir('lcf-symbound-two-');
        writeTree(root, manyNames(3000, 500));
        const dir = tempDir('lcf-symbound-two-index-');
        const script = path.join(import.meta.dirname, '..', '..', 'support', 'symbols-child.mjs');
        const run = (): Promise<string> =>
            new Promise((resolve, reject) => {
                const child = spawn(process.execPath, [script, root, dir, 'NAME_2999'], { stdio: ['ignore', 'pipe', 'inherit'] });
                let out = '';
                child.stdout.on('data', (d: Buffer) => (out += d.toString()));
                child.on('error', reject);
                child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${out}`))));
            });
        const outs = (await Promise.all([run(), run()])).map((o) => JSON.parse(o) as { state: string; defs: number | null; error: string | null; built: boolean; answered: number; result: string });
        for (const o of outs) {
            expect(o.error).toBeNull();
            expect(o.defs).toBe(3001);
            expect(o.answered).toBe(1);
            expect(o.result).toBe('success: src/m5.h:500: macro NAME_2999 — #define NAME_2999 2999');
        }
        expect(outs.filter((o) => o.built).length, 'one process made the table').toBe(1);
        const gens = fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => path.basename(f) === SYMBOLS_FILE);
        expect(gens).toHaveLength(1);
        expect(fs.readdirSync(path.dirname(path.join(dir, gens[0]!))).filter((f) => f.startsWith('symbols') && f !== SYMBOLS_FILE), 'no lock, part or temporary file left').toEqual([]);
    });

    it('takes over the lock of a process that died, and tries a failed build again later', async () => {
        const root = tempDir('lcf-symbound-stale-');
        writeTree(root, manyNames(100, 50));
        const dir = tempDir('lcf-symbound-stale-index-');
        const pkg = pkgOf(root, { dir }, 600_000);
        const tree = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
        const genDir = tree.served()!.genDir;
        // A lock whose process is gone (no process has that id and start time).
        fs.writeFileSync(path.join(genDir, 'symbols.lock'), JSON.stringify({ pid: 4_194_000, start: '1', token: 'dead' }));
        // A directory where the table goes: the build fails.
        fs.mkdirSync(path.join(genDir, SYMBOLS_FILE));
        fs.writeFileSync(path.join(genDir, SYMBOLS_FILE, 'x'), 'x');
        const symbols = symbolsOf(tree);
        expect(await symbols.ready()).toBeNull();
        expect(symbols.error).toBeDefined();
        expect(fs.existsSync(path.join(genDir, 'symbols.lock')), 'the dead process lock was taken over and released').toBe(false);
        // Not tried again at once (a call meanwhile takes the scan) ...
        expect(symbols.current(tree.served()!)).toBeNull();
        expect(await symbols.ready()).toBeNull();
        // ... but after the wait.
        fs.rmSync(path.join(genDir, SYMBOLS_FILE), { recursive: true });
        symbols.retryMs = 0;
        const store = await symbols.ready();
        expect(store, symbols.error).not.toBeNull();
        expect(store!.counts.defs).toBe(101);
        expect(await call(pkg, { name: 'NAME_7' })).toBe('success: src/m0.h:8: macro NAME_7 — #define NAME_7 7');
    });
});
