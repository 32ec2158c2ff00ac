import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { AccessType, DirectoryConfiguration, type Access } from '../../config/shared/configuration.js';
import type { FileToolPackage } from '../../package/package.js';

/** MCP client roots as the package's accesses (`createMcpServer(pkg, { roots: true })`, see `McpServerOptions.roots`). */

/** The client's `file://` roots that are existing directories, as accesses; reports the others. */
async function rootsAsAccesses(roots: readonly { uri: string }[], report: (message: string) => void): Promise<Access[]> {
    const accesses: Access[] = [];
    for (const { uri } of roots) {
        let dir: string;
        try {
            dir = fileURLToPath(uri);
        } catch {
            report(`root ${uri} skipped: not a local file:// URI.`);
            continue;
        }
        try {
            if ((await fs.stat(dir)).isDirectory()) accesses.push({ type: AccessType.Write, path: dir });
            else report(`root ${uri} skipped: not a directory.`);
        } catch (err) {
            report(`root ${uri} skipped: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (err as Error).message}.`);
        }
    }
    return accesses;
}

/** How long the server waits for the client's answer to `roots/list`, in milliseconds. */
const ROOTS_TIMEOUT_MS = 5_000;

/** Installs the roots handling; returns a function whose promise settles when the latest roots request has. */
export function useClientRoots(server: Server, ready: () => Promise<FileToolPackage>, report: (message: string) => void): () => Promise<void> {
    // The accesses configured before the first roots were applied.
    let initial: DirectoryConfiguration | undefined;
    let sequence = 0;
    let pending: Promise<void> = Promise.resolve();
    const refresh = async (): Promise<void> => {
        if (server.getClientCapabilities()?.roots === undefined) return;
        const mine = ++sequence;
        let roots;
        try {
            roots = (await server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS })).roots;
        } catch (err) {
            report(`roots/list failed: ${(err as Error).message}`);
            return;
        }
        const accesses = await rootsAsAccesses(roots, report);
        const pkg = await ready();
        // Only this function reconfigures the workspace: what it has before the first roots is the initial one.
        initial ??= pkg.workspace.configuration;
        // A later list_changed overtook this one.
        if (mine !== sequence) return;
        pkg.workspace.reconfigure(
            accesses.length > 0
                ? new DirectoryConfiguration(accesses, [...initial.skipDirs], initial.resolveSymlinks, accesses[0]!.path)
                : initial,
        );
    };
    const start = (): void => {
        pending = refresh().catch((err: unknown) => report(`roots not applied: ${(err as Error).message}`));
    };
    const previous = server.oninitialized;
    server.oninitialized = () => {
        previous?.();
        start();
    };
    server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
        start();
        return Promise.resolve();
    });
    return () => pending;
}

