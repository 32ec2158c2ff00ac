/**
 * A worker for test/integration/engine/native-gate.test.ts, bundled by that test: runs the
 * scenario named in `workerData.scenario` with the real native gate (src/fs/shared/native-gate.ts).
 * `marks` (Int32) records how far it got: [0] set at the end of a section,
 * [1] set by the host to let the thread go on, [2] set inside a second section.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { nativeSection } from '../../src/fs/shared/native-gate.js';

const { scenario, marks, repo } = workerData as { scenario: string; marks: SharedArrayBuffer; repo: string };
const m = new Int32Array(marks);
const busy = (ms: number): void => {
    const end = Date.now() + ms;
    while (Date.now() < end);
};

if (scenario === 'long-section') {
    nativeSection(() => {
        parentPort!.postMessage('inside');
        busy(300);
        Atomics.store(m, 0, 1);
    });
    for (;;) busy(10);
} else if (scenario === 'closed-before-section') {
    nativeSection(() => undefined);
    parentPort!.postMessage('ready');
    while (Atomics.load(m, 1) === 0) busy(1);
    nativeSection(() => Atomics.store(m, 2, 1));
    for (;;) busy(10);
} else if (scenario === 'load-koffi') {
    nativeSection(() => {
        parentPort!.postMessage('inside');
        const libc = (createRequire(`${repo}/package.json`)('koffi') as { load(p: null): { func(s: string): unknown } }).load(null);
        for (let i = 0; i < 20; i++) libc.func('int openat(int, const char *, int, int)');
        Atomics.store(m, 0, 1);
    });
    for (;;) busy(10);
} else if (scenario === 'no-section') {
    parentPort!.postMessage('entering');
    for (;;) busy(10);
}
