/** The symbols operation (workers/symbols/symbols.ts) on one file written to a temporary directory. */
import fs from 'node:fs';
import path from 'node:path';
import { runSymbolsTask } from '../../workers/symbols/symbols.js';
import type { FileSymbols } from '../../src/symbols/shared/types.js';
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
