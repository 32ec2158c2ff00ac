import type { z } from 'zod';

/**
 * What a tool is: its {@link ToolDeclaration}, made once in the tool's own file
 * (`src/tools/<tool-name>.ts`) with {@link declareTool}. The catalog (catalog.ts) loads the tools'
 * files, so a tool's file takes its declaration from here, never from the catalog.
 */

/**
 * What a tool does to the filesystem, as MCP's tool annotations state it (`readOnlyHint`,
 * `destructiveHint`, `idempotentHint`). Idempotent: a repeat with the same arguments changes
 * nothing more (a repeated delete or move fails and changes nothing; repeated inserts would).
 * Destructive: it may overwrite or remove what exists (meaningless for a read-only tool).
 */
export interface ToolBehaviour {
    readOnly: boolean;
    destructive: boolean;
    idempotent: boolean;
}

/** One tool, declared once: the model sees `name`, `description` and the JSON schema of `schema`; hosts show `title`. */
export interface ToolDeclaration<N extends string = string, S extends z.ZodObject = z.ZodObject> {
    readonly name: N;
    /** A short human-readable name (MCP's `title`). */
    readonly title: string;
    readonly description: string;
    /** The arguments (zod): checked on every call; its JSON schema is what models see. */
    readonly schema: S;
    readonly behaviour: ToolBehaviour;
}

/** A tool's declaration, frozen. The name's literal type ties it to its entry in the catalog's `TOOL_NAMES`. */
export function declareTool<N extends string, S extends z.ZodObject>(declaration: ToolDeclaration<N, S>): ToolDeclaration<N, S> {
    return Object.freeze({ ...declaration, behaviour: Object.freeze({ ...declaration.behaviour }) });
}
