import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * Names of the temporary files the library writes next to a file, and who wrote them.
 *
 * A write leaves two kinds of short-lived file in the target's directory:
 * - `.tmp`: the new content of a new file, renamed into place when complete;
 * - `.bak`: a copy of an existing file's old content, kept while that file is rewritten in place
 *   and removed once the new content is on disk.
 *
 * Their names say which process wrote them: `.<name>.lcf-<pid>-<start>-<12 hex>.<tmp|bak>`, where
 * `<name>` is the target's name cut to 32 characters, `<pid>` the writer's process id and
 * `<start>` its start time (field 22 of `/proc/<pid>/stat`, clock ticks since boot), so that a
 * reused process id is not taken for the writer. The tools never show, search or read such
 * files; a later write in the same directory removes those whose writer is gone (and restores a
 * `.bak` onto its file first: see `fs/secure.ts`).
 */

/** A name the library gives its temporary files. */
const DEBRIS = /^\..*\.lcf-(\d+)-(\d+)-[0-9a-f]{12}\.(tmp|bak)$/s;

/** The kind of temporary file: new content, or the backup of old content. */
export type DebrisKind = 'tmp' | 'bak';

/** True when `name` (an entry name, not a path) is one of the library's temporary files. */
export function isDebrisName(name: string): boolean {
    return DEBRIS.test(name);
}

/** Start time of process `pid` in clock ticks since boot (`/proc/<pid>/stat` field 22), or `undefined`. */
export function startTicks(pid: number | 'self'): string | undefined {
    try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        // Fields after the command name, which is in parentheses and may hold spaces.
        return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    } catch {
        return undefined;
    }
}

let selfStart: string | undefined;

/** This process's start time as {@link startTicks} gives it (`'0'` where it cannot be read). */
export function ownStartTicks(): string {
    return (selfStart ??= startTicks('self') ?? '0');
}

/** A fresh temporary name for a file next to `targetName`. */
export function debrisName(targetName: string, kind: DebrisKind): string {
    return `.${[...targetName].slice(0, 32).join('')}.lcf-${process.pid}-${ownStartTicks()}-${randomBytes(6).toString('hex')}.${kind}`;
}

/**
 * Whether the process that recorded itself as `pid` started at `start` ({@link startTicks}) is
 * gone: no process has that id, or the one that has it now started at another time (a reused id).
 * Limit: a process in another PID namespace is not seen from here.
 */
export function writerGone(pid: number, start: string): boolean {
    if (pid === process.pid) return start !== ownStartTicks();
    try {
        process.kill(pid, 0);
    } catch (err) {
        // EPERM: a process of another user runs under that id; its start time tells whether it is the writer.
        if ((err as { code?: string }).code !== 'EPERM') return true;
    }
    const now = startTicks(pid);
    return now !== undefined && now !== start;
}

/** Whether the temporary file `name` has no live writer ({@link writerGone}). Names that are not the library's: `false`. */
export function isStaleDebris(name: string): boolean {
    const m = DEBRIS.exec(name);
    return m !== null && writerGone(Number(m[1]), m[2]!);
}

/** The kind of a temporary file's name. */
export function debrisKind(name: string): DebrisKind | undefined {
    return DEBRIS.exec(name)?.[3] as DebrisKind | undefined;
}

/** First line of a backup file: a marker and the JSON-quoted name of the file it belongs to. */
export const BACKUP_MAGIC = 'llm-chat-file backup of ';
