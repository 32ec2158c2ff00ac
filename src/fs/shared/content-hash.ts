import { createHash } from 'node:crypto';

/** SHA-256 hex digest of `bytes`: the content identity of read-before-write (file-pool.ts), computed by bulk reads on the workers too. */
export function contentHash(bytes: Uint8Array): string {
    return createHash('sha256').update(bytes).digest('hex');
}
