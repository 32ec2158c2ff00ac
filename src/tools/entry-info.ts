import type { PartialToolResult } from '@johannes.latzel/llm-chat';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { accessFor } from '../access/shared/contain.js';
import { realpath } from '../access/resolve.js';
import { AccessType } from '../config/shared/configuration.js';
import { entryKind, holdDirectory } from '../fs/secure.js';
import type { WorkspaceView } from '../access/workspace.js';
import { FileTool, ok } from './base.js';
import { declareTool } from './declaration.js';
import { arg } from './schema.js';
import { quotePath } from '../print/shared/display.js';
import { lstatHeld, rootsOf } from './shared.js';
import { decodeName, osPath } from '../print/shared/byte-names.js';

const schema = z.strictObject({ path: arg.path('Path of the entry') });

/** `rwxr-xr-x` form of permission bits. */
export function permissionString(mode: number): string {
    const bits = 'rwxrwxrwx';
    let out = '';
    for (let i = 0; i < 9; i++) out += mode & (1 << (8 - i)) ? bits[i] : '-';
    return out;
}

const declaration = declareTool({
    name: 'entry_info',
    title: 'Entry metadata',
    description: 'Returns metadata about a filesystem entry (file, directory, symlink, etc.) — type, size, timestamps, permissions, and symlink target if applicable.',
    schema,
    behaviour: { readOnly: true, destructive: false, idempotent: true },
});

/**
 * `entry_info`: metadata of a file, directory, symlink or other entry, one field per line: Path,
 * Type, Size (bytes), Permissions, Created, Modified (content), Accessed, Changed (metadata), and
 * for a symlink its target and whether the target is inside the accesses.
 */
export class EntryInfoTool extends FileTool<typeof schema> {
    static readonly declaration = declaration;

    protected async run(args: z.infer<typeof schema>, view: WorkspaceView): Promise<PartialToolResult> {
        const checked = await view.check(args.path, AccessType.Read, this.name, { followFinal: false });
        // Security: look through the held parent directory, so a parent swapped for a link after the
        // check cannot make this describe an entry outside.
        const roots = await rootsOf(view);
        const dir = await holdDirectory(checked.abs, path.dirname(checked.real), roots, AccessType.Read);
        try {
            const { target: entry, st } = await lstatHeld(dir, checked.real, checked.abs);
            const lines = [
                `Path: ${quotePath(checked.abs)}`,
                `Type: ${entryKind(st)}`,
                `Size: ${st.size} bytes`,
                `Permissions: ${permissionString(st.mode)}`,
                `Created: ${st.birthtime.toISOString()}`,
                `Modified (content): ${st.mtime.toISOString()}`,
                `Accessed: ${st.atime.toISOString()}`,
                `Changed (metadata): ${st.ctime.toISOString()}`,
            ];
            if (st.isSymbolicLink()) {
                const target = decodeName(await fs.readlink(osPath(entry), { encoding: 'buffer' }));
                lines.push(`Symlink target: ${quotePath(target)}`);
                const resolved = await realpath(entry).catch(() => undefined);
                if (resolved === undefined) lines.push('Symlink status: broken (target does not exist)');
                else {
                    const inside = accessFor(resolved, roots ?? view.accesses);
                    lines.push(`Symlink status: target ${inside ? 'inside' : 'outside'} the configured accesses${inside ? '' : ' (not readable through this link)'}`);
                }
            }
            return ok(lines.join('\n'));
        } finally {
            await dir.close();
        }
    }
}

