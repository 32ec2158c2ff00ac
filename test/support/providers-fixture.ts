/** What the provider tests share: a package on a small tree, its tools' JSON schemas, and the keywords a schema uses. */
import type { Schema } from '@google/genai';
import { FileTool } from '../../src/index.js';
import { makePackage, tempDir, writeTree } from './helpers.js';

export function fixture(): { root: string; pkg: ReturnType<typeof makePackage>['pkg'] } {
    const root = tempDir('lcf-providers-');
    writeTree(root, { 'notes.txt': 'alpha\nbeta\nalpha\n', 'src/main.ts': 'export const x = 1; // TODO\n' });
    return { root, pkg: makePackage(root).pkg };
}

export const schemas = (pkg: ReturnType<typeof makePackage>['pkg']): [string, Record<string, unknown>][] =>
    pkg.tools().map((t) => [t.name, (t as FileTool<never>).jsonSchema()]);

/** Every key used anywhere in a schema tree, below `properties` names excluded. */
export function keywords(schema: unknown, into = new Set<string>()): Set<string> {
    if (Array.isArray(schema)) for (const s of schema) keywords(s, into);
    else if (schema !== null && typeof schema === 'object') {
        for (const [k, v] of Object.entries(schema)) {
            if (k === 'enum') {
                into.add(k);
                continue;
            }
            if (k === 'properties') {
                into.add(k);
                for (const p of Object.values(v as object)) keywords(p, into);
                continue;
            }
            into.add(k);
            keywords(v, into);
        }
    }
    return into;
}

/** The fields of @google/genai's `Schema` type, checked exhaustively by the type checker. */
export const GENAI_SCHEMA_FIELDS = {
    anyOf: true,
    default: true,
    description: true,
    enum: true,
    example: true,
    format: true,
    items: true,
    maxItems: true,
    maxLength: true,
    maxProperties: true,
    maximum: true,
    minItems: true,
    minLength: true,
    minProperties: true,
    minimum: true,
    nullable: true,
    pattern: true,
    properties: true,
    propertyOrdering: true,
    required: true,
    title: true,
    type: true,
} satisfies Record<keyof Schema, true>;
