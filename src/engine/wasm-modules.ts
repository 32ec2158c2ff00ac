import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { WASM_CHANNEL_FIELD, WASM_KNOWN_FIELD, wasm, type WasmModule, type WasmModuleReply, type WasmModuleRequest } from './shared/wasm-modules.js';

/**
 * The host's side of the process's compiled WebAssembly modules (shared/wasm-modules.ts): a
 * thread names a `.wasm` file, the host compiles it once (off its own thread, as
 * `WebAssembly.compile` does) and answers on the channel; every thread keeps what it hears.
 */

let channel: BroadcastChannel | undefined;
const compiled = new Map<string, Promise<WasmModule | null>>();
/**
 * The modules compiled so far, as `[file, module]`: one array, which every pool's `workerData`
 * holds and which grows in place, so that a thread started later is given what the host has then.
 * Event loop: a thread at idle priority that posts to this thread holds the port's lock as it
 * wakes it, and this thread, taking the CPU from it, then waits for it (at idle priority it may
 * wait behind any other thread); a thread given the modules posts no request.
 */
const known: [string, WasmModule][] = [];

/** The channel's name, its listener started on first use; it never keeps the process alive. */
export function wasmModuleChannel(): string {
    const name = `llm-chat-file:wasm:${process.pid}:${threadId}`;
    if (channel !== undefined) return name;
    const ch = new BroadcastChannel(name);
    channel = ch;
    ch.unref();
    ch.onmessage = (event: unknown): void => {
        const data = (event as { data?: Partial<WasmModuleRequest> }).data;
        const file = data?.file;
        if (data?.kind !== 'want' || typeof file !== 'string' || !path.isAbsolute(file) || !file.endsWith('.wasm')) return;
        let module = compiled.get(file);
        if (module === undefined) {
            // A file that does not compile is answered with none: the thread loads it itself and
            // reports the library's own error, as without the channel.
            module = readFile(file).then((bytes) => wasm.compile(bytes), () => null).catch(() => null);
            compiled.set(file, module);
            void module.then((m) => void (m !== null && known.push([file, m])));
        }
        void module.then((m) => ch.postMessage({ kind: 'module', file, module: m } satisfies WasmModuleReply));
    };
    return name;
}

/** The `workerData` fields of a pool's threads for the shared modules: the channel, and the modules compiled so far (kept current). */
export function wasmWorkerData(): Record<string, unknown> {
    return { [WASM_CHANNEL_FIELD]: wasmModuleChannel(), [WASM_KNOWN_FIELD]: known };
}
