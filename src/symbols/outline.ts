import type { Definition } from './shared/types.js';
import { dotted } from './names.js';

/** Kinds whose signature line says more than the name (parameters, a macro's arguments). */
const WITH_SIGNATURE: ReadonlySet<string> = new Set(['function', 'method', 'macro']);

/**
 * A file's definitions as an indented outline, two spaces per level of nesting, each as
 * `first-last kind name` and, for functions, methods and macros, ` — signature line`.
 * `depth` keeps the definitions at most that many levels deep (1: the file's top level).
 */
export function formatOutline(definitions: readonly Definition[], depth: number | undefined): string[] {
    const lines: string[] = [];
    for (const d of definitions) {
        if (depth !== undefined && d.container.length >= depth) continue;
        lines.push(`${'  '.repeat(d.container.length)}${outlineEntry(d, d.name)}`);
    }
    return lines;
}

/** `first-last kind name`, and ` — signature line` for functions, methods and macros. */
export function outlineEntry(d: Definition, name: string): string {
    const range = d.line === d.endLine ? `${d.line}` : `${d.line}-${d.endLine}`;
    const sig = WITH_SIGNATURE.has(d.kind) && d.signature !== '' ? ` — ${d.signature}` : '';
    return `${range} ${d.kind} ${name}${sig}`;
}

/** One definition as search results show it: `path:line: kind container.name — signature`. */
export function formatDefinition(path: string, d: Definition): string {
    return `${path}:${d.line}: ${d.kind} ${dotted(d)} — ${d.signature}`;
}
