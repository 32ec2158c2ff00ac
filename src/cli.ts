#!/usr/bin/env node
/**
 * The `llm-chat-file` executable: runs {@link main} (src/hosts/cli/main.ts) with the process's
 * arguments and streams and sets the exit code. Importing this module runs nothing.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { main } from './hosts/cli/main.js';

export { main, parseCommandLine, UsageError, USAGE, type CliIo } from './hosts/cli/main.js';

// Run when started as a program (the bin is a symlink to this file), not when imported.
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
    void main(process.argv.slice(2)).then((code) => {
        process.exitCode = code;
    });
}
