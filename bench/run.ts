/**
 * `npm run bench -- <command> [flags]`: compiles (tsc, incremental) and runs one benchmark.
 *
 *   suites  [walk,name,content,read] [--tree synthetic|kernel] [--files N] [--iterations 5]
 *           tinybench suites per hot path, peer figures and ratios (the default command)
 *   compare --tree kernel|synthetic [--runs 7] [--only full-scan,name,...] [--no-follow]
 *           [--cold-runs 3] [--rss-threads 2,16]
 *           side-by-side with ripgrep / fd, warm and cold page cache, peak memory per thread
 *           count; Markdown table to bench/results/<tree>-<date>.md
 *   alternation [--runs 7] [--patterns 8] [--seed 1] [--width 2]
 *           alternations of identifiers sampled from the kernel tree against ripgrep, to
 *           bench/results/alternation-<date>.md
 *   event-loop [--runs 3] [--only listing,read-limit,read-200mb,bulk-read,hits]
 *           longest event-loop delay of big tool calls, to bench/results/event-loop-<date>.md
 *   profile phases|walker --tree kernel | profile summarize DIR
 *           where the scan path's CPU time goes per file (see bench/profile.ts)
 *   walkers --tree kernel [--runs 7]
 *           fast-glob (named by the design) vs our walk vs fd
 *   startup [--runs 15] [--cli dist/src/cli.js]
 *           start-up of the one-shot CLI and of the MCP server (to its initialize and tools/list responses)
 *   concurrency [--calls 50] [--rounds 20] [--cli dist/src/cli.js] [--tree DIR]
 *           50 concurrent read_file / search_entries calls to the MCP server: calls/s, p50/p99, peak RSS
 *   planner [--iterations 2000] [--text FILE]
 *           the index's query planner per pattern shape, and the gram split's throughput
 *   index   [--runs 7] [--index-dir DIR] [--reuse] [--corpus-only] [--no-corpus]
 *           the search index on the Linux tree: build, reopen, memory, disk, selective/broad/name
 *           searches against rg and the scan path, the 300-pattern corpus (also `npm run bench:index`)
 *   index-queries [--scale N] [--no-merge] [--max-results N] [--reuse] [--queries 100] [--seed 1] [--runs 3]
 *           [--compare K] [--work DIR] [--keep]
 *           per-query cost of index-answered searches for identifiers sampled with a seed: latency,
 *           posting lookups, candidates, memory; the scan path (outputs compared) and rg beside it;
 *           to bench/results/index-queries[-maxN][-xN]-<date>.md
 *   query-phases --work DIR [--max-results 50] [--queries 100] [--seed 1] [--runs 3]
 *           where the time of an index-answered search goes (before the plan, plan parts, pool
 *           tasks, output), per query, on the index an index-queries --keep run left in DIR
 *   index-bytes --index-dir DIR
 *           where a stored index's bytes go: posting lists by length class (deltas, masks, block
 *           tables), dictionary, checksums, the file table's columns, names and name grams
 *   serving-memory --work DIR [--runs 3]: resident memory of a fresh process serving the index an
 *           index-queries --keep run left in DIR, after its reopen, four searches and 3 s idle
 *   reopen --work DIR [--changed 100] [--runs 3]: a fresh process reopening the index an index-queries
 *           --keep run left in DIR after files changed meanwhile: the tree check against the walk-and-compare
 *   mcp-memory --work DIR [--settle MS]: the MCP server's resident memory serving DIR/tree with its
 *           index in DIR/index, until the index answers, after four searches and 3 s idle
 *   symbols [--corpora c=DIR,python=DIR] [--files 150] [--seed 1]
 *           definitions found by code navigation against Universal Ctags, per language and kind
 *   symbols-index --work DIR [--dir TREE] [--runs 5] [--rebuild]: the index's symbol table on the Linux
 *           tree (build, the event loop's waits during build and load, disk, serving RSS, find_symbol
 *           and find_references medians)
 *   sched-group [--rounds 4] [--seconds 20]: the host's event loop beside SCHED_IDLE work in its own
 *           session (autogroup) and in another, against none
 *   symbols-mcp --work DIR [--dir TREE] [--runs 5]: find_symbol through the MCP server on the
 *           index and table a symbols-index run left in DIR, and the server's resident memory
 *   symbols-outline [--dir TREE] [--lines 5000] [--files 5] [--runs 5]: file_outline without the
 *           index on the Linux tree's C files nearest 5,000 lines; the tools' characters in tools/list
 *   symbols-targets [--work DIR] [--files 150] [--runs 5]: every code-navigation target in one run
 *           (symbols, symbols-outline, symbols-index --rebuild, symbols-mcp, each in its own
 *           process) beside its figure; to bench/results/symbols-targets-<date>.md
 *   encodings [--seeds 4] [--dir TREE]
 *           encoding detectors (the package's jschardet, jschardet, chardet) on generated legacy
 *           files: right %, speed; with --dir, the encoding decision's cost on a tree's text files
 *   media   [--runs 7]
 *           read_file on a 4,000×3,000 JPEG, a 20,000×20,000 PNG bomb, a 300-page PDF and a
 *           notebook of 200 cells: times against the targets, to bench/results/media-<date>.md
 *   rebuild [--scale 1] [--clients 2] [--files 2500] [--seed 1] [--work DIR] [--keep]
 *           rebuilds under continuous searches: a checkout past the rebuild limit with no search,
 *           with clients searching identifiers, with clients scanning; each timed to serving again
 *   churn   [--scale 10] [--searches 6] [--seed 1] [--work DIR] [--keep]
 *           freshness under churn: copies of the Linux tree removed, copied, renamed, checked out;
 *           every search through the index compared with the scan path right after the change
 *   monorepo [--scales 1,10] [--work DIR] [--queries 100] [--skip STEPS] [--small-files 1000000]
 *           every figure of the index at monorepo scale on the Linux tree and N hard-linked copies
 *           (each from its suite above, in its own process), side by side with the targets; to
 *           bench/results/monorepo-<date>.md
 *   tree    [--files 200000] [--seed 1] [--dir PATH] [--force]
 *           generates (or finds) the synthetic tree and prints its manifest
 */
