import type { AccessType } from '../../config/shared/configuration.js';

/** A path checked against one view of the workspace (`WorkspaceView.check` in src/access/workspace.ts). */
export interface CheckedPath {
    /** Absolute path as the caller wrote it, normalized (shown in confirmations and headers). */
    abs: string;
    /** Real path the operation acts on (symlinks resolved when the policy says so). */
    real: string;
    /** How the path appears in listings: workspace-relative inside the workspace, else absolute. */
    display: string;
    /** The access that covers it. */
    access: AccessType;
}
