/**
 * src/common/fs/fd-ledger.ts: a worker thread notes the descriptors it holds open natively as a
 * stack in its row of the ledger; once it has exited, the engine closes exactly those still
 * noted. Run in a real worker thread (the main thread, id 0, never claims a row), on real
 * descriptors of a temporary file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { createLedger, LEDGER_DEPTH, releaseThread } from '../src/common/fs/fd-ledger.js';
import { tempDir } from './helpers.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Runs `body` (JavaScript, with `claimSlot`, `ledger` and `fds` in scope) in a worker thread; resolves with its thread id and what it posted. */
async function inWorker(ledger: SharedArrayBuffer, fds: number[], body: string): Promise<{ id: number; posted: unknown }> {
    // The built module (npm test builds dist first), as the engine's pool threads load it.
    const module = path.join(REPO, 'dist/src/common/fs/fd-ledger.js');
    const code = `
        const { parentPort, workerData } = require('node:worker_threads');
        import(${JSON.stringify(module)}).then(({ claimSlot }) => {
            const { ledger, fds } = workerData;
            ${body}
        });`;
    const w = new Worker(code, { eval: true, workerData: { ledger, fds } });
    const posted = await new Promise<unknown>((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
    });
    const id = w.threadId;
    await new Promise((r) => w.once('exit', r));
    return { id, posted };
}

const isOpen = (fd: number): boolean => {
    try {
        fs.fstatSync(fd);
        return true;
    } catch {
        return false;
    }
};

describe('descriptor ledger', () => {
    it('closes the descriptors an exited worker still noted, and no others', async () => {
        const file = path.join(tempDir('lcf-ledger-'), 'f.txt');
        fs.writeFileSync(file, 'x\n');
        const fds = [fs.openSync(file, 'r'), fs.openSync(file, 'r'), fs.openSync(file, 'r')];
        const ledger = createLedger();
        // Three noted, the last one cleared (as before closing it): two stay noted.
        const { id, posted } = await inWorker(ledger, fds, `
            const slot = claimSlot(ledger);
            for (const fd of fds) slot.opened(fd);
            slot.closing();
            parentPort.postMessage(slot.full);`);
        expect(posted).toBe(false);
        expect(fds.map(isOpen)).toEqual([true, true, true]);
        expect(releaseThread(ledger, id)).toBe(2);
        expect(fds.map(isOpen)).toEqual([false, false, true]);
        // The row is free again and holds nothing: a second release closes nothing.
        expect(releaseThread(ledger, id)).toBe(0);
        fs.closeSync(fds[2]!);
    });

    it('takes at most LEDGER_DEPTH descriptors per thread, and refuses one more', async () => {
        const ledger = createLedger();
        const { id, posted } = await inWorker(ledger, [], `
            const slot = claimSlot(ledger);
            // Numbers no descriptor of this process has: closing them at release fails harmlessly.
            for (let i = 0; i < ${LEDGER_DEPTH}; i++) slot.opened(1_000_000 + i);
            let refused = '';
            try { slot.opened(2_000_000); } catch (err) { refused = err.message; }
            parentPort.postMessage({ full: slot.full, refused });`);
        expect(posted).toEqual({ full: true, refused: 'descriptor ledger: row full' });
        // None of them was open: nothing counts as closed.
        expect(releaseThread(ledger, id)).toBe(0);
    });
});
