// A second process for the symbol table tests: opens (or builds) the index of a tree in a shared
// index directory, loads (or makes) its symbol table, runs one find_symbol and prints JSON.
import { AccessType, FileToolPackage, Workspace } from '../../dist/src/index.js';
import { DEFAULT_SKIP_DIRS } from '../../dist/src/internals.js';
import { symbolsOf } from '../../dist/src/symbols/symbol-table.js';

const [root, dir, name] = process.argv.slice(2);
const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
const pkg = new FileToolPackage(ws, { index: { dir, symbols: true }, navigation: true });
const tree = await pkg.searchIndex.warm(root, DEFAULT_SKIP_DIRS, [root]);
const symbols = symbolsOf(tree);
const store = await symbols.ready();
const [r] = await pkg.tools().find((t) => t.name === 'find_symbol').execute({ name });
process.stdout.write(JSON.stringify({ state: tree.status().state, defs: store?.counts.defs ?? null, error: symbols.error ?? null, built: symbols.figures !== undefined, answered: symbols.answered, result: `${r.status}: ${r.result}` }));
await pkg.close();