const [command = 'suites', ...rest] = process.argv.slice(2);

const commands: Record<string, () => Promise<unknown>> = {
    suites: async () => (await import('./suites.js')).suitesMain(rest),
    compare: async () => (await import('./compare.js')).compareMain(rest),
    alternation: async () => (await import('./alternation.js')).alternationMain(rest),
    walkers: async () => (await import('./walkers.js')).walkersMain(rest),
    startup: async () => (await import('./startup.js')).startupMain(rest),
    concurrency: async () => (await import('./concurrency.js')).concurrencyMain(rest),
    planner: async () => (await import('./planner.js')).plannerMain(rest),
    index: async () => (await import('./index.js')).indexMain(rest),
    'index-queries': async () => (await import('./index-queries.js')).indexQueriesMain(rest),
    'query-phases': async () => (await import('./query-phases.js')).queryPhasesMain(rest),
    'index-bytes': async () => (await import('./index-bytes.js')).indexBytesMain(rest),
    'serving-memory': async () => (await import('./serving-memory.js')).servingMemoryMain(rest),
    reopen: async () => (await import('./reopen.js')).reopenMain(rest),
    'mcp-memory': async () => (await import('./mcp-memory.js')).mcpMemoryMain(rest),
    churn: async () => (await import('./churn.js')).churnMain(rest),
    rebuild: async () => (await import('./rebuild.js')).rebuildMain(rest),
    symbols: async () => (await import('./symbols.js')).symbolsMain(rest),
    'symbols-index': async () => (await import('./symbols-index.js')).symbolsIndexMain(rest),
    'symbols-mcp': async () => (await import('./symbols-mcp.js')).symbolsMcpMain(rest),
    'symbols-outline': async () => (await import('./symbols-outline.js')).symbolsOutlineMain(rest),
    'symbols-targets': async () => (await import('./symbols-targets.js')).symbolsTargetsMain(rest),
    encodings: async () => (await import('./encodings.js')).encodingsMain(rest),
    media: async () => (await import('./media.js')).mediaMain(rest),
    monorepo: async () => (await import('./monorepo.js')).monorepoMain(rest),
    'event-loop': async () => (await import('./event-loop.js')).eventLoopMain(rest),
    'sched-group': async () => (await import('./sched-group.js')).schedGroupMain(rest),
    profile: async () => (await import('./profile.js')).profileMain(rest),
    tree: async () => {
        const { ensureTree } = await import('./tree.js');
        const { intFlag, benchArgs } = await import('./common.js');
        const { flags } = benchArgs(rest);
        const dir = flags.get('dir');
        const { root, manifest } = await ensureTree({
            files: intFlag(flags, 'files', 200_000),
            seed: intFlag(flags, 'seed', 1),
            ...(dir !== undefined && { dir }),
            force: flags.has('force'),
            log: (s) => console.error(s),
        });
        console.log(root);
        console.log(JSON.stringify(manifest, null, 2));
    },
};

const run = commands[command];
if (!run) {
    console.error(`Unknown bench command ${JSON.stringify(command)}; expected one of: ${Object.keys(commands).join(', ')}.`);
    process.exitCode = 2;
} else {
    run().catch((err: unknown) => {
        console.error(err instanceof Error ? (err.stack ?? err.message) : err);
        process.exitCode = 1;
    });
}
