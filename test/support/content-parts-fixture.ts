/**
 * A test-only tool whose result is content parts (a caption, an image, a text resource and a
 * PDF resource), and a package that holds it beside the file tools.
 */
import { z } from 'zod';
import { AccessType, FileToolPackage, Workspace } from '../../src/index.js';
import type { ContentPart } from '../../src/content/parts.js';
import { FileTool, ok, type ToolCall } from '../../src/tools/base.js';
import type { WorkspaceView } from '../../src/access/workspace.js';
import { declareTool } from '../../src/tools/declaration.js';
import { tempDir } from './helpers.js';

/** A 1×1 PNG. */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
export const PNG_BYTES = Buffer.from(PNG, 'base64').length;
export const PDF = Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64');
export const PDF_BYTES = Buffer.from(PDF, 'base64').length;

export const PARTS: ContentPart[] = [
    { type: 'text', text: 'A red dot:' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
    { type: 'resource', uri: 'file:///project/notes.md', mimeType: 'text/markdown', text: '# Notes\nnone' },
    { type: 'resource', uri: 'file:///project/report.pdf', mimeType: 'application/pdf', blob: PDF },
];

/** The text a text-only host gets for {@link PARTS}. */
export const PARTS_TEXT = [
    'A red dot:',
    `[image image/png, ${PNG_BYTES} bytes: not shown: this host takes text only]`,
    '--- file:///project/notes.md (text/markdown) ---\n# Notes\nnone',
    `[resource file:///project/report.pdf, application/pdf, ${PDF_BYTES} bytes: not shown: this host takes text only]`,
].join('\n');

const schema = z.strictObject({ text_only: z.boolean().optional(), note: z.string().optional() });

/** `show_image`: {@link PARTS}, or with `text_only` the caption alone as a string; `note` adds a line after it. */
export class ShowImageTool extends FileTool<typeof schema> {
    static readonly declaration = declareTool({
        name: 'show_image',
        title: 'Show an image',
        description: 'Test tool: returns a caption, an image and two resources.',
        schema,
        behaviour: { readOnly: true, destructive: false, idempotent: true },
    });

    protected async run(args: z.infer<typeof schema>, _view: WorkspaceView, call: ToolCall) {
        if (args.note) call.notes.push(args.note);
        return args.text_only ? ok('A red dot.') : ok(PARTS);
    }
}

/** The file tools plus `show_image`. */
export class ImagePackage extends FileToolPackage {
    constructor(workspace: Workspace) {
        super(workspace);
        this.add(new ShowImageTool(workspace));
    }
}

const open: ImagePackage[] = [];

/** An {@link ImagePackage} on a fresh directory; {@link closePackages} closes it. */
export function imagePackage(): ImagePackage {
    const root = tempDir('lcf-parts-');
    const pkg = new ImagePackage(new Workspace({ accesses: [{ type: AccessType.Write, path: root }], workspacePath: root }));
    open.push(pkg);
    return pkg;
}

export async function closePackages(): Promise<void> {
    await Promise.all(open.splice(0).map((p) => p.close()));
}
