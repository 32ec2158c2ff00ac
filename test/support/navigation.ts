/**
 * Packages with code navigation on, over one tree, with or without the index's symbol table, closed
 * after each test; and a tool call's result as `status: text`.
 */
import { afterEach } from 'vitest';
import { AccessType, FileConfiguration, FileToolPackage, SearchConfiguration, Workspace } from '../../src/index.js';
import { SHARED_POOL } from './helpers.js';
import { COMPARED_TIMEOUT_MS } from './scan-path.js';

/** `pkgOf(root, index)`: a package over `root` (write access), the symbol table on when `index` names a folder. Call at a test file's top level: it registers the closing hook. */
export function navigationPackages(): (root: string, index: false | { dir: string }) => FileToolPackage {
    const open: FileToolPackage[] = [];
    afterEach(async () => {
        await Promise.all(open.splice(0).map((p) => p.close()));
    });
    return (root, index) => {
        const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
        const pkg = new FileToolPackage(ws, { searchConfig: new SearchConfiguration(100_000, 100_000, 100_000, COMPARED_TIMEOUT_MS), fileConfig: new FileConfiguration(undefined, undefined, false), index: index && { dir: index.dir, symbols: true }, navigation: true, engine: SHARED_POOL });
        open.push(pkg);
        return pkg;
    };
}

/** One call of the package's tool `tool`, as `status: result`. */
export async function callTool(pkg: FileToolPackage, tool: string, args: Record<string, unknown>): Promise<string> {
    const [r] = await pkg.tools().find((t) => t.name === tool)!.execute(args);
    return `${r!.status}: ${r!.result}`;
}
