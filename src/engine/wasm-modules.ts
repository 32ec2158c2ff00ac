import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { wasm, type WasmModule, type WasmModuleReply, type WasmModuleRequest } from './shared/wasm-modules.js';

/**
 * The host's side of the process's compiled WebAssembly modules (shared/wasm-modules.ts): a
 * thread names a `.wasm` file, the host compiles it once (off its own thread, as
 * `WebAssembly.compile` does) and answers on the channel; every thread keeps what it hears.
 */

let channel: BroadcastChannel | undefined;
const compiled = new Map<string, Promise<WasmModule | null>>();

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
        }
        void module.then((m) => ch.postMessage({ kind: 'module', file, module: m } satisfies WasmModuleReply));
    };
    return name;
}
