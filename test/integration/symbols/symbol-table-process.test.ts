/**
 * The symbol table is built in a process of its own (src/symbols-build.ts): not the host's, gone
 * once the table is made; a build process killed mid-build fails that build as any failed build
 * (calls take the scan, no part file is left) and a later build succeeds; closing the package ends
 * it; and it exits when the process it builds for goes away, so none is left orphaned.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccessType, FileConfiguration, FileToolPackage, SearchConfiguration, Workspace } from '../../../src/index.js';
import { DEFAULT_SKIP_DIRS } from '../../../src/internals.js';
import { symbolsOf } from '../../../src/symbols/symbol-table.js';
import { SYMBOLS_FILE } from '../../../src/symbols/shared/symbol-format.js';
import { CHILD_NODE_ARGS, childModule } from '../../support/child-source.js';
import { SHARED_POOL, tempDir, until, writeTree } from '../../support/helpers.js';

const open: FileToolPackage[] = [];
afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
});

/** Whether process `pid` runs (a zombie, exited but not yet reaped by its new parent, does not). */
function alive(pid: number): boolean {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, { encoding: 'utf8', flag: 'r' }).toString();
    return !/^\d+ \(.*\) Z /.test(stat);
}
const running = (pid: number): boolean => {
    try {
        return alive(pid);
    } catch {
        return false;
    }
};

/**
 * A tree whose build takes a while on any machine: three headers over 1 MB (a part each, parsed one
 * after another on the large-file thread) beside small files.
 */
function tree(): Record<string, string> {
    const files: Record<string, string> = { 'src/main.c': 'int main_entry(void)\n{\n\treturn 0;\n}\n' };
    for (let b = 0; b < 3; b++) {
        const lines: string[] = [];
        for (let i = 0, bytes = 0; bytes <= (1 << 20) + 4096; i++) {
            const line = `#define BIG${b}_REG_${i}__MASK 0x${((i * 2654435761) >>> 0).toString(16)}L\n`;
            lines.push(line);
            bytes += line.length;
        }
        files[`include/big${b}.h`] = lines.join('');
    }
    return files;
}

async function indexed() {
    const root = tempDir('lcf-symproc-');
    writeTree(root, tree());
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    const pkg = new FileToolPackage(ws, { searchConfig: new SearchConfiguration(100_000, 100_000, 100_000, 600_000), fileConfig: new FileConfiguration(undefined, undefined, false), index: { dir: tempDir('lcf-symproc-index-'), symbols: true }, navigation: true, engine: SHARED_POOL });
    open.push(pkg);
    const t = (await pkg.searchIndex!.warm(root, DEFAULT_SKIP_DIRS, [root]))!;
    expect(t.status().state).toBe('ready');
    return { pkg, tree: t, symbols: symbolsOf(t), genDir: t.served()!.genDir };
}

async function findSymbol(pkg: FileToolPackage, name: string): Promise<string> {
    const [r] = await pkg.tools().find((t) => t.name === 'find_symbol')!.execute({ name });
    return `${r!.status}: ${r!.result}`;
}

/** The build's files in the generation's folder besides the table: parts, the merge's temporary files, the lock. */
const debris = (genDir: string): string[] => fs.readdirSync(genDir).filter((n) => n.startsWith('symbols') && n !== SYMBOLS_FILE);

