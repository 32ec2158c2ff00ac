/**
 * Vercel AI SDK adapter (`ai` 6.x, an optional peer dependency). Import it from the subpath
 * `@johannes.latzel/llm-chat-file/ai-sdk`, so that the main entry never loads `ai`.
 */
import { jsonSchema, tool, type Tool } from 'ai';
import type { FileToolPackage } from '../package.js';
import { ToolError } from '../common/errors.js';
import { allFailed, inputSchemaOf, resultText, runTool } from './run.js';

/** One of the package's tools in the AI SDK's format: JSON input, text output. */
export type AiSdkFileTool = Tool<Record<string, unknown>, string>;

/**
 * The package's tools as an AI SDK tool set (`Record<name, Tool>`), ready for
 * `generateText({ model, tools: aiSdkTools(pkg), ... })` or `streamText`.
 *
 * - `inputSchema`: the tool's own JSON schema (via the SDK's `jsonSchema()`); the tool itself
 *   checks the arguments and explains what is wrong, so no second validator runs here.
 * - `execute` returns the tool's text; several results (read_file with several paths) are joined
 *   with a blank line, failed ones prefixed `Error: `.
 * - Errors: when every result of a call is an error, `execute` throws a `ToolError` (an `Error`
 *   whose `kind` is the first result's) whose message is that text (starting with `Error: `).
 *   This is what the SDK expects of a failed tool: it records a `tool-error` part and sends the
 *   message back to the model as an error result, so a multi-step run continues and the model
 *   can correct itself. Call `execute` yourself and you get the rejection.
 * - The SDK's `abortSignal` cancels a long search (through `runTool`, adapters/run.ts).
 */
export function aiSdkTools(pkg: FileToolPackage): Record<string, AiSdkFileTool> {
    const set: Record<string, AiSdkFileTool> = {};
    for (const t of pkg.tools()) {
        set[t.name] = tool<Record<string, unknown>, string>({
            description: t.description,
            inputSchema: jsonSchema<Record<string, unknown>>(inputSchemaOf(t) as Parameters<typeof jsonSchema>[0]),
            execute: async (input, { abortSignal }) => {
                const results = await runTool(t, (input ?? {}) as Record<string, unknown>, abortSignal ? { signal: abortSignal } : {});
                // Several results (one per read_file path) are separated by a blank line.
                const text = results.map(resultText).join('\n\n');
                if (allFailed(results)) throw new ToolError(results[0]!.kind ?? 'io', text);
                return text;
            },
        });
    }
    return set;
}
