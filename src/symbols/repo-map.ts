import { dotted } from './names.js';
import { outlineEntry } from './outline.js';
import type { Definition, SymbolKind } from './shared/types.js';

/** A parsed file's definitions and the words it mentions (`null` when it could not be read). */
export interface MappedFile {
    shown: string;
    definitions: readonly Definition[];
    mentions: ReadonlyMap<string, number> | null;
}

/** On equal rank, the kinds that tell a reader most about a directory come first. */
const KIND_ORDER: readonly SymbolKind[] = ['class', 'interface', 'struct', 'union', 'enum', 'module', 'type', 'function', 'method', 'macro', 'constant', 'variable'];

interface Ranked {
    file: number;
    def: Definition;
    /** Other files that mention the name, shared among the files that define it. */
    score: number;
    others: number;
}

/**
 * How much a textual mention of a name says it is used: a short plain word (`of`, `path`, `run`)
 * occurs in prose and as other things' names (a fiftieth when all lower case, a tenth otherwise), a compound or long name (`FileTool`, `kvm_vcpu_ioctl`)
 * almost only as itself.
 */
function specificity(name: string): number {
    if (name.length >= 8 || /[A-Z_0-9]/.test(name.slice(1))) return 1;
    // A plain lower-case word (`of`, `on`, `string`) is also English: it is in most files' comments.
    return /^[a-z]+$/.test(name) ? 0.02 : 0.1;
}

/** Definitions ranked by the files that mention their name besides their own (weighted by the name's specificity), most first. */
export function rankDefinitions(files: readonly MappedFile[]): Ranked[] {
    const mentioning = new Map<string, number>();
    const defining = new Map<string, number>();
    for (const f of files) {
        for (const name of f.mentions?.keys() ?? []) mentioning.set(name, (mentioning.get(name) ?? 0) + 1);
        for (const name of new Set(f.definitions.map((d) => d.name))) defining.set(name, (defining.get(name) ?? 0) + 1);
    }
    const ranked: Ranked[] = [];
    files.forEach((f, file) => {
        for (const def of f.definitions) {
            const others = (mentioning.get(def.name) ?? 0) - (f.mentions?.has(def.name) ? 1 : 0);
            ranked.push({ file, def, others, score: (others * specificity(def.name)) / (defining.get(def.name) ?? 1) });
        }
    });
    const kind = (d: Definition) => KIND_ORDER.indexOf(d.kind);
    return ranked.sort((a, b) => b.score - a.score || kind(a.def) - kind(b.def) || a.file - b.file || a.def.line - b.def.line);
}

function definitionLine(r: Ranked): string {
    return `  ${outlineEntry(r.def, dotted(r.def))} [${r.others} ${r.others === 1 ? 'file' : 'files'}]`;
}

export interface RepoMap {
    /** The map's lines: a file's path, then its chosen definitions in line order. */
    lines: string[];
    shown: number;
    total: number;
    files: number;
}

/**
 * The longest run of the highest-ranked definitions that fits in `maxChars`, grouped by file: files in the order of
 * their best definition, definitions in line order within a file.
 */
export function buildRepoMap(files: readonly MappedFile[], maxChars: number): RepoMap {
    const ranked = rankDefinitions(files);
    const chosen = new Map<number, Ranked[]>();
    let used = 0;
    for (const r of ranked) {
        const cost = definitionLine(r).length + 1 + (chosen.has(r.file) ? 0 : files[r.file]!.shown.length + 2);
        if (used + cost > maxChars) break;
        used += cost;
        const list = chosen.get(r.file);
        if (list) list.push(r);
        else chosen.set(r.file, [r]);
    }
    const lines: string[] = [];
    let shown = 0;
    for (const [file, list] of chosen) {
        lines.push(`${files[file]!.shown}:`);
        for (const r of list.sort((a, b) => a.def.line - b.def.line)) lines.push(definitionLine(r));
        shown += list.length;
    }
    return { lines, shown, total: ranked.length, files: chosen.size };
}
