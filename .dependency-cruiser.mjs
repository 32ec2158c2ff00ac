/**
 * The import rules of src/ and workers/ (ARCHITECTURE.md, "Import rules"), checked by
 * test/unit/architecture.test.ts; from the command line: `npx depcruise src workers`.
 * Type-only imports count like any other (tsPreCompilationDeps), and so do dynamic imports.
 *
 * A folder of src/ or workers/ is a concern; `shared/` inside a concern of src/ holds what both
 * threads import. The concerns are layered, lowest first: a module imports its own layer and the
 * ones below, never one above (the files at the root of src/ and workers/ are the entry points, on top).
 */

/** src/'s concerns, lowest first. */
export const SRC_LAYERS = ['print', 'errors', 'config', 'text', 'access', 'fs', 'search', 'read', 'engine', 'search-index', 'symbols', 'media', 'content', 'tools', 'package', 'hosts'];
/** workers/'s concerns, lowest first. */
export const WORKER_LAYERS = ['fs', 'pool', 'read', 'search', 'search-index', 'symbols', 'media'];

/** One rule per layer: nothing in it imports a higher layer or an entry point at the root. */
function layerRules(top, layers) {
    return layers.map((name, i) => ({
        name: `upward-from-${top}/${name}`,
        severity: 'error',
        comment: `${top}/${name}/ is below ${[...layers.slice(i + 1), 'the entry points'].join(', ')}: it never imports them (move what both need down, or invert the call through an interface).`,
        from: { path: `^${top}/${name}/` },
        to: { path: [...layers.slice(i + 1).map((h) => `^${top}/${h}/`), `^${top}/[^/]+$`] },
    }));
}

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
    forbidden: [
        {
            name: 'worker-imports-host',
            severity: 'error',
            comment:
                'Worker code runs in the pool threads and never imports host code: from src/ only a concern\'s shared/ folder, which both threads import.',
            from: { path: '^workers/' },
            to: { path: '^src/', pathNot: '^src/[^/]+/shared/' },
        },
        {
            name: 'shared-imports-host',
            severity: 'error',
            comment:
                'A shared/ folder is loaded by the worker threads too: it imports only shared/ folders, node: modules and packages.',
            from: { path: '^src/[^/]+/shared/' },
            to: { pathNot: ['^src/[^/]+/shared/', '(^|/)node_modules/'], dependencyTypesNot: ['core'] },
        },
        ...layerRules('src', SRC_LAYERS),
        ...layerRules('workers', WORKER_LAYERS),
        {
            name: 'source-imports-tests',
            severity: 'error',
            comment: 'The library never imports its tests or benchmarks (bench/ and test/ may import anything).',
            from: { path: '^(src|workers)/' },
            to: { path: '^(bench|test)/' },
        },
        {
            name: 'no-circular',
            severity: 'error',
            comment: 'No circle between modules, type-only and dynamic imports included: move what both sides need into a lower module.',
            from: {},
            to: { circular: true },
        },
        {
            name: 'no-circular-folders',
            severity: 'error',
            comment:
                'No circle between folders (a folder stands for the modules in it and below it): one of the two folders is the lower one.',
            scope: 'folder',
            from: {},
            to: { circular: true },
        },
        {
            name: 'not-to-unresolvable',
            severity: 'error',
            comment: 'Every import resolves (an import the checker cannot follow is an import it cannot check).',
            from: {},
            to: { couldNotResolve: true },
        },
    ],
    options: {
        doNotFollow: { path: '(^|/)node_modules/' },
        // Type-only imports are dependencies too: a circle through them is still a circle.
        tsPreCompilationDeps: true,
        tsConfig: { fileName: 'tsconfig.json' },
        // Packages resolve through their "exports" as Node resolves them (the MCP SDK's subpaths).
        enhancedResolveOptions: {
            exportsFields: ['exports'],
            conditionNames: ['import', 'require', 'node', 'default', 'types'],
            mainFields: ['module', 'main', 'types', 'typings'],
        },
        skipAnalysisNotInRules: true,
    },
};