describe('the symbol table built in a process of its own', () => {
    it('runs the build in another process, which is gone once the table is loaded', async () => {
        const { symbols, tree: t } = await indexed();
        symbols.current(t.served()!);
        await until(() => symbols.buildPid !== undefined);
        const pid = symbols.buildPid!;
        expect(pid).not.toBe(process.pid);
        expect(running(pid), 'the build process runs').toBe(true);
        const store = await symbols.ready();
        expect(store, symbols.error).not.toBeNull();
        expect(store!.counts.defs).toBeGreaterThan(3 * 20_000);
        expect(symbols.figures!.peakRss, "the build process's peak memory").toBeGreaterThan(0);
        expect(symbols.buildPid).toBeUndefined();
        expect(running(pid), 'the build process has exited').toBe(false);
    });

    it('fails the build when its process is killed mid-build: calls take the scan, nothing is left, and a later build succeeds', async () => {
        const { pkg, symbols, tree: t, genDir } = await indexed();
        const expected = 'success: include/big1.h:7: macro BIG1_REG_6__MASK — #define BIG1_REG_6__MASK 0xb54cda26L';
        symbols.current(t.served()!);
        // Mid-build: a part written, the table not yet.
        await until(() => symbols.buildPid !== undefined && fs.readdirSync(genDir).some((n) => n.startsWith('symbols-part-')));
        expect(fs.existsSync(path.join(genDir, SYMBOLS_FILE))).toBe(false);
        const pid = symbols.buildPid!;
        process.kill(pid, 'SIGKILL');
        expect(await symbols.ready()).toBeNull();
        expect(symbols.error).toMatch(/^the symbol table's build process ended without a table \(killed by SIGKILL\)/);
        expect(debris(genDir), 'no part, temporary or lock file left').toEqual([]);
        expect(fs.existsSync(path.join(genDir, SYMBOLS_FILE))).toBe(false);
        // The call is answered by the scan, exactly.
        const answered = symbols.answered;
        expect(await findSymbol(pkg, 'BIG1_REG_6__MASK')).toBe(expected);
        expect(symbols.answered, 'not from the table').toBe(answered);
        // Tried again: the build succeeds and the table answers.
        symbols.retryMs = 0;
        const store = await symbols.ready();
        expect(store, symbols.error).not.toBeNull();
        expect(await findSymbol(pkg, 'BIG1_REG_6__MASK')).toBe(expected);
        expect(symbols.answered, 'from the table').toBeGreaterThan(answered);
        expect(debris(genDir)).toEqual([]);
    });

    it('ends the build process when the package closes', async () => {
        const { pkg, symbols, tree: t, genDir } = await indexed();
        symbols.current(t.served()!);
        await until(() => symbols.buildPid !== undefined);
        const pid = symbols.buildPid!;
        await pkg.close();
        await until(() => !running(pid));
        await until(() => debris(genDir).length === 0);
        expect(fs.existsSync(path.join(genDir, SYMBOLS_FILE))).toBe(false);
    });

    it('exits when the process it builds for is killed', async () => {
        const root = tempDir('lcf-symproc-orphan-');
        writeTree(root, tree());
        const dir = tempDir('lcf-symproc-orphan-index-');
        const script = `
            const { AccessType, FileToolPackage, Workspace } = await import(${JSON.stringify(childModule('src/index.ts'))});
            const { DEFAULT_SKIP_DIRS } = await import(${JSON.stringify(childModule('src/internals.ts'))});
            const { symbolsOf } = await import(${JSON.stringify(childModule('src/symbols/symbol-table.ts'))});
            const root = ${JSON.stringify(root)};
            const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Read }], workspacePath: root });
            const pkg = new FileToolPackage(ws, { index: { dir: ${JSON.stringify(dir)}, symbols: true }, navigation: true });
            const tree = await pkg.searchIndex.warm(root, DEFAULT_SKIP_DIRS, [root]);
            const symbols = symbolsOf(tree);
            symbols.current(tree.served());
            const wait = setInterval(() => {
                if (symbols.buildPid === undefined) return;
                clearInterval(wait);
                process.stdout.write(JSON.stringify({ pid: symbols.buildPid, genDir: tree.served().genDir }) + '\\n');
            }, 10);
            setInterval(() => undefined, 1000);
        `;
        const parent = spawn(process.execPath, [...CHILD_NODE_ARGS, '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        parent.stdout.on('data', (d: Buffer) => (out += d.toString()));
        const gone = new Promise((resolve) => parent.once('exit', resolve));
        let build: { pid: number; genDir: string } | undefined;
        try {
            await until(() => out.includes('\n') || parent.exitCode !== null);
            build = JSON.parse(out) as { pid: number; genDir: string };
            // Mid-build: a part written, the table not yet.
            await until(() => fs.readdirSync(build!.genDir).some((n) => n.startsWith('symbols-part-')));
            expect(fs.existsSync(path.join(build.genDir, SYMBOLS_FILE))).toBe(false);
        } finally {
            parent.kill('SIGKILL');
            await gone;
        }
        await until(() => !running(build.pid));
        expect(fs.existsSync(path.join(build.genDir, SYMBOLS_FILE)), 'the build ended with its parent, no table made').toBe(false);
    });
});
