import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ownStartTicks, startTicks, writerGone } from '../fs/shared/debris.js';
import { CREATE_FLAGS, READ_NOFOLLOW_FLAGS } from '../fs/shared/held.js';

/**
 * The build lock of a tree's folder: one builder per tree across processes. The file names its
 * holder by pid, start time (as the write debris does, common/fs/debris.ts) and a token, so that
 * neither a reused pid (another process, or this one in a restarted container) nor a lock left by
 * an earlier object of this process keeps a tree from being built; locks this process holds are
 * known here.
 */

/** Locks this process holds: lock file -> token. A lock naming this process is held only while listed here. */
const heldLocks = new Map<string, string>();

/** What a lock file says of its holder: pid, start time (debris.ts startTicks) and token; a bare pid from earlier versions. */
interface LockRecord {
    pid: number;
    start?: string;
    token?: string;
}

function parseLock(text: string): LockRecord | null {
    if (/^\d+$/.test(text)) return { pid: Number(text) };
    try {
        const r = JSON.parse(text) as Partial<Record<keyof LockRecord, unknown>> | null;
        if (typeof r !== 'object' || r === null || typeof r.start !== 'string' || typeof r.token !== 'string') return null;
        return Number.isSafeInteger(r.pid) ? { pid: r.pid as number, start: r.start, token: r.token } : null;
    } catch {
        return null;
    }
}

/** A clock tick of /proc's start times (USER_HZ, 100 on every Linux the library runs on). */
const TICK_MS = 10;
/** Slack for comparing a start time with a file's time (boot time is in whole seconds, clocks get set). */
const CLOCK_SLACK_MS = 10_000;

/** Whether process `pid` started after `ms` (epoch milliseconds), as far as Linux /proc tells; false when unknown. */
function startedAfter(pid: number, ms: number): boolean {
    try {
        const boot = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
        const ticks = Number(startTicks(pid));
        return boot > 0 && Number.isFinite(ticks) && boot * 1000 + ticks * TICK_MS > ms + CLOCK_SLACK_MS;
    } catch {
        return false;
    }
}

/**
 * Whether the lock `file` (`text`, written at `mtimeMs`) has no live holder: unreadable, its
 * process gone or a reused id (another start time), or this process not holding it. A bare pid
 * has no start time: a process started after the lock was written did not write it.
 */
function staleLock(file: string, text: string, mtimeMs: number): boolean {
    const r = parseLock(text);
    if (r === null || r.pid <= 0) return true;
    // A bare pid is gone only when no process has that id (its current start time given as the writer's).
    if (r.start === undefined) return r.pid === process.pid || writerGone(r.pid, startTicks(r.pid) ?? '') || startedAfter(r.pid, mtimeMs);
    if (r.pid === process.pid && r.start === ownStartTicks()) return heldLocks.get(file) !== r.token;
    return writerGone(r.pid, r.start);
}

/**
 * An exclusive lock file: this process's pid, start time and a token, created whole (a link to a
 * complete temporary file, so no reader sees it empty); a stale lock is taken over. `null` while
 * a live process, or another object of this one, holds it.
 */
export async function takeLock(dir: string, name: string): Promise<{ release: () => Promise<void> } | null> {
    const file = path.join(dir, name);
    for (let attempt = 0; attempt < 3; attempt++) {
        const token = randomBytes(8).toString('hex');
        if (await createWhole(dir, file, JSON.stringify({ pid: process.pid, start: ownStartTicks(), token }))) {
            heldLocks.set(file, token);
            return { release: () => releaseLock(file, token) };
        }
        const st = await fsp.lstat(file).catch(() => null);
        if (st !== null && !st.isFile()) throw new Error(`the build lock ${file} is not a file`);
        const text = st === null ? null : await fsp.readFile(file, { encoding: 'utf8', flag: READ_NOFOLLOW_FLAGS }).catch(() => null);
        if (st === null || text === null) continue;
        if (!staleLock(file, text.trim(), st.mtimeMs)) return null;
        await removeIfSame(dir, file, text);
    }
    return null;
}

/** Creates `file` holding `text`, whole; false when it exists. */
async function createWhole(dir: string, file: string, text: string): Promise<boolean> {
    const tmp = path.join(dir, `build.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    await fsp.writeFile(tmp, text, { mode: 0o600, flag: 'wx' });
    try {
        await fsp.link(tmp, file);
        return true;
    } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') return false;
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
    } finally {
        await fsp.rm(tmp, { force: true }).catch(() => undefined);
    }
    // A filesystem without hard links: created, then written (a reader may see it empty meanwhile).
    return fsp.writeFile(file, text, { mode: 0o600, flag: CREATE_FLAGS }).then(
        () => true,
        (err: NodeJS.ErrnoException) => (err.code === 'EEXIST' ? false : Promise.reject(err)),
    );
}

/**
 * Removes the stale lock `file` if it still says `text`: renamed away first, and put back when
 * another process replaced it meanwhile (that one is not stale).
 */
async function removeIfSame(dir: string, file: string, text: string): Promise<void> {
    const claim = path.join(dir, `build.${process.pid}.${randomBytes(4).toString('hex')}.stale.tmp`);
    if (!(await fsp.rename(file, claim).then(() => true, () => false))) return;
    const now = await fsp.readFile(claim, { encoding: 'utf8', flag: READ_NOFOLLOW_FLAGS }).catch(() => null);
    if (now !== text) await fsp.link(claim, file).catch(() => undefined);
    await fsp.rm(claim, { force: true }).catch(() => undefined);
}

/** Releases this process's lock `file` (best effort): removed only while it still holds `token` (not when taken over meanwhile). */
async function releaseLock(file: string, token: string): Promise<void> {
    if (heldLocks.get(file) === token) heldLocks.delete(file);
    const text = await fsp.readFile(file, { encoding: 'utf8', flag: READ_NOFOLLOW_FLAGS }).catch(() => null);
    if (text !== null && parseLock(text.trim())?.token === token) await fsp.rm(file, { force: true }).catch(() => undefined);
}
