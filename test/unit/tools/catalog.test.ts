/**
 * The tools' catalog (src/tools/catalog.ts): each tool declared once, and the package, the
 * exports, the MCP server and the adapters derived from the declarations.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import * as api from '../../../src/index.js';
import { createMcpServer, toolAnnotations } from '../../../src/hosts/mcp/server.js';
import { FileTool } from '../../../src/tools/base.js';
import { isToolName, loadToolClass, loadToolClasses, NAVIGATION_TOOL_NAMES, OPTIONAL_TOOL_NAMES, REFERENCE_TOOL_NAMES, TOOL_NAMES } from '../../../src/tools/catalog.js';
import { makePackage, tempDir } from '../../support/helpers.js';

describe('tool catalog', () => {
    it('lists every tool once: the reference tools and the optional ones', () => {
        expect(new Set(TOOL_NAMES).size).toBe(TOOL_NAMES.length);
        expect([...TOOL_NAMES].sort()).toEqual([...REFERENCE_TOOL_NAMES, ...OPTIONAL_TOOL_NAMES].sort());
        for (const name of TOOL_NAMES) expect(isToolName(name)).toBe(true);
        expect(isToolName('no_such_tool')).toBe(false);
        expect(isToolName('toString')).toBe(false);
    });

    it('loads each tool class alone; its declaration carries the name it is filed under', async () => {
        for (const name of TOOL_NAMES) {
            const Tool = await loadToolClass(name);
            const d = Tool.declaration;
            expect(d.name).toBe(name);
            expect(d.title.length, name).toBeGreaterThan(0);
            expect(d.description.length, name).toBeGreaterThan(20);
            expect(Object.isFrozen(d), name).toBe(true);
            expect(typeof d.schema.safeParse, name).toBe('function');
            // A read-only tool destroys nothing.
            if (d.behaviour.readOnly) expect(d.behaviour.destructive, name).toBe(false);
            // Every class is a public export under its own name.
            expect(Object.values(api), name).toContain(Tool);
        }
    });

    it('builds the package from the declarations, in the catalog order, edit_file, edit_notebook and code navigation only when asked', async () => {
        const root = tempDir('lcf-catalog-');
        const plain = makePackage(root).pkg;
        expect(plain.tools().map((t) => t.name)).toEqual([...REFERENCE_TOOL_NAMES]);
        const editOnly = makePackage(root, { packageOptions: { editFile: true } }).pkg;
        expect(editOnly.tools().map((t) => t.name)).toEqual(TOOL_NAMES.filter((n) => n !== 'edit_notebook' && !(NAVIGATION_TOOL_NAMES as readonly string[]).includes(n)));
        const withEdit = makePackage(root, { packageOptions: { editFile: true, navigation: true, notebooks: true } }).pkg;
        expect(withEdit.tools().map((t) => t.name)).toEqual([...TOOL_NAMES]);
        const classes = await loadToolClasses();
        for (const [i, t] of withEdit.tools().entries()) {
            expect(t).toBeInstanceOf(classes[i]!);
            const decl = (t as FileTool<never>).declaration;
            expect(t.description).toBe(decl.description);
            expect((t as FileTool<never>).schema).toBe(decl.schema);
        }
    });

    it('gives MCP the declared title and behaviour of every tool', async () => {
        const root = tempDir('lcf-catalog-');
        const pkg = makePackage(root, { packageOptions: { editFile: true, navigation: true, notebooks: true } }).pkg;
        const client = new Client({ name: 't', version: '1' });
        const [a, b] = InMemoryTransport.createLinkedPair();
        await Promise.all([createMcpServer(pkg).connect(a), client.connect(b)]);
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
        for (const t of tools) {
            const tool = pkg.tools().find((x) => x.name === t.name) as FileTool<never>;
            const { title, behaviour } = tool.declaration;
            expect(t.title).toBe(title);
            expect(t.annotations).toEqual(toolAnnotations(tool));
            expect(t.annotations).toMatchObject({ title, readOnlyHint: behaviour.readOnly, idempotentHint: behaviour.idempotent, openWorldHint: false });
            if (!behaviour.readOnly) expect(t.annotations?.destructiveHint).toBe(behaviour.destructive);
        }
        await client.close();
    });
});
