/**
 * The classes this package uses from its peer `@johannes.latzel/llm-chat` (`Tool`, `ToolPackage`,
 * `ToolParameters`, `ResultStatus`, `ResultBuilder`, `ToolSuite`), loaded from the files of the
 * host's installed copy rather than from its entry point.
 *
 * - Speed: llm-chat's entry also loads its chat service and the `openai` SDK (about 0.25 s);
 *   the tool classes alone load in milliseconds, so a one-shot CLI call starts fast. The files
 *   are the same modules the entry re-exports (same URL, same instance), so a host's
 *   `new ToolSuite().add(pkg)` with its own import sees the same `Tool` class.
 * - A missing peer (installers that skip peers) is an `Error` whose message says what to install,
 *   not `ERR_MODULE_NOT_FOUND`.
 * - Should a later llm-chat move these files, the entry point is loaded instead.
 */
import type * as LlmChat from '@johannes.latzel/llm-chat';

const PEER = '@johannes.latzel/llm-chat';

/** The message when the peer dependency is not installed. */
export const MISSING_PEER_MESSAGE =
    `llm-chat-file needs its peer dependency ${PEER} (^0.7.0), which is not installed ` +
    `(some installers skip peer dependencies). Install it next to llm-chat-file: npm install ${PEER}@^0.7.0`;

function entryUrl(): string {
    try {
        return import.meta.resolve(PEER);
    } catch (err) {
        throw new Error(MISSING_PEER_MESSAGE, { cause: err });
    }
}

const entry = entryUrl();

/** `file` of the installed llm-chat (relative to its entry), or its entry point if that fails. */
async function load<T>(file: string): Promise<T> {
    try {
        return (await import(new URL(file, entry).href)) as T;
    } catch {
        return (await import(entry)) as T;
    }
}

type ToolModule = Pick<typeof LlmChat, 'Tool'>;
type ParameterModule = Pick<typeof LlmChat, 'ToolParameters' | 'ToolParameterProperty'>;
type ResultModule = Pick<typeof LlmChat, 'ResultStatus' | 'ResultBuilder'>;
type PackageModule = Pick<typeof LlmChat, 'ToolPackage'>;

const [toolModule, parameterModule, resultModule, packageModule] = await Promise.all([
    load<ToolModule>('./tools/tool.js'),
    load<ParameterModule>('./tools/parameter.js'),
    load<ResultModule>('./tools/result.js'),
    load<PackageModule>('./tools/package.js'),
]);

export const Tool: typeof LlmChat.Tool = toolModule.Tool;
export type Tool = LlmChat.Tool;
export const ToolParameters: typeof LlmChat.ToolParameters = parameterModule.ToolParameters;
export const ToolParameterProperty: typeof LlmChat.ToolParameterProperty = parameterModule.ToolParameterProperty;
export const ResultStatus: typeof LlmChat.ResultStatus = resultModule.ResultStatus;
export type ResultStatus = LlmChat.ResultStatus;
export const ResultBuilder: typeof LlmChat.ResultBuilder = resultModule.ResultBuilder;
export const ToolPackage: typeof LlmChat.ToolPackage = packageModule.ToolPackage;
export type ToolPackage = LlmChat.ToolPackage;
export type { PartialToolResult, ToolResult } from '@johannes.latzel/llm-chat';

/** llm-chat's `ToolSuite` class (its entry does not export it); loaded on first use. */
export async function loadToolSuiteModule<T>(): Promise<T> {
    return (await import(new URL('./tools/suite.js', entry).href)) as T;
}
