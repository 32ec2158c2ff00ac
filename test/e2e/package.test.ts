/**
 * The package as a user gets it: `npm pack` of the built checkout, installed into a fresh
 * temporary project (from the local npm cache, which `npm ci` filled: `--prefer-offline` reaches
 * the network only for a package missing there), then used through its public surface only:
 * type declarations checked by `tsc`, the `llm-chat-file` bin, the subpath exports, a search
 * that needs the worker files, the ESM-only `require()` message and the missing-peer message.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir, writeTree } from '../support/helpers.js';
import { NAVIGATION_TOOL_NAMES, REFERENCE_TOOL_NAMES } from '../../src/tools/catalog.js';
import { image, textPdf } from '../support/media-files.js';

const run = promisify(execFile);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkgJson = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    devDependencies: Record<string, string>;
};
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

beforeAll(() => {
    if (!fs.existsSync(path.join(repo, 'dist/src/cli.js'))) execFileSync(npm, ['run', 'build'], { cwd: repo, stdio: 'inherit' });
}, 180_000);

describe('packed tarball in a fresh project', () => {
    it('installs and works: types, bin, subpath exports, worker files, ESM-only and missing-peer messages', async () => {
        const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LLM_CHAT_FS_') && !k.startsWith('npm_'))) };
        // Pack the built checkout (`prepack` would rebuild it; the build is already there).
        const packDir = tempDir('lcf-pack-');
        const { stdout: packed } = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', packDir], { cwd: repo, env, maxBuffer: 64 << 20 });
        const [info] = JSON.parse(packed) as { filename: string; files: { path: string }[] }[];
        const files = info!.files.map((f) => f.path);
        expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/cli.js', 'dist/src/esm-only.cjs', 'dist/workers/entry.cjs']));
        // Source maps would point to src/ files that are not shipped: none are built.
        expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
        expect(files.filter((f) => f.startsWith('dist/bench') || f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);

        const project = tempDir('lcf-fresh-');
        fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'fresh', version: '1.0.0', private: true, type: 'module' }));
        const install = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'];
        await run(npm, [...install, path.join(packDir, info!.filename), `ai@${pkgJson.devDependencies.ai}`], { cwd: project, env, maxBuffer: 64 << 20 });
        const installed = path.join(project, 'node_modules', ...pkgJson.name.split('/'));
        // The peer was installed with it.
        expect(fs.existsSync(path.join(project, 'node_modules/@johannes.latzel/llm-chat/package.json'))).toBe(true);

        // The bin: a one-shot call and the tool list.
        writeTree(project, { 'data/notes.txt': 'alpha\nneedle here\n', 'data/shapes.py': 'class Circle:\n    def area(self):\n        return 0\n' });
        const bin = path.join(project, 'node_modules/.bin/llm-chat-file');
        const listed = await run(bin, ['tools'], { cwd: project, env });
        // The reference's tools and code navigation's (on in the command line).
        expect((JSON.parse(listed.stdout) as unknown[]).length).toBe(REFERENCE_TOOL_NAMES.length + NAVIGATION_TOOL_NAMES.length);
        // A content search runs on the worker pool: the worker files are found in the installed package.
        const search = await run(bin, ['--read', 'data', 'search_entries', '{"content_pattern":"needle"}'], { cwd: project, env });
        expect(search.stdout).toContain('notes.txt:2: needle here');
        // Images and PDFs are read on the worker pool: sharp's prebuilt libvips and unpdf came with the install (no install script ran).
        fs.writeFileSync(path.join(project, 'data', 'dot.png'), await image(6, 4, 'png'));
        fs.writeFileSync(path.join(project, 'data', 'doc.pdf'), await textPdf(2, 1));
        const media = await run(bin, ['--read', 'data', 'read_file', '{"paths":["dot.png","doc.pdf"],"pages":"2"}'], { cwd: project, env });
        expect(media.stdout).toMatch(/dot\.png \(image: PNG 6x4, sent as is image\/png, [\d,]+ bytes, about 1 token\) ---\n\[image image\/png, [\d,]+ bytes\]\n/);
        expect(media.stdout).toContain('doc.pdf (PDF, page 2 of 2) ---\n[page 2]\nPage 2 line 1: the quick brown fox 2001\n');
        // Code navigation parses on the worker pool: web-tree-sitter and the grammars are found in the installed package.
        const outline = await run(bin, ['--read', 'data', 'file_outline', '{"path":"shapes.py"}'], { cwd: project, env });
        expect(outline.stdout).toContain('1-3 class Circle\n  2-3 method area — def area(self):');

        // The main entry and the subpath exports, imported by a user's ES module.
        writeTree(project, {
            'use.mjs': `
import { FileToolPackage, Workspace, AccessType, ToolSuite, openAiTools, geminiTools, anthropicTools, openAiResponsesTools } from '${pkgJson.name}';
import { createMcpServer } from '${pkgJson.name}/mcp';
import { aiSdkTools } from '${pkgJson.name}/ai-sdk';
const pkg = new FileToolPackage(new Workspace({ accesses: [{ type: AccessType.Read, path: process.cwd() + '/data' }] }));
const suite = new ToolSuite();
suite.add(pkg);
const [r] = await suite.executeTool('search_entries', JSON.stringify({ content_pattern: 'needle' }));
const { Engine } = await import('${pkgJson.name}/internals');
const out = {
    search: r.result,
    internals: typeof Engine,
    hooks: typeof suite.hook === 'function' && typeof suite.on === 'function' && typeof suite.off === 'function' && typeof suite.rebuildTutorials === 'function',
    openai: openAiTools(pkg, { strict: true }).length, responses: openAiResponsesTools(pkg).length,
    gemini: geminiTools(pkg).functionDeclarations.length, anthropic: anthropicTools(pkg).length,
    mcp: typeof createMcpServer(pkg).connect, aiSdk: Object.keys(aiSdkTools(pkg)).length,
};
await pkg.close();
console.log(JSON.stringify(out));
`,
        });
        const used = JSON.parse((await run(process.execPath, ['use.mjs'], { cwd: project, env })).stdout) as Record<string, unknown>;
        expect(used).toEqual({ search: expect.stringContaining('notes.txt:2: needle here'), internals: 'function', hooks: true, openai: REFERENCE_TOOL_NAMES.length, responses: REFERENCE_TOOL_NAMES.length, gemini: REFERENCE_TOOL_NAMES.length, anthropic: REFERENCE_TOOL_NAMES.length, mcp: 'function', aiSdk: REFERENCE_TOOL_NAMES.length });

        // The type declarations, checked as a TypeScript user would (NodeNext resolution).
        writeTree(project, {
            'check.ts': `
import { FileToolPackage, Workspace, AccessType, ToolSuite, type ToolSuiteLike, type OpenAiFunctionTool, MISSING_PEER_MESSAGE, type ContentPart, type CallResult, anthropicToolResult } from '${pkgJson.name}';
import { createMcpServer, type McpServerOptions } from '${pkgJson.name}/mcp';
import { aiSdkTools } from '${pkgJson.name}/ai-sdk';
import { Engine } from '${pkgJson.name}/internals';
const pkg: FileToolPackage = new FileToolPackage(new Workspace({ accesses: [{ type: AccessType.Write, path: '.' }] }));
const indexed: FileToolPackage = new FileToolPackage(new Workspace({ accesses: [{ type: AccessType.Write, path: '.' }] }), { index: true, engine: { maxThreads: 1 } });
const engine: Engine = indexed.engine;
const parts: ContentPart[] = [{ type: 'text', text: 'a' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }, { type: 'resource', uri: 'file:///a.pdf', blob: 'AAAA' }];
const results: CallResult[] = [{ status: 'success', result: 'a', parts }];
void engine; void anthropicToolResult('t', results);
const suite: ToolSuiteLike = new ToolSuite();
suite.add(pkg);
const hook = suite.hook().after().do((result) => { void result.status; });
hook.dispose();
const onBefore = (name: string, args: Record<string, unknown>): void => { void name; void args; };
suite.on('before', onBefore);
suite.off('before', onBefore);
suite.rebuildTutorials();
const defs: OpenAiFunctionTool[] = [];
const options: McpServerOptions = { roots: true };
void createMcpServer(pkg, options); void aiSdkTools(pkg); void defs; void MISSING_PEER_MESSAGE;
// @ts-expect-error: the tool list is typed
const bad: number = pkg.tools();
void bad;
`,
            'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['check.ts'] }),
        });
        await run(process.execPath, [path.join(repo, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: project, env }).catch((err: { stdout?: string }) => {
            throw new Error(`tsc failed in the fresh project:\n${err.stdout ?? String(err)}`);
        });

        // require() from CommonJS says the package is ESM-only.
        writeTree(project, { 'use.cjs': `try { require('${pkgJson.name}'); } catch (e) { console.log(e.message); }` });
        const required = await run(process.execPath, ['use.cjs'], { cwd: project, env });
        expect(required.stdout).toContain('is an ES module only and cannot be loaded with require()');

        // Without the peer (installers that skip peers), the bin says what to install.
        const peer = path.join(project, 'node_modules/@johannes.latzel/llm-chat');
        fs.renameSync(peer, `${peer}-away`);
        const missing = await run(bin, ['tools'], { cwd: project, env }).then(
            () => ({ code: 0, stderr: '' }),
            (err: { code: number; stderr: string }) => err,
        );
        expect(missing.code).toBe(2);
        expect(missing.stderr).toContain('needs its peer dependency @johannes.latzel/llm-chat');
        expect(missing.stderr).toContain('npm install @johannes.latzel/llm-chat@^0.7.0');
        expect(missing.stderr).not.toContain('ERR_MODULE_NOT_FOUND');
        expect(fs.existsSync(path.join(installed, 'dist/workers/entry.cjs'))).toBe(true);
    }, 300_000);
});
