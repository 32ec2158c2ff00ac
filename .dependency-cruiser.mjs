/**
 * The import rules of src/ and workers/ (ARCHITECTURE.md, "Import rules"), checked by
 * test/architecture.test.ts; from the command line: `npx depcruise src workers`.
 * Type-only imports count like any other (tsPreCompilationDeps), and so do dynamic imports.
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */
export default {
    forbidden: [
        {
            name: 'worker-imports-host',
            severity: 'error',
            comment:
                'Worker code runs in the pool threads and never imports host code: from src/ only src/common/, which both threads import.',
            from: { path: '^workers/' },
            to: { path: '^src/', pathNot: '^src/common/' },
        },
        {
            name: 'common-imports-upward',
            severity: 'error',
            comment:
                'src/common/ is the lowest layer (both threads import it): it imports only src/common/, node: modules and packages.',
            from: { path: '^src/common/' },
            to: { pathNot: ['^src/common/', '(^|/)node_modules/'], dependencyTypesNot: ['core'] },
        },
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
