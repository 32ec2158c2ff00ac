import type { FileToolPackage } from '../package.js';
import { geminiSchema } from './schemas.js';
import { inputSchemaOf } from './run.js';

/** One function declaration for the Gemini API (`tools: [{ functionDeclarations }]`). */
export interface GeminiFunctionDeclaration {
    name: string;
    description: string;
    /** The arguments as the API's `Schema` type (see {@link geminiSchema}). */
    parameters: Record<string, unknown>;
}

/**
 * The package's tools as one Gemini tool, `{ functionDeclarations: [...] }`, in the package's
 * order. Pass it in `config.tools` of `@google/genai`'s `models.generateContent` (or the REST
 * API's `tools`): `config: { tools: [geminiTools(pkg)] }`. Run the calls the model makes with
 * {@link createDispatcher} (`dispatch(call.name, JSON.stringify(call.args))`).
 */
export function geminiTools(pkg: FileToolPackage): { functionDeclarations: GeminiFunctionDeclaration[] } {
    return {
        functionDeclarations: pkg.tools().map((t) => ({ name: t.name, description: t.description, parameters: geminiSchema(inputSchemaOf(t)) })),
    };
}
