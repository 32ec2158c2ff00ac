import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import { z } from 'zod';
import { AccessType } from '../config/shared/configuration.js';
import { ToolError } from '../errors/shared/errors.js';
import type { WorkspaceView } from '../access/workspace.js';
import { formatOutline } from '../symbols/outline.js';
import { parseFiles } from '../symbols/parse.js';
import { quotePath } from '../print/shared/display.js';
import { ok, type ToolCall } from './base.js';
import { NavigationTool } from './navigation-tool.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { rootsOf } from './shared.js';

const schema = z.strictObject({
    path: arg.path('Source file'),
    depth: z.number().int().min(1).optional().describe('Levels of nesting shown (1: the top level only); default all'),
});

const declaration = declareTool({
    name: 'file_outline',
    title: 'Outline of a source file',
    description:
        'Lists the definitions in a source file (functions, methods, classes, structs, enums, types, macros, constants, file-scope variables) ' +
        'as an indented outline, one per line: "first-last kind name", with the signature line of functions and macros. Syntactic (tree-sitter). ' +
        'Languages: C, C++, JavaScript, TypeScript, TSX, Python, Go, Rust, Java.',
    schema,
    behaviour: { readOnly: true, destructive: false, idempotent: true },
});

/** `file_outline`: a file's definitions, parsed on the worker pool, within `maxCharsPerFile`. */
export class FileOutlineTool extends NavigationTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView, call: ToolCall): Promise<PartialToolResult> {
        // The call answers within the search timeout, a thread's start and the grammar's load included.
        const deadline = Date.now() + this.ctx.searchConfig.timeoutMs;
        const checked = await view.check(args.path, AccessType.Read, this.name);
        const { fileConfig, searchConfig } = this.ctx;
        const [r] = await parseFiles(await this.ctx.engine(), [{ shown: checked.abs, real: checked.real }], {
            realRoots: await rootsOf(view),
            maxBytes: fileConfig.maxFileSize,
            parseMs: searchConfig.timeoutMs,
            deadline,
            ...(call.signal && { signal: call.signal }),
        });
        if (!r!.ok) throw new ToolError(r!.kind, r!.message);
        const lines = formatOutline(r!.definitions, args.depth);
        const head = `--- ${quotePath(checked.abs)} (${r!.language}, ${r!.lines} ${r!.lines === 1 ? 'line' : 'lines'}, ${lines.length} ${lines.length === 1 ? 'definition' : 'definitions'}) ---`;
        if (lines.length === 0) return ok(`${head}\nNo definitions found.`);
        let out = head;
        let shown = 0;
        for (const line of lines) {
            if (out.length + 1 + line.length > fileConfig.maxCharsPerFile) break;
            out += `\n${line}`;
            shown++;
        }
        if (shown < lines.length) {
            out += `\n[${lines.length - shown} more definitions not shown (limit ${fileConfig.maxCharsPerFile} characters): pass depth: 1 for the top level, or read_file with start_line after line ${r!.definitions[shown]?.line ?? 0}]`;
        }
        return ok(out);
    }
}
