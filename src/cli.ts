#!/usr/bin/env node
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AccessType, DirectoryConfiguration, type Access } from './config/configuration.js';
import { runMcpStdio } from './mcp/server.js';
import { FileToolPackage } from './package.js';
import type { FileTool } from './tools/base.js';
import { Workspace } from './workspace.js';

const USAGE = `Usage:
  llm-chat-file <tool> [args-json]    run one tool call and print its results
  llm-chat-file tools                  list the tools with their JSON schemas
  llm-chat-file mcp                    serve the tools over MCP on standard input/output
Options:
  --workspace DIR   the workspace (writable; default: the current directory, or LLM_CHAT_FS_WORKSPACE)
  --write DIR       add a writable directory (repeatable)
  --read DIR        add a read-only directory (repeatable)
  -h, --help        show this help
Arguments are a JSON object, e.g. '{"content_pattern":"TODO"}'; "-" reads them from standard input.
Limits come from LLM_CHAT_FS_* variables (see README). Exit code: 0 when every result succeeded,
1 when a result is an error, 2 for a usage error.
Example: llm-chat-file search_entries '{"content_pattern":"Workspace","max_results":5}'`;

/** Accesses from the command line, or `undefined` to read them from the environment. */
function accessesFrom(values: { workspace?: string; write?: string[]; read?: string[] }): { accesses: Access[]; workspace: string } | undefined {
    if (values.workspace === undefined && values.write === undefined && values.read === undefined) return undefined;
    const workspace = path.resolve(values.workspace ?? process.cwd());
    // Security: never make the whole filesystem writable by accident (a client starting the server in /).
    if (values.workspace === undefined && path.parse(workspace).root === workspace) {
        throw new Error(`Refusing to make the filesystem root (${workspace}) the writable workspace: the current directory is the filesystem root. Pass --workspace DIR.`);
    }
    return {
        workspace,
        accesses: [
            { type: AccessType.Write, path: workspace },
            ...(values.write ?? []).map((p) => ({ type: AccessType.Write, path: p })),
            ...(values.read ?? []).map((p) => ({ type: AccessType.Read, path: p })),
        ],
    };
}

/** Where the command line writes and reads: the process's standard streams, or a caller's (tests run it in process). */
export interface CliIo {
    /** Writes `text` and a newline to standard output. */
    out(text: string): void;
    /** Writes `text` and a newline to standard error. */
    err(text: string): void;
    /** All of standard input, for the arguments `-`. */
    stdin(): string;
}

const processIo: CliIo = { out: (text) => console.log(text), err: (text) => console.error(text), stdin: () => readFileSync(0, 'utf8') };

/**
 * Runs the command line on `argv` (the arguments after the program name) and returns the exit
 * code: 0 when every result succeeded, 1 when a result is an error, 2 for a usage error. Never
 * rejects. The `mcp` command serves on the process's own standard input and output.
 */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
    try {
        return await run(argv, io);
    } catch (err) {
        io.err(err instanceof Error ? err.message : String(err));
        return 2;
    }
}

async function run(argv: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
            workspace: { type: 'string' },
            write: { type: 'string', multiple: true },
            read: { type: 'string', multiple: true },
            help: { type: 'boolean', short: 'h' },
        },
    });
    const [command, rawArgs] = positionals;
    if (values.help === true || command === undefined) {
        io.out(USAGE);
        return command === undefined && values.help !== true ? 2 : 0;
    }
    const explicit = accessesFrom(values);
    const config = explicit ? new DirectoryConfiguration(explicit.accesses, undefined, undefined, explicit.workspace) : new DirectoryConfiguration();
    const pkg = new FileToolPackage(new Workspace(config));
    if (command === 'mcp') {
        // Standard output belongs to the protocol from here on; runMcpStdio closes the package.
        return await runMcpStdio(pkg);
    }
    try {
        if (command === 'tools') {
            const list = pkg.tools().map((t) => ({ name: t.name, description: t.description, parameters: (t as FileTool<never>).jsonSchema() }));
            io.out(JSON.stringify(list, null, 2));
            return 0;
        }
        const tool = pkg.tools().find((t) => t.name === command);
        if (!tool) {
            io.err(`Unknown tool or command: ${command}. Tools: ${pkg.tools().map((t) => t.name).join(', ')}`);
            return 2;
        }
        const text = rawArgs === '-' ? io.stdin() : (rawArgs ?? '{}');
        let args: unknown;
        try {
            args = JSON.parse(text);
        } catch (err) {
            io.err(`Arguments are not valid JSON: ${(err as Error).message}`);
            return 2;
        }
        const results = await tool.execute(args as Record<string, unknown>);
        let failed = false;
        results.forEach((r, i) => {
            if (i > 0) io.out('');
            if (r.status === 'error') failed = true;
            io.out(r.status === 'error' ? `Error: ${r.result}` : r.result);
        });
        return failed ? 1 : 0;
    } finally {
        await pkg.close();
    }
}

// Run when started as a program (the bin is a symlink to this file), not when imported.
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
    void main(process.argv.slice(2)).then((code) => {
        process.exitCode = code;
    });
}
