import type { FileToolPackage } from '../../package/package.js';

/**
 * Writes a line on `write` when a tree's search index fails: searches still answer (they take the
 * scan path), so without it nothing would tell the user why they stay slow. Once per failure of a tree.
 */
export function reportIndexFailures(pkg: FileToolPackage, write: (line: string) => void): void {
    const told = new Set<string>();
    pkg.searchIndex?.onState((s) => {
        if (s.state !== 'failed') {
            if (s.state === 'ready') told.delete(s.root);
            return;
        }
        if (told.has(s.root)) return;
        told.add(s.root);
        write(`llm-chat-file: the search index of ${s.root} failed (${s.error ?? 'no reason given'}); searches scan the tree instead.`);
    });
}
