import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import { z } from 'zod';
import { AccessType } from '../config/shared/configuration.js';
import { ToolError } from '../errors/shared/errors.js';
import { contentHash } from '../fs/shared/content-hash.js';
import { readRegularFile } from '../fs/secure.js';
import type { WorkspaceView } from '../access/workspace.js';
import { dotted, nameQuery } from '../symbols/names.js';
import type { Definition } from '../symbols/shared/types.js';
import { parseFiles } from '../symbols/parse.js';
import { formatRead, type ReadNotes } from '../text/shared/read-render.js';
import { ok, type ToolCall } from './base.js';
import { NavigationTool } from './navigation-tool.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { rootsOf } from './shared.js';

/** Definitions of the same name shown at most by one call. */
const MAX_SHOWN = 5;

const schema = z.strictObject({
    path: arg.path('Source file'),
    name: z.string().min(1).describe('Name of the definition, or a name path with its containers ("Class/method", "ns::name")'),
});

const declaration = declareTool({
    name: 'read_symbol',
    title: 'Read one definition',
    description:
        "Returns the source of one definition in a file (a function, class, struct, macro, ...) with line numbers, as read_file shows lines, so " +
        'replace_file_lines can follow. name is the definition\'s name or a name path ("Class/method").',
    schema,
    behaviour: { readOnly: true, destructive: false, idempotent: true },
});

/** `read_symbol`: the lines of the definitions named `name` in one file (the read counts for read-before-write). */
export class ReadSymbolTool extends NavigationTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView, call: ToolCall): Promise<PartialToolResult> {
        // The call answers within the search timeout, a thread's start and the grammar's load included.
        const deadline = Date.now() + this.ctx.searchConfig.timeoutMs;
        const query = nameQuery(args.name, false, this.name);
        const checked = await view.check(args.path, AccessType.Read, this.name);
        const { fileConfig, searchConfig } = this.ctx;
        const realRoots = await rootsOf(view);
        const [r] = await parseFiles(await this.ctx.engine(), [{ shown: checked.abs, real: checked.real }], {
            realRoots,
            maxBytes: fileConfig.maxFileSize,
            parseMs: searchConfig.timeoutMs,
            deadline,
            ...(call.signal && { signal: call.signal }),
        });
        if (!r!.ok) throw new ToolError(r!.kind, r!.message);
        const found = r!.definitions.filter((d) => query.matches(d));
        if (found.length === 0) {
            const names = [...new Set(r!.definitions.map(dotted))];
            const some = names.slice(0, 30).join(', ');
            throw new ToolError('not_found', `No definition named ${JSON.stringify(args.name)} in ${checked.abs}${names.length > 0 ? `; its definitions include: ${some}${names.length > 30 ? ', …' : ''}` : ''}.`);
        }
        // The bytes shown are the bytes hashed: a later edit is checked against this read.
        const file = await readRegularFile(checked.abs, checked.real, realRoots, fileConfig.maxFileSize);
        this.ctx.filePool.recordHash(checked.real, contentHash(file.bytes));
        const parts = found.slice(0, MAX_SHOWN).map((d) => {
            const startChar = startInLongLine(file.bytes, d, fileConfig.maxCharsPerFile);
            const body = formatRead(checked.abs, Buffer.from(file.bytes), { start_line: d.line, end_line: d.endLine, line_numbers: true, ...(startChar > 1 && { start_char: startChar }) }, fileConfig.maxCharsPerFile, readFileNotes(d.endLine));
            const from = startChar > 1 ? `\n[Line ${d.line} shown from character ${startChar.toLocaleString('en-US')}, where the definition begins.]` : '';
            return `${d.kind} ${dotted(d)}\n${body}${from}`;
        });
        if (found.length > MAX_SHOWN) parts.push(`[${found.length - MAX_SHOWN} more definitions named ${JSON.stringify(args.name)} not shown: lines ${found.slice(MAX_SHOWN).map((d) => d.line).join(', ')}]`);
        return ok(parts.join('\n'));
    }
}

/**
 * Truncation notes that name read_file: read_symbol takes only a path and a name, so the rest of a
 * long definition is read_file's, up to the definition's last line.
 */
function readFileNotes(endLine: number): ReadNotes {
    return {
        limit: 'maxCharsPerFile',
        resume: (line, char) => `continue with read_file on this path with start_line=${line}${char === undefined ? '' : `, start_char=${char}`} and end_line=${endLine}`,
    };
}

/**
 * Where `d` begins in its first line (1-based, in characters) when that line is longer than the
 * budget and `d` is not at its start (a minified file), found by its signature, which then starts
 * at the definition; 1 otherwise, so the read shows the definition rather than the line's start.
 */
function startInLongLine(bytes: Uint8Array, d: Definition, budget: number): number {
    if (bytes.length <= budget) return 1;
    let from = 0;
    for (let n = 1; n < d.line; n++) {
        from = bytes.indexOf(10, from) + 1;
        if (from === 0) return 1;
    }
    const nl = bytes.indexOf(10, from);
    const to = nl === -1 ? bytes.length : nl;
    if (to - from <= budget) return 1;
    const line = Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString('utf8');
    const head = d.signature.replace(/…$/, '').slice(0, 80);
    const at = head.length === 0 ? -1 : line.indexOf(head);
    return at > 0 ? at + 1 : 1;
}
