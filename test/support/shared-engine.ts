/**
 * The engine that test packages without an engine or index of their own run on: one per fork, not
 * one per test file. A fork runs file after file (`isolate: false`), and each new engine's pool
 * starts its threads again (some 90 ms of CPU each, hundreds in a run). Its threads inherit the
 * environment they start in, so a file that changed the environment gets a new engine (the old
 * one closed); a test that needs a fresh pool makes its own.
 */
import { Engine } from '../../src/engine/engine.js';

let shared: { engine: Engine; env: string } | undefined;

/** The fork's engine for the current environment. */
export function sharedEngine(): Engine {
    const env = JSON.stringify(process.env);
    if (shared?.env !== env) {
        void shared?.engine.close();
        shared = { engine: new Engine(), env };
    }
    return shared.engine;
}
