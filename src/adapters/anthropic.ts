import type { FileToolPackage } from '../package.js';
import { inputSchemaOf } from './run.js';

/** One tool for the Anthropic Messages API (`tools[]`). */
export interface AnthropicTool {
    name: string;
    description: string;
    /** The tool's JSON schema. */
    input_schema: { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [keyword: string]: unknown };
}

/**
 * The package's tools for the Anthropic Messages API, `{ name, description, input_schema }`, in
 * the package's order: `client.messages.create({ tools: anthropicTools(pkg), ... })`. Run each
 * `tool_use` block with {@link createDispatcher} (`dispatch(block.name, JSON.stringify(block.input))`).
 */
export function anthropicTools(pkg: FileToolPackage): AnthropicTool[] {
    return pkg.tools().map((t) => ({ name: t.name, description: t.description, input_schema: { ...inputSchemaOf(t), type: 'object' as const } }));
}
