/**
 * The topmost changed paths of a tree: a changed directory is walked from disk whole, so the
 * changed paths below it add nothing to a search. Kept as a trie of path components, so a search
 * costs what the topmost paths cost, not every path a mass change noted (a removed copy of a
 * large tree notes each of its files, then its directory).
 */

interface Node {
    /** This path is changed (everything below it is walked from disk). */
    top: boolean;
    kids: Map<string, Node> | null;
}

export class DirtyTops {
    #root: Node = { top: false, kids: null };
    #size = 0;

    /** How many topmost changed paths there are. */
    get size(): number {
        return this.#size;
    }

    /** Notes `rel` (relative, `/`-separated; `''` is the root). */
    add(rel: string): void {
        let n = this.#root;
        if (n.top) return;
        if (rel !== '') {
            for (const part of rel.split('/')) {
                n.kids ??= new Map();
                let k = n.kids.get(part);
                if (k === undefined) n.kids.set(part, (k = { top: false, kids: null }));
                n = k;
                if (n.top) return;
            }
        }
        // Each node is dropped at most once, so counting the tops below costs no more than adding them did.
        this.#size += 1 - topsIn(n);
        n.top = true;
        n.kids = null;
    }

    clear(): void {
        this.#root = { top: false, kids: null };
        this.#size = 0;
    }

    /** The topmost changed paths strictly below `relRoot` (`''`: the whole tree). */
    below(relRoot: string): string[] {
        let n: Node | undefined = this.#root;
        if (relRoot !== '') for (const part of relRoot.split('/')) if ((n = n?.kids?.get(part)) === undefined) return [];
        const out: string[] = [];
        const walk = (x: Node, at: string): void => {
            for (const [name, k] of x.kids ?? []) {
                const rel = at === '' ? name : `${at}/${name}`;
                if (k.top) out.push(rel);
                else walk(k, rel);
            }
        };
        walk(n!, relRoot);
        return out;
    }

    /** A changed path is `rel`, above it or below it: its contents are uncertain. */
    touches(rel: string): boolean {
        let n: Node | undefined = this.#root;
        if (n.top) return true;
        // Perf: nothing changed (the usual case), no path split; the index asks this per link per search.
        if (n.kids === null || n.kids.size === 0) return false;
        if (rel !== '') {
            for (const part of rel.split('/')) {
                n = n.kids?.get(part);
                if (n === undefined) return false;
                if (n.top) return true;
            }
        }
        return n.kids !== null && n.kids.size > 0;
    }
}

function topsIn(n: Node): number {
    let k = 0;
    for (const c of n.kids?.values() ?? []) k += c.top ? 1 : topsIn(c);
    return k;
}
