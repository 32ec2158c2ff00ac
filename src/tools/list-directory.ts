import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import fs from 'node:fs/promises';
import { z } from 'zod';
import { AccessType } from '../config/shared/configuration.js';
import { causeOf, errorCode, errors, ToolError } from '../errors/shared/errors.js';
import { isDebrisName } from '../fs/shared/debris.js';
import { DirectoryCursor, holdDirectory } from '../fs/secure.js';
import type { WorkspaceView } from '../access/workspace.js';
import { FileTool, ok } from './base.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { byCodePoint, childPrefix, quotePath } from '../print/shared/display.js';
import { rootsOf } from './shared.js';
import { joinParts, sortInTurns, Turns } from '../engine/turns.js';
import { Utf16Writer } from '../print/utf16-writer.js';
import { budgetReason, NOTE_RESERVE, OutputBudget } from '../print/budget.js';
import { decodeName, osPath } from '../print/shared/byte-names.js';

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
        const st = await fs.stat(osPath(checked.real)).catch((err: unknown) => {
            throw errors.statFailed('Directory', err, checked.real, checked.abs);
        });
        if (!st.isDirectory()) throw errors.wrongType(checked.abs, 'directory', 'file');
        const { maxDisplayEntries, maxTotalEntries } = this.ctx.searchConfig;
        const prefix = childPrefix(checked.display);
        const skip = new Set(view.skipDirs);
        // Event loop: shown lines are written into blocks of BLOCK_BYTES (see utf16-writer.ts).
        const lines: string[] = [];
        const block = new Utf16Writer();
        let shown = 0;
        const offset = args.offset ?? 0;
        let total = 0;
        const skipped: string[] = [];
        const turns = new Turns();
        // The page also ends where the call's output budget does (src/print/budget.ts).
        const budget = new OutputBudget(this.ctx.fileConfig.maxCharsPerCall);
        budget.reserve(NOTE_RESERVE);

        // Security: every directory is read through a descriptor opened without following links,
        // so a directory swapped for a link to outside after the check lists nothing outside.
        // The cursor holds at most two descriptors at any depth.
        const walk = async (dir: DirectoryCursor, rel: string): Promise<void> => {
            let entries: Entries;
            try {
                entries = await readEntries(dir.path);
            } catch (err) {
                if (rel === '') throw err;
                skipped.push(`${quotePath(`${prefix}${rel}`)} (${reasonOf(err)})`);
                return;
            }
            const { names, dirs } = entries;
            // Sorted as indices (small integers, no heap objects) by name.
            const order = Array.from(names, (_, i) => i);
            await sortInTurns(order, (a, b) => byCodePoint(names[a]!, names[b]!), turns);
            for (const i of order) {
                // Perf: a long listing gives the host's event loop a turn every few milliseconds.
                if (turns.due) await turns.yield();
                const name = names[i]!;
                const isDir = dirs[i] === 1;
                // The temporary files of this library's own writes are never shown.
                if (isDebrisName(name)) continue;
                total++;
                // A non-recursive listing has read its one directory already: it is cut for display only.
                if (args.recursive === true && total > maxTotalEntries) {
                    throw new ToolError(
                        'too_large',
                        `Listing stopped after ${maxTotalEntries} entries: raise maxTotalEntries (LLM_CHAT_FS_MAX_TOTAL_ENTRIES), or narrow the call: list a subdirectory, list without recursive, or use search_entries with name_pattern to find specific entries.`,
                    );
                }
                const relPath = rel === '' ? name : `${rel}/${name}`;
                if (total > offset && shown < maxDisplayEntries) {
                    const line = quotePath(`${prefix}${relPath}${isDir ? '/' : ''}`);
                    if (budget.take(line.length + 1)) {
                        shown++;
                        block.startLine();
                        block.string(line);
                        const full = block.takeFull();
                        if (full !== undefined) lines.push(full);
                    }
                }
                if (args.recursive === true && isDir && !skip.has(name)) {
                    try {
                        await dir.descend(name);
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
        if (block.size > 0) lines.push(block.take());
        if (total === 0) return ok(`(empty directory: ${quotePath(checked.display)})`);
        const next = offset + shown;
        const limit = budget.cut ? budgetReason(this.ctx.fileConfig.maxCharsPerCall) : 'maxDisplayEntries, LLM_CHAT_FS_MAX_DISPLAY_ENTRIES';
        if (offset >= total && offset > 0) {
            lines.push(`[offset ${offset} is past the last entry: ${quotePath(checked.display)} has ${total} entries${args.recursive === true ? ' (recursively)' : ''}.]`);
        } else if (offset > 0) {
            lines.push(
                `[Showing entries ${offset + 1}-${next} of ${total} (offset = ${offset}; ${limit}). ` +
                    (next < total ? `For the next page, call again with offset=${next}.]` : 'This is the last page.]'),
            );
        } else if (total > shown) {
            lines.push(
                `[Showing ${shown} of ${total} entries (${limit}). List a subdirectory or use search_entries to narrow; ` +
                    `for the next page, call again with offset=${next}.]`,
            );
        }
        if (skipped.length > 0) lines.push(`[Skipped ${skipped.length} unreadable directories: ${skipped.slice(0, 5).join(', ')}]`);
        return ok(joinParts(lines, '\n'));
    }
}

/** Why a directory could not be listed, in a few words (`permission denied`, `too many open files (see ulimit -n)`). */
function reasonOf(err: unknown): string {
    if (err instanceof ToolError) return err.message;
    const code = errorCode(err);
    return causeOf(code) ?? (code === 'ENOENT' ? 'vanished' : (code ?? String(err)));
}

/** A directory's entries, unsorted: names, and 1 for a directory (not following links), else 0. */
interface Entries {
    names: string[];
    dirs: Uint8Array;
}

/**
 * The entries of a directory, unsorted. Perf: read in batches of {@link READ_BATCH} through
 * `fs.opendir`, one event-loop turn each; `fs.readdir` of a folder of 100,000 entries would make
 * all their Dirent objects in one turn, blocking the host's event loop for over 100 ms. Only
 * names and kinds are kept: Dirent objects kept alive make the young-generation collections copy
 * them.
 */
async function readEntries(dirPath: string): Promise<Entries> {
    const dir = await fs.opendir(osPath(dirPath), { bufferSize: READ_BATCH });
    const names: string[] = [];
    let lossy = false;
    let dirs = new Uint8Array(64);
    // The iterator closes the directory when it ends or fails.
    for await (const e of dir) {
        if (names.length === dirs.length) {
            const grown = new Uint8Array(dirs.length * 2);
            grown.set(dirs);
            dirs = grown;
        }
        dirs[names.length] = e.isDirectory() ? 1 : 0;
        names.push(e.name);
        lossy ||= e.name.includes('\uFFFD');
    }
    // A name that is not UTF-8 came out with U+FFFD: the listing again as bytes, each name as the
    // library holds it (print/shared/byte-names.ts). Perf: only for such directories.
    if (lossy) {
        const all = await fs.readdir(osPath(dirPath), { encoding: 'buffer', withFileTypes: true });
        return { names: all.map((d) => decodeName(d.name)), dirs: Uint8Array.from(all, (d) => (d.isDirectory() ? 1 : 0)) };
    }
    return { names, dirs };
}

/** Entries read per `fs.opendir` batch. */
const READ_BATCH = 512;
