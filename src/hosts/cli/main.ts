/**
 * The `llm-chat-file` command, callable in process: `main(argv, io)` returns the exit code.
 * `src/cli.ts` is the executable that calls it with the process's arguments and streams.
 *
 * Start-up cost: this module loads only Node built-ins; the tools are loaded when a tool or
 * `tools` command runs, the MCP SDK only for `mcp`.
 */
import { envBoolean } from '../../config/shared/env.js';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AccessType, DirectoryConfiguration, FileConfiguration, SearchConfiguration, type Access } from '../../config/shared/configuration.js';
import { EXIT_CODES, type ToolErrorKind } from '../../errors/shared/errors.js';
import { describePart, textOfParts, type BinaryPart, type ContentPart } from '../../content/parts.js';
import { imageSaver } from './save-images.js';
import { reportIndexFailures } from './index-failures.js';
import type { Tool } from '../../tools/llm-chat.js';

/** `1 io, 3 invalid_argument, ...`: the exit codes by kind, in order. */
function exitCodeList(): string {
    return (Object.entries(EXIT_CODES) as [ToolErrorKind, number][])
        .sort((a, b) => a[1] - b[1])
        .map(([kind, code]) => `${code} ${kind}`)
        .join(', ');
}

export const USAGE = `Usage:
  llm-chat-file [options] <tool> [args-json]   run one tool call and print its results
  llm-chat-file [options] tools                 list the tools with their JSON schemas
  llm-chat-file [options] mcp                   serve the tools over MCP on standard input/output
Options:
  --workspace DIR   a writable directory that is the workspace
  --write DIR       a writable directory (repeatable)
  --read DIR        a read-only directory (repeatable)
  --roots           mcp: use the client's roots as writable directories when it offers any
  --save-images DIR write each image of the results to a new file in DIR and print its path
  -h, --help        show this help
Directories: the tools may use exactly the directories named by --workspace, --write and --read
(the workspace is --workspace, else the first --write, else the first --read). When none is
named, the LLM_CHAT_FS_WORKSPACE, LLM_CHAT_FS_WRITE_DIRS and LLM_CHAT_FS_READ_DIRS variables
apply, and when those are unset too, the current directory is the writable workspace.
Arguments are a JSON object, e.g. '{"content_pattern":"TODO"}'; "-" reads them from standard input.
Limits come from LLM_CHAT_FS_* variables (see README). The search index: LLM_CHAT_FS_INDEX (on for
mcp unless false, off for tool calls unless true), LLM_CHAT_FS_INDEX_DIR (where it is kept),
LLM_CHAT_FS_INDEX_SYMBOLS (true: a symbol table for find_symbol); LLM_CHAT_FS_NAVIGATION=false
leaves out the code-navigation tools. Exit code: 0 when every result succeeded,
2 for a usage error; when a result is an error, the code of the kind of the first failed one:
${exitCodeList()}.
Example: llm-chat-file search_entries '{"content_pattern":"Workspace","max_results":5}'`;

/** Where the command line writes and reads: the process's standard streams, or a caller's (tests run it in process). */
export interface CliIo {
    /** Writes `text` and a newline to standard output. */
    out(text: string): void;
    /** Writes `text` and a newline to standard error. */
    err(text: string): void;
    /** All of standard input, for the arguments `-`. */
    stdin(): string;
    /**
     * The directory relative directory options resolve against (default: the process's). With no
     * directory named, the implicit workspace is the process's current directory (as for
     * `new DirectoryConfiguration()`).
     */
    cwd?: string;
}

/** A reader that stops early (`| head`, `| grep -m1`) closes the pipe: end quietly, as rg and grep do. */
let pipeWatched = false;
function writeOut(text: string): void {
    if (!pipeWatched) {
        pipeWatched = true;
        process.stdout.on('error', (err: NodeJS.ErrnoException) => {
            if (err.code === 'EPIPE') process.exit(0);
            throw err;
        });
    }
    process.stdout.write(`${text}\n`);
}

const processIo: CliIo = {
    out: writeOut,
    err: (text) => process.stderr.write(`${text}\n`),
    stdin: () => readFileSync(0, 'utf8'),
};

/** A wrong command line: reported with exit code 2. */
export class UsageError extends Error {}

/** The directory options of a command line. */
export interface DirectoryOptions {
    workspace?: string;
    write?: string[];
    read?: string[];
}

/**
 * The accesses the directory options name, exactly those (no implicit current directory), and
 * the workspace; `undefined` when no directory is named (then the environment decides).
 * @throws UsageError when a named directory does not exist or is not a directory.
 */
export function namedAccesses(options: DirectoryOptions, cwd: string): { accesses: Access[]; workspace: string } | undefined {
    const named: Access[] = [
        ...(options.workspace !== undefined ? [{ type: AccessType.Write, path: options.workspace, flag: '--workspace' }] : []),
        ...(options.write ?? []).map((p) => ({ type: AccessType.Write, path: p, flag: '--write' })),
        ...(options.read ?? []).map((p) => ({ type: AccessType.Read, path: p, flag: '--read' })),
    ].map(({ type, path: p, flag }) => ({ type, path: checkDirectory(flag, p, cwd) }));
    if (named.length === 0) return undefined;
    return { accesses: named, workspace: named[0]!.path };
}

