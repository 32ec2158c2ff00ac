/** The symbols operation (workers/symbols/symbols.ts) on one file written to a temporary directory. */
import fs from 'node:fs';
import path from 'node:path';
import { runSymbolsTask } from '../../workers/symbols/symbols.js';
import { withoutBodies } from '../../workers/symbols/bodies.js';
import type { FileSymbols, SymbolsTask } from '../../src/symbols/shared/types.js';
import { tempDir } from './helpers.js';

export async function symbolsOf(name: string, text: string): Promise<FileSymbols> {
    const dir = tempDir('lcf-symbols-');
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    const r = await runSymbolsTask({ op: 'symbols', files: [{ shown: name, real: file }], realRoots: null, maxBytes: 1 << 20, parseMs: 60_000 });
    return r.files[0]!;
}

/** `line kind container.name` per definition. */
export async function defs(name: string, text: string): Promise<string[]> {
    const r = await symbolsOf(name, text);
    if (!r.ok) throw new Error(r.message);
    return r.definitions.map((d) => `${d.line} ${d.kind} ${[...d.container, d.name].join('.')}`);
}

/** `line-endLine kind container.name` per definition. */
export async function spans(name: string, text: string): Promise<string[]> {
    const r = await symbolsOf(name, text);
    if (!r.ok) throw new Error(r.message);
    return r.definitions.map((d) => `${d.line}-${d.endLine} ${d.kind} ${[...d.container, d.name].join('.')}`);
}

/** The symbols operation, this module's or an oracle's (a second instance of symbols.ts). */
export type SymbolsRun = (task: SymbolsTask) => ReturnType<typeof runSymbolsTask>;

/** `run` on one real file, its parse given all the time it needs; a failure throws. */
export async function symbolsWith(run: SymbolsRun, file: string, extra: Partial<SymbolsTask> = {}): Promise<FileSymbols & { ok: true }> {
    const r = (await run({ op: 'symbols', files: [{ shown: path.basename(file), real: file }], realRoots: null, maxBytes: 4 << 20, parseMs: 120_000, ...extra })).files[0]!;
    if (!r.ok) throw new Error(r.message);
    return r;
}

/** `text` written as `name` in a new temporary directory named after `prefix`; its path. */
export function writeTemp(prefix: string, name: string, text: string): string {
    const file = path.join(tempDir(prefix), name);
    fs.writeFileSync(file, text);
    return file;
}

/** `text` as the definitions' parse reads it: what lies outside its ranges made spaces, newlines kept. */
export function parsedText(text: string): string | undefined {
    const b = withoutBodies(text);
    if (b === undefined || b.text !== undefined) return b?.text;
    const out = text.replace(/[^\n]/g, ' ').split('');
    for (const r of b.ranges) for (let i = r.startIndex; i < r.endIndex; i++) out[i] = text[i]!;
    return out.join('');
}

/** `line-endLine kind container.name — signature` per definition. */
export const outlineLines = (r: FileSymbols & { ok: true }): string[] => r.definitions.map((d) => `${d.line}-${d.endLine} ${d.kind} ${[...d.container, d.name].join('.')} — ${d.signature}`);
