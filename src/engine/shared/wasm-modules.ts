/**
 * Compiled WebAssembly modules shared by every thread of the process (src/engine/wasm-modules.ts
 * serves them, workers/pool/wasm-modules.ts asks for them). A module compiled once and posted to
 * the threads shares its machine code, the optimized code of its hot functions included: each
 * thread that compiled a tree-sitter grammar itself spent some 2 s of CPU re-optimizing it.
 */

/** A compiled module (`WebAssembly.Module`; the project's TypeScript libraries declare no WebAssembly). */
export type WasmModule = object;

/** The part of the WebAssembly API used with shared modules. */
export interface WasmApi {
    Module: abstract new (...args: never[]) => WasmModule;
    compile(bytes: Uint8Array): Promise<WasmModule>;
    instantiate(source: unknown, imports?: object): Promise<unknown>;
}

/** The global `WebAssembly`. */
export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** The `workerData` field naming the broadcast channel on which the host serves modules. */
export const WASM_CHANNEL_FIELD = 'wasmModules';

/**
 * The `workerData` field listing the modules the host had compiled when the thread started, as
 * `[file, module]` pairs: a thread knows them without asking on the channel.
 */
export const WASM_KNOWN_FIELD = 'wasmModulesKnown';

/** A thread asks for the module of a `.wasm` file (an absolute path). */
export interface WasmModuleRequest {
    kind: 'want';
    file: string;
}

/** The host's answer, seen by every thread: the module, or none when the file did not compile. */
export interface WasmModuleReply {
    kind: 'module';
    file: string;
    module: WasmModule | null;
}
