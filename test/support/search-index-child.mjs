// A second process for the search index tests: opens (or builds) the index of a tree in a shared
// index directory, runs one search and prints its state and result as JSON.
import { AccessType, FileToolPackage, SearchConfiguration, Workspace } from '../../dist/src/index.js';
import { DEFAULT_SKIP_DIRS } from '../../dist/src/internals.js';

const [root, dir] = process.argv.slice(2);
const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
const pkg = new FileToolPackage(ws, new SearchConfiguration(100_000, 100_000, 100_000, 600_000), undefined, undefined, { index: { dir } });
const tree = await pkg.searchIndex.warm(root, DEFAULT_SKIP_DIRS, [root]);
const [r] = await pkg.tools().find((t) => t.name === 'search_entries').execute({ content_pattern: 'token7' });
process.stdout.write(JSON.stringify({ state: tree.status().state, result: `${r.status}: ${r.result}` }));
await pkg.close();