function checkDirectory(flag: string, dir: string, cwd: string): string {
    if (dir.trim() === '') throw new UsageError(`${flag} needs a directory; got an empty string.`);
    const abs = path.resolve(cwd, dir);
    let stat;
    try {
        stat = statSync(abs);
    } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        throw new UsageError(`${flag} ${dir}: ${code === 'ENOENT' ? 'no such directory' : `cannot be used (${code ?? String(err)})`}. Name an existing directory.`);
    }
    if (!stat.isDirectory()) throw new UsageError(`${flag} ${dir}: not a directory. Name a directory, not a file.`);
    return abs;
}

/** The options and positionals of a command line. */
export interface ParsedCommandLine {
    options: DirectoryOptions & { roots: boolean; help: boolean; saveImages?: string };
    command: string | undefined;
    /** The tool call's JSON arguments (or `-`), for a tool command. */
    rawArgs: string | undefined;
}

/** Parses `argv` (without the node and script paths). @throws UsageError */
export function parseCommandLine(argv: string[]): ParsedCommandLine {
    let parsed;
    try {
        parsed = parseArgs({
            args: argv,
            allowPositionals: true,
            strict: true,
            options: {
                workspace: { type: 'string' },
                write: { type: 'string', multiple: true },
                read: { type: 'string', multiple: true },
                roots: { type: 'boolean' },
                'save-images': { type: 'string' },
                help: { type: 'boolean', short: 'h' },
            },
        });
    } catch (err) {
        throw new UsageError((err as Error).message);
    }
    const { values, positionals } = parsed;
    const [command, rawArgs, ...extra] = positionals;
    const takesArgs = command !== undefined && command !== 'tools' && command !== 'mcp';
    const unexpected = takesArgs ? extra : positionals.slice(1);
    if (unexpected.length > 0) {
        throw new UsageError(
            `Unexpected argument${unexpected.length > 1 ? 's' : ''}: ${unexpected.map((a) => JSON.stringify(a)).join(' ')}. ` +
                (takesArgs ? 'A tool takes one JSON object of arguments; quote it as one argument.' : `${command} takes no arguments.`),
        );
    }
    if (values.roots === true && command !== 'mcp') throw new UsageError('--roots applies to the mcp command only.');
    if (values['save-images'] !== undefined && !takesArgs) throw new UsageError('--save-images applies to a tool call only.');
    const options: ParsedCommandLine['options'] = { roots: values.roots === true, help: values.help === true };
    if (values.workspace !== undefined) options.workspace = values.workspace;
    if (values.write !== undefined) options.write = values.write;
    if (values.read !== undefined) options.read = values.read;
    if (values['save-images'] !== undefined) options.saveImages = values['save-images'];
    return { options, command, rawArgs: takesArgs ? rawArgs : undefined };
}

function directoryConfiguration(options: DirectoryOptions, cwd: string): DirectoryConfiguration {
    const named = namedAccesses(options, cwd);
    return named ? new DirectoryConfiguration(named.accesses, undefined, undefined, named.workspace) : new DirectoryConfiguration();
}

/**
 * What the command line prints of one result's parts: text as it is, and a one-line summary
 * for each image or binary resource (`[image image/png, 12,345 bytes]`).
 */
export function printedText(parts: readonly ContentPart[], line: (part: BinaryPart) => string = (p) => `[${describePart(p)}]`): string {
    return textOfParts(parts, line);
}

/**
 * Runs the command line `argv` (without the node and script paths).
 * @returns the exit code: 0 when every result succeeded; when a result is an error, the code of
 *   the kind of the first failed one ({@link EXIT_CODES}: 1 for `io`, 3 and up for the others); 1
 *   when every result succeeded but an image could not be written (`--save-images`); 2 for a
 *   usage error (bad option, missing or non-directory directory, extra argument, unknown tool,
 *   arguments that are not JSON) or a configuration error (an invalid `LLM_CHAT_FS_*` variable,
 *   the peer dependency missing), written to `io.err`. Never rejects. The `mcp` command serves
 *   on the process's own standard input and output.
 */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
    try {
        return await run(argv, io);
    } catch (err) {
        io.err(`llm-chat-file: ${err instanceof Error ? err.message : String(err)}`);
        return 2;
    }
}

