#!/usr/bin/env node
/**
 * The `llm-chat-file` executable: runs `main` (src/hosts/cli/main.ts) with the process's
 * arguments and streams and sets the exit code. Importing this module runs nothing.
 *
 * Memory: the MCP server caps the C heap's arenas before anything else loads, while the process
 * has one thread arena (the module loader's): every module loaded gives the runtime's threads
 * the chance to take arenas of their own, which the server's threads would then share among
 * themselves and keep (src/engine/malloc-arenas.ts). So this module imports no other of the
 * package's but that one (which imports only `node:module`), and loads the rest only once the
 * cap is set. It also keeps its main thread's young generation at its first size
 * (release-memory.ts).
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { limitMallocArenas, SERVER_MALLOC_ARENAS } from './engine/malloc-arenas.js';

// Run when started as a program (the bin is a symlink to this file), not when imported.
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
    const argv = process.argv.slice(2);
    // The `mcp` command, told apart before the command line is parsed (an argument `mcp` of
    // another command, such as a directory's name, caps a short-lived process's arenas too).
    if (argv.includes('mcp')) {
        limitMallocArenas(SERVER_MALLOC_ARENAS);
        (await import('./engine/release-memory.js')).keepMainYoungGenerationSmall();
    }
    const { main } = await import('./hosts/cli/main.js');
    process.exitCode = await main(argv);
}
