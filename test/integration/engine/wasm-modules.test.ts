/**
 * Compiled WebAssembly modules shared by the process's threads (src/engine/wasm-modules.ts,
 * workers/pool/wasm-modules.ts): the host answers a thread's request with the module it compiled
 * once, or with none for a file that does not compile; pool threads that parse with the shared
 * grammars find what a parse on this thread (from the bytes, no channel) finds.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { wasm } from '../../../src/engine/shared/wasm-modules.js';
import { wasmModuleChannel } from '../../../src/engine/wasm-modules.js';
import type { SymbolsResult } from '../../../src/symbols/shared/types.js';
import { runSymbolsTask } from '../../../workers/symbols/symbols.js';
import { tempDir } from '../../support/helpers.js';

const require = createRequire(import.meta.url);
/** `WebAssembly.Module.exports`, which the project's TypeScript libraries do not declare. */
const moduleExports = (globalThis as unknown as { WebAssembly: { Module: { exports(m: unknown): { name: string }[] } } }).WebAssembly.Module.exports;
const grammar = (name: string): string => path.join(path.dirname(require.resolve('tree-sitter-wasms/package.json')), 'out', name);

/**
 * The host's replies to requests for `asked`, once `count` have come, sorted by file name. The host
 * handles requests in order and drops an ignored one at once, so its reply would come before the
 * reply to the last file asked for: waiting for all of those sees it.
 */
async function replies(asked: string[], count: number): Promise<{ file: string; module: unknown }[]> {
    const ch = new BroadcastChannel(wasmModuleChannel());
    const seen: { file: string; module: unknown }[] = [];
    try {
        await new Promise<void>((resolve) => {
            ch.onmessage = (event: unknown): void => {
                const data = (event as { data: { kind: string; file: string; module: unknown } }).data;
                if (data.kind !== 'module') return;
                seen.push({ file: data.file, module: data.module });
                if (seen.length === count) resolve();
            };
            for (const file of asked) ch.postMessage({ kind: 'want', file });
        });
    } finally {
        ch.close();
    }
    return seen.sort((a, b) => path.basename(a.file).localeCompare(path.basename(b.file)));
}

describe('compiled WebAssembly modules shared by the threads', () => {
    it('answers a grammar with its compiled module, the same on every request', async () => {
        const file = grammar('tree-sitter-c.wasm');
        const seen = await replies([file], 1);
        expect(seen).toHaveLength(1);
        const module = seen[0]!.module;
        expect(module).toBeInstanceOf(wasm.Module);
        expect(moduleExports(module).some((e) => e.name === 'tree_sitter_c')).toBe(true);
        const again = await replies([file], 1);
        expect(again[0]!.module).toBeInstanceOf(wasm.Module);
    });

    it('answers a file that does not compile, or is missing, with none; ignores a relative path and a file that is not .wasm', async () => {
        const dir = tempDir('lcf-wasm-');
        const bad = path.join(dir, 'bad.wasm');
        fs.writeFileSync(bad, 'not WebAssembly');
        const missing = path.join(dir, 'missing.wasm');
        const text = path.join(dir, 'grammar.txt');
        fs.writeFileSync(text, 'text');
        const last = grammar('tree-sitter-python.wasm');
        const seen = await replies([bad, missing, 'relative.wasm', text, last], 3);
        expect(seen.map((r) => [path.basename(r.file), r.module === null])).toEqual([
            ['bad.wasm', true],
            ['missing.wasm', true],
            ['tree-sitter-python.wasm', false],
        ]);
        // Nothing was written or left behind.
        expect(fs.readdirSync(dir).sort()).toEqual(['bad.wasm', 'grammar.txt']);
    });

    it('gives a thread started after the host compiled a module that module, which it then does not ask for', async () => {
        const dir = tempDir('lcf-wasm-known-');
        fs.writeFileSync(path.join(dir, 'a.c'), 'struct s { int x; };\nint f(void) { return 0; }\n');
        const task = { op: 'symbols' as const, files: [{ shown: 'a.c', real: path.join(dir, 'a.c') }], realRoots: null, maxBytes: 1 << 20, parseMs: 60_000 };
        // A first engine's thread asks for the runtime and the C grammar: the host compiles them.
        const first = new Engine({ maxThreads: 1, maxPoolThreads: 1, workerNice: 0 });
        const expected = await first.run<SymbolsResult>(task).finally(() => first.close());
        const ch = new BroadcastChannel(wasmModuleChannel());
        const wants: string[] = [];
        const marker = grammar('tree-sitter-python.wasm');
        let markerAnswered = (): void => undefined;
        ch.onmessage = (event: unknown): void => {
            const data = (event as { data: { kind: string; file: string } }).data;
            if (data.kind === 'want' && data.file !== marker) wants.push(path.basename(data.file));
            if (data.kind === 'module' && data.file === marker) markerAnswered();
        };
        const second = new Engine({ maxThreads: 1, maxPoolThreads: 1, workerNice: 0 });
        try {
            expect(await second.run<SymbolsResult>(task)).toEqual(expected);
            // The channel delivers in order: once the host's answer to a later request is seen
            // here, so is every request the new thread made before it.
            const answered = new Promise<void>((resolve) => (markerAnswered = resolve));
            const asker = new BroadcastChannel(wasmModuleChannel());
            asker.postMessage({ kind: 'want', file: marker });
            await answered;
            asker.close();
        } finally {
            ch.close();
            await second.close();
        }
        expect(expected.files[0]!.ok).toBe(true);
        expect(wants).toEqual([]);
    });

    describe('pool threads parsing with the shared grammars', () => {
        const engine = new Engine({ maxThreads: 2, maxPoolThreads: 2, workerNice: 0 });
        afterAll(() => engine.close());

        it('find what a parse from the bytes on this thread finds, in C++, Python and TypeScript', async () => {
            const dir = tempDir('lcf-wasm-parse-');
            const sources: Record<string, string> = {
                'a.cpp': 'namespace n {\nclass K {\n  int f(int x) { return x; }\n};\n}\nint main() { return 0; }\n',
                'b.py': 'class C:\n    def m(self):\n        return 1\n\ndef top():\n    pass\n',
                'c.ts': 'export class T {\n  run(): number { return 1; }\n}\nexport function g(): void {}\n',
            };
            const files = Object.entries(sources).map(([name, text]) => {
                fs.writeFileSync(path.join(dir, name), text);
                return { shown: name, real: path.join(dir, name) };
            });
            const task = { op: 'symbols' as const, files, realRoots: null, maxBytes: 1 << 20, parseMs: 60_000 };
            const here = await runSymbolsTask(task);
            // Two tasks at once: both threads load the grammars from the shared modules.
            const pooled = await Promise.all([engine.run<SymbolsResult>(task), engine.run<SymbolsResult>(task)]);
            for (const r of pooled) expect(r).toEqual(here);
            const defs = here.files.flatMap((f) => (f.ok ? f.definitions.map((d) => d.name) : []));
            expect(defs).toEqual(expect.arrayContaining(['K', 'f', 'main', 'C', 'm', 'top', 'T', 'run', 'g']));
        });
    });
});
