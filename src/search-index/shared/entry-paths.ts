import { Kind, type FileTable } from './format.js';

/**
 * Relative paths of a file table's entries (`''` for the root; components joined by `/`), each
 * directory's made once and kept: the host's loaded table (table.ts) and the symbol table's build
 * process, which has the table's columns alone (src/symbols/build-plan.ts), name entries alike.
 */
export class EntryPaths {
    readonly #t: Pick<FileTable, 'names' | 'parent' | 'kind'>;
    /** Relative paths of the directories made so far (id → path). */
    readonly #dirPaths = new Map<number, string>([[0, '']]);

    constructor(t: Pick<FileTable, 'names' | 'parent' | 'kind'>) {
        this.#t = t;
    }

    /** Relative path of entry `id`. */
    pathOf(id: number): string {
        if (id === 0) return '';
        const t = this.#t;
        if (t.kind[id] === Kind.Dir) return this.#dirPath(id);
        const p = t.parent[id]!;
        return p === 0 ? t.names.get(id) : `${this.#dirPath(p)}/${t.names.get(id)}`;
    }

    #dirPath(id: number): string {
        let rel = this.#dirPaths.get(id);
        if (rel === undefined) {
            const p = this.#t.parent[id]!;
            rel = p === 0 ? this.#t.names.get(id) : `${this.#dirPath(p)}/${this.#t.names.get(id)}`;
            this.#dirPaths.set(id, rel);
        }
        return rel;
    }
}
