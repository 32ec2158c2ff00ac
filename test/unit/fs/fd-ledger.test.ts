/**
 * src/fs/shared/fd-ledger.ts: a worker thread notes the descriptors it holds open natively as a
 * stack in its row of the ledger; once it has exited, the engine closes exactly those still
 * noted; past its depth held-at.ts opens through Node's fs. Run in real worker threads from the
 * TypeScript sources (the main thread, id 0, never claims a row), on real descriptors of
 * temporary files and directories.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { createLedger, LEDGER_DEPTH, releaseThread } from '../../../src/fs/shared/fd-ledger.js';
import { tempDir } from '../../support/helpers.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** Where held-at.ts's native layer loads (the held-path project forces it off). */
const NATIVE = process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64') && process.env['LLM_CHAT_FILE_NATIVE_AT'] !== '0';

/** tsx's require hook: the worker loads the TypeScript sources, as the pool's threads do under the tests (pool.ts workerEntry). */
const TSX = createRequire(import.meta.url).resolve('tsx/cjs');

/**
 * Runs `body` (JavaScript, with `claimSlot`, `heldAt`, `ledger`, `fds`, `root` and `post` in
 * scope) in a worker thread given `ledger` as the engine gives it (`workerData.fdLedger`);
 * resolves with its thread id and what it posted first, after the thread has exited (`hold`:
 * the body keeps running until the thread is terminated, as a stuck task does).
 */
async function inWorker(ledger: SharedArrayBuffer, body: string, data: { fds?: number[]; root?: string } = {}, hold = false): Promise<{ id: number; posted: unknown }> {
    const code = `
        const { parentPort, workerData } = require('node:worker_threads');
        const { claimSlot } = require(${JSON.stringify(path.join(REPO, 'src/fs/shared/fd-ledger.ts'))});
        const { heldAt } = require(${JSON.stringify(path.join(REPO, 'workers/fs/held-at.ts'))});
        const { fdLedger: ledger, fds, root } = workerData;
        const post = (m) => parentPort.postMessage(m);
        ${body}`;
    const w = new Worker(code, { eval: true, execArgv: ['--require', TSX], workerData: { fdLedger: ledger, fds: data.fds ?? [], root: data.root ?? '' } });
    const id = w.threadId;
    const exited = new Promise((r) => w.once('exit', r));
    const posted = await new Promise<unknown>((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
    });
    if (hold) await w.terminate();
    await exited;
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
        const { id, posted } = await inWorker(
            ledger,
            `
            const slot = claimSlot(ledger);
            for (const fd of fds) slot.opened(fd);
            slot.closing();
            post(slot.full);`,
            { fds },
        );
        expect(posted).toBe(false);
        expect(fds.map(isOpen)).toEqual([true, true, true]);
        expect(releaseThread(ledger, id)).toBe(2);
        expect(fds.map(isOpen)).toEqual([false, false, true]);
        // The row is free again and holds nothing: a second release closes nothing.
        expect(releaseThread(ledger, id)).toBe(0);
        fs.closeSync(fds[2]!);
    });

    it.skipIf(!NATIVE)('past LEDGER_DEPTH nested opens held-at opens through Node; a worker terminated holding them all leaves none open', async () => {
        let dir = tempDir('lcf-ledger-deep-');
        const root = fs.realpathSync(dir);
        const tree = new Set<string>();
        dir = root;
        for (let i = 0; i < LEDGER_DEPTH + 28; i++) {
            dir = path.join(dir, 'd');
            fs.mkdirSync(dir);
            tree.add(dir);
        }
        const openOnTree = (): number =>
            fs.readdirSync('/proc/self/fd').filter((fd) => {
                try {
                    return tree.has(fs.readlinkSync(`/proc/self/fd/${fd}`));
                } catch {
                    return false;
                }
            }).length;
        const ledger = createLedger();
        // Opens every level nested, reports, then stays busy holding them until terminated (a stuck task).
        const { id, posted } = await inWorker(
            ledger,
            `
            const fs = require('node:fs');
            const at = heldAt();
            const stack = [fs.openSync(root, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY)];
            for (let i = 0; i < ${LEDGER_DEPTH + 28}; i++) stack.push(at.open(stack[stack.length - 1], 'd', fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW));
            post({ kind: at.kind, opened: stack.length - 1, noted: new Int32Array(ledger)[1] });
            for (;;) {}`,
            { root },
            true,
        );
        expect(posted).toEqual({ kind: 'native', opened: LEDGER_DEPTH + 28, noted: LEDGER_DEPTH });
        // Node closed the 28 it opened when the thread ended; the ledger's 72 are closed here.
        expect(releaseThread(ledger, id)).toBe(LEDGER_DEPTH);
        expect(openOnTree()).toBe(0);
    });

    it('with nested opens closed in reverse order, notes nothing once all are closed', async () => {
        const root = fs.realpathSync(tempDir('lcf-ledger-lifo-'));
        fs.mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
        const ledger = createLedger();
        const { id, posted } = await inWorker(
            ledger,
            `
            const fs = require('node:fs');
            const at = heldAt();
            const top = fs.openSync(root, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
            const a = at.open(top, 'a', fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
            const b = at.open(a, 'b', fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
            const noted = new Int32Array(ledger)[1];
            at.close(b);
            at.close(a);
            fs.closeSync(top);
            post({ noted, after: new Int32Array(ledger)[1] });`,
            { root },
        );
        expect(posted).toEqual({ noted: NATIVE ? 2 : 0, after: 0 });
        expect(releaseThread(ledger, id)).toBe(0);
    });

    it('takes at most LEDGER_DEPTH descriptors per thread, and refuses one more', async () => {
        const ledger = createLedger();
        const { id, posted } = await inWorker(ledger, `
            const slot = claimSlot(ledger);
            // Numbers no descriptor of this process has: closing them at release fails harmlessly.
            for (let i = 0; i < ${LEDGER_DEPTH}; i++) slot.opened(1_000_000 + i);
            let refused = '';
            try { slot.opened(2_000_000); } catch (err) { refused = err.message; }
            post({ full: slot.full, refused });`);
        expect(posted).toEqual({ full: true, refused: 'descriptor ledger: row full' });
        // None of them was open: nothing counts as closed.
        expect(releaseThread(ledger, id)).toBe(0);
    });
});
