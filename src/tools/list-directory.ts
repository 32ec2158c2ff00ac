import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import { z } from 'zod';
import { AccessType } from '../config/configuration.js';
import { causeOf, errorCode, errors, ToolError } from '../errors.js';
import { isDebrisName } from '../fs/debris.js';
import { DirectoryCursor, holdDirectory } from '../fs/secure.js';
import type { WorkspaceView } from '../workspace.js';
import { FileTool, ok } from './base.js';
import { declareTool } from './catalog.js';
import { arg } from './schema.js';
import { byCodePoint, childPrefix, quotePath } from './display.js';
import { rootsOf } from './shared.js';
import { sortInTurns, Turns } from '../turns.js';

const schema = z.strictObject({
    path: arg.path('Directory path'),
    recursive: z.boolean().optional().describe('Set to true for recursive depth-first listing'),
    offset: arg.offset('Entries to skip, for the next page of a listing cut at maxDisplayEntries (default 0; same order every time)'),
});

const declaration = declareTool({
    name: 'list_directory',
    title: 'List a directory',
    description: 'Lists files and directories in a path. Directories are suffixed with /.',
    schema,
    behaviour: { readOnly: true, destructive: false, idempotent: true },
});

/**
 * `list_directory`: entries of a directory, one per line, sorted by name; directories end with
 * `/`. Recursive listings are depth-first and skip `skipDirs`; symlinks are listed, never
 * followed. Paths are workspace-relative inside the workspace, absolute outside it. Above
 * `maxDisplayEntries` lines the listing is cut with a note saying how to get the next page
 * (`offset`); a recursive walk above `maxTotalEntries` entries is an error saying how to narrow
 * it. A non-recursive listing is one directory read, whatever its size: it shows the first
 * entries and the total.
 */
export class ListDirectoryTool extends FileTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView): Promise<PartialToolResult> {
        const checked = await view.check(args.path, AccessType.Read, this.name);
        const st = await fs.stat(checked.real).catch((err: unknown) => {
            throw errors.statFailed('Directory', err, checked.real, checked.abs);
        });
        if (!st.isDirectory()) throw errors.wrongType(checked.abs, 'directory', 'file');
        const { maxDisplayEntries, maxTotalEntries } = this.ctx.searchConfig;
        const prefix = childPrefix(checked.display);
        const skip = new Set(view.skipDirs);
        const lines: string[] = [];
        const offset = args.offset ?? 0;
        let total = 0;
        const skipped: string[] = [];
        const turns = new Turns();

        // Security: every directory is read through a descriptor opened without following links,
        // so a directory swapped for a link to outside after the check lists nothing outside.
        // The cursor holds at most two descriptors at any depth.
        const walk = async (dir: DirectoryCursor, rel: string): Promise<void> => {
            let entries: Dirent[];
            try {
                entries = await readEntries(dir.path);
            } catch (err) {
                if (rel === '') throw err;
                skipped.push(`${quotePath(`${prefix}${rel}`)} (${reasonOf(err)})`);
                return;
            }
            await sortInTurns(entries, (a, b) => byCodePoint(a.name, b.name), turns);
            for (const e of entries) {
                // Perf: a long listing gives the host's event loop a turn every few milliseconds.
                if (turns.due) await turns.yield();
                // The temporary files of this library's own writes are never shown.
                if (isDebrisName(e.name)) continue;
                total++;
                // A non-recursive listing has read its one directory already: it is cut for display only.
                if (args.recursive === true && total > maxTotalEntries) {
                    throw new ToolError(
                        'too_large',
                        `Listing stopped after ${maxTotalEntries} entries: raise maxTotalEntries (LLM_CHAT_FS_MAX_TOTAL_ENTRIES), or narrow the call: list a subdirectory, list without recursive, or use search_entries with name_pattern to find specific entries.`,
                    );
                }
                const relPath = rel === '' ? e.name : `${rel}/${e.name}`;
                if (total > offset && lines.length < maxDisplayEntries) lines.push(quotePath(`${prefix}${relPath}${e.isDirectory() ? '/' : ''}`));
                if (args.recursive === true && e.isDirectory() && !skip.has(e.name)) {
                    try {
                        await dir.descend(e.name);
                    } catch (err) {
                        skipped.push(`${quotePath(`${prefix}${relPath}`)} (${reasonOf(err)})`);
                        continue;
                    }
                    try {
                        await walk(dir, relPath);
                    } finally {
                        await dir.ascend();
                    }
                }
            }
        };
        const root = DirectoryCursor.at(await holdDirectory(checked.abs, checked.real, await rootsOf(view), AccessType.Read));
        try {
            await walk(root, '');
        } finally {
            await root.close();
        }
        if (total === 0) return ok(`(empty directory: ${quotePath(checked.display)})`);
        const next = offset + lines.length;
        if (offset >= total && offset > 0) {
            lines.push(`[offset ${offset} is past the last entry: ${quotePath(checked.display)} has ${total} entries${args.recursive === true ? ' (recursively)' : ''}.]`);
        } else if (offset > 0) {
            lines.push(
                `[Showing entries ${offset + 1}-${next} of ${total} (offset = ${offset}; maxDisplayEntries, LLM_CHAT_FS_MAX_DISPLAY_ENTRIES). ` +
                    (next < total ? `For the next page, call again with offset=${next}.]` : 'This is the last page.]'),
            );
        } else if (total > lines.length) {
            lines.push(
                `[Showing ${lines.length} of ${total} entries (maxDisplayEntries, LLM_CHAT_FS_MAX_DISPLAY_ENTRIES). List a subdirectory or use search_entries to narrow; ` +
                    `for the next page, call again with offset=${next}.]`,
            );
        }
        if (skipped.length > 0) lines.push(`[Skipped ${skipped.length} unreadable directories: ${skipped.slice(0, 5).join(', ')}]`);
        return ok(lines.join('\n'));
    }
}

/** Why a directory could not be listed, in a few words (`permission denied`, `too many open files (see ulimit -n)`). */
function reasonOf(err: unknown): string {
    if (err instanceof ToolError) return err.message;
    const code = errorCode(err);
    return causeOf(code) ?? (code === 'ENOENT' ? 'vanished' : (code ?? String(err)));
}

/**
 * The entries of a directory, unsorted. Perf: read in batches of {@link READ_BATCH} through
 * `fs.opendir`, one event-loop turn each; `fs.readdir` of a folder of 100,000 entries made all
 * their Dirent objects in one turn, blocking the host's event loop for 120-265 ms
 * (bench/event-loop.ts, load average ~18 on 2 cores).
 */
async function readEntries(dirPath: string): Promise<Dirent[]> {
    const dir = await fs.opendir(dirPath, { bufferSize: READ_BATCH });
    const out: Dirent[] = [];
    // The iterator closes the directory when it ends or fails.
    for await (const e of dir) out.push(e);
    return out;
}

/** Entries read per `fs.opendir` batch. */
const READ_BATCH = 512;
