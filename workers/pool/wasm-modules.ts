import { BroadcastChannel, workerData } from 'node:worker_threads';
import { WASM_CHANNEL_FIELD, WASM_KNOWN_FIELD, wasm, type WasmModule, type WasmModuleReply, type WasmModuleRequest } from '../../src/engine/shared/wasm-modules.js';

/**
 * A pool thread's side of the process's compiled WebAssembly modules (src/engine/shared/wasm-modules.ts):
 * the host compiles a file once and every thread instantiates that module.
 */

let channel: BroadcastChannel | undefined;
const known = new Map<string, WasmModule | null>();
let seeded = false;

/** The modules the host had compiled when this thread started (its `workerData`), kept without asking. */
function seed(data: Record<string, unknown> | null | undefined): void {
    seeded = true;
    const list = data?.[WASM_KNOWN_FIELD];
    if (!Array.isArray(list)) return;
    for (const pair of list as unknown[]) {
        if (Array.isArray(pair) && typeof pair[0] === 'string' && pair[1] instanceof wasm.Module) known.set(pair[0], pair[1] as WasmModule);
    }
}
const waiting = new Map<string, ((m: WasmModule | null) => void)[]>();

function open(name: string): BroadcastChannel {
    const ch = new BroadcastChannel(name);
    // The pool's own port keeps the thread alive while it has work; this channel never does.
    ch.unref();
    ch.onmessage = (event: unknown): void => {
        const data = (event as { data?: Partial<WasmModuleReply> }).data;
        if (data?.kind !== 'module' || typeof data.file !== 'string') return;
        const module = data.module instanceof wasm.Module ? data.module : null;
        // Answers to other threads are kept too: this thread will not have to ask.
        if (module !== null || !known.has(data.file)) known.set(data.file, module);
        for (const resolve of waiting.get(data.file) ?? []) resolve(module);
        waiting.delete(data.file);
    };
    return ch;
}

/**
 * The host's compiled module of `file` (an absolute `.wasm` path), or `null` when this thread's
 * pool serves none (a thread started by another host) or the file did not compile there.
 */
export function sharedWasmModule(file: string): Promise<WasmModule | null> {
    const data = workerData as Record<string, unknown> | null | undefined;
    const name = data?.[WASM_CHANNEL_FIELD];
    if (typeof name !== 'string') return Promise.resolve(null);
    if (!seeded) seed(data);
    const had = known.get(file);
    if (had !== undefined) return Promise.resolve(had);
    channel ??= open(name);
    return new Promise((resolve) => {
        const list = waiting.get(file);
        if (list !== undefined) return void list.push(resolve);
        waiting.set(file, [resolve]);
        channel!.postMessage({ kind: 'want', file } satisfies WasmModuleRequest);
    });
}