async function run(argv: string[], io: CliIo): Promise<number> {
    let cmd: ParsedCommandLine;
    let config: DirectoryConfiguration;
    try {
        cmd = parseCommandLine(argv);
        if (cmd.options.help || cmd.command === undefined) {
            io.out(USAGE);
            return cmd.options.help ? 0 : 2;
        }
        config = directoryConfiguration(cmd.options, io.cwd ?? process.cwd());
    } catch (err) {
        if (!(err instanceof UsageError)) throw err;
        io.err(`llm-chat-file: ${err.message}`);
        io.err('Run llm-chat-file --help for the usage.');
        return 2;
    }
    const { Workspace } = await import('../../access/workspace.js');
    const workspace = new Workspace(config);
    if (cmd.command === 'mcp') {
        // The MCP SDK loads only for `mcp`, alongside the tools.
        const mcp = await import('../mcp/server.js');
        // Configuration errors (an invalid LLM_CHAT_FS_* variable) stop the start-up here, exit code 2.
        const searchConfig = new SearchConfiguration();
        const fileConfig = new FileConfiguration();
        // The MCP server keeps a search index unless LLM_CHAT_FS_INDEX=false (docs/search-index.md).
        const index = envBoolean('LLM_CHAT_FS_INDEX', true);
        // And code navigation unless LLM_CHAT_FS_NAVIGATION=false.
        const navigation = envBoolean('LLM_CHAT_FS_NAVIGATION', true);
        // Read here, not where the index is built after `initialize`, so that it fails as the others do.
        const symbols = envBoolean('LLM_CHAT_FS_INDEX_SYMBOLS', false);
        // Start-up: the server answers `initialize` first and loads the tools right after
        // connecting. Standard output belongs to the protocol from here on; runMcpStdio closes the package.
        const loadPackage = async (): Promise<import('../../package/package.js').FileToolPackage> => {
            const pkg = new (await import('../../package/package.js')).FileToolPackage(workspace, { searchConfig, fileConfig, index: index && { symbols }, navigation });
            reportIndexFailures(pkg, (line) => io.err(line));
            return pkg;
        };
        return await mcp.runMcpStdio(loadPackage, { roots: cmd.options.roots });
    }
    const { isToolName, loadToolClass, loadToolClasses, NAVIGATION_TOOL_NAMES, REFERENCE_TOOL_NAMES } = await import('../../tools/catalog.js');
    // The reference's tools, and code navigation's unless LLM_CHAT_FS_NAVIGATION=false (as in the MCP server).
    const navigation = envBoolean('LLM_CHAT_FS_NAVIGATION', true);
    // Read with the index off too, so that an invalid value stops the call as it stops the MCP server.
    envBoolean('LLM_CHAT_FS_INDEX_SYMBOLS', false);
    const names = [...REFERENCE_TOOL_NAMES, ...(navigation ? NAVIGATION_TOOL_NAMES : [])];
    if (cmd.command === 'tools') {
        const [classes, { inputSchemaOf }] = await Promise.all([loadToolClasses(names), import('../adapters/run.js')]);
        const list = classes.map((Tool) => new Tool(workspace)).map((t) => ({ name: t.name, description: t.description, parameters: inputSchemaOf(t) }));
        io.out(JSON.stringify(list, null, 2));
        return 0;
    }
    const name = cmd.command;
    if (!isToolName(name) || !(names as readonly string[]).includes(name)) {
        io.err(`Unknown tool or command: ${name}. Tools: ${names.join(', ')}`);
        return 2;
    }
    const saver = cmd.options.saveImages === undefined ? undefined : await imageSaver(cmd.options.saveImages, io.cwd ?? process.cwd());
    if (typeof saver === 'string') {
        io.err(`llm-chat-file: ${saver}`);
        return 2;
    }
    const text = cmd.rawArgs === '-' ? io.stdin() : (cmd.rawArgs ?? '{}');
    let args: unknown;
    try {
        args = JSON.parse(text);
    } catch (err) {
        io.err(`Arguments are not valid JSON: ${(err as Error).message}`);
        return 2;
    }
    // Start-up: a call loads its one tool (src/tools/catalog.ts), and the worker-pool engine only
    // if the call needs it; with the search index on, the package that keeps it.
    const [{ runTool, resultParts }, base] = await Promise.all([import('../adapters/run.js'), import('../../tools/base.js')]);
    let tool: Tool;
    let close: () => Promise<void>;
    if (envBoolean('LLM_CHAT_FS_INDEX', false)) {
        const pkg = new (await import('../../package/package.js')).FileToolPackage(workspace, { navigation });
        reportIndexFailures(pkg, (line) => io.err(line));
        tool = pkg.tools().find((t) => t.name === name)!;
        close = () => pkg.close();
    } else {
        tool = new (await loadToolClass(name))(workspace);
        close = base.closeSharedEngine;
    }
    try {
        const results = await runTool(tool, args as Record<string, unknown>);
        results.forEach((r, i) => {
            if (i > 0) io.out('');
            io.out(printedText(resultParts(r), saver?.line));
        });
        const failed = results.find((r) => r.status === 'error');
        return failed ? EXIT_CODES[failed.kind ?? 'io'] : saver?.failed ? EXIT_CODES.io : 0;
    } finally {
        await close();
    }
}
