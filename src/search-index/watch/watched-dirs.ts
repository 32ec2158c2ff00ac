import { isUtf8 } from 'node:buffer';
import { bytesOf } from '../../print/shared/byte-names.js';
import { IN } from './inotify.js';

/**
 * The directories an inotify watcher watches, by watch descriptor, as a tree of parent links: a
 * path is made from its links when an event comes, so a directory moved within the tree is one
 * link changed (its watches stay valid), and a removed one is one subtree dropped.
 */

export interface Dir {
    wd: number;
    /**
     * The name's bytes as a latin1 string (a name need not be UTF-8). Memory: a one-byte string
     * rather than a Buffer (an ArrayBuffer and a view for each of a large tree's directories).
     */
    key: string;
    parent: Dir | null;
    /** The watched subdirectories by key; made with the first one (most directories have none). */
    children: Map<string, Dir> | undefined;
}

const SLASH = Buffer.from('/');
const ASCII = /^[\x00-\x7f]*$/;

export class WatchedDirs {
    /** The watched tree's root directory. */
    top: Dir | null = null;
    readonly #wds = new Map<number, Dir>();
    readonly #root: Buffer;

    constructor(root: string) {
        this.#root = Buffer.from(root);
    }

    get(wd: number): Dir | undefined {
        return this.#wds.get(wd);
    }

    /** `d` is still watched (not dropped since it was handed out). */
    live(d: Dir): boolean {
        return this.#wds.get(d.wd) === d;
    }

    /** Records a new watch `wd` on `raw` in `parent` (`null`: the root); `null` when `wd` is watched already (the same directory under another name, a bind mount: watched once). */
    add(wd: number, parent: Dir | null, raw: Buffer): Dir | null {
        return this.#add(wd, parent, raw.toString('latin1'));
    }

    #add(wd: number, parent: Dir | null, key: string): Dir | null {
        if (this.#wds.has(wd)) return null;
        const d: Dir = { wd, key, parent, children: undefined };
        this.#wds.set(wd, d);
        if (parent === null) this.top = d;
        else (parent.children ??= new Map()).set(key, d);
        return d;
    }

    /**
     * Takes the watches a tree check added instead of a crawl (watch-inotify.ts): `wds[i]` on the
     * directory at `paths[i]` (relative, `''`: the root). A thread lists a directory's watch
     * before those below it, but a queued directory's parent may be in another thread's list:
     * those are taken in a further pass. One whose parent was not watched (gone meanwhile: its
     * parent's watch reported that) or whose descriptor is taken already (the same directory
     * twice) is left out.
     * @returns the descriptors left out that no kept directory holds, for the caller to remove
     * (the kernel keeps a watch on a directory moved out of the tree until it is removed).
     */
    adopt(wds: readonly number[], paths: readonly string[]): number[] {
        const byPath = new Map<string, Dir>();
        const orphans: number[] = [];
        let left = paths.map((_, i) => i);
        for (let taken = true; taken && left.length > 0; ) {
            taken = false;
            const later: number[] = [];
            for (const i of left) {
                const p = paths[i]!;
                const slash = p.lastIndexOf('/');
                const parent = p === '' ? null : byPath.get(slash < 0 ? '' : p.slice(0, slash));
                if (parent === undefined) {
                    later.push(i);
                    continue;
                }
                taken = true;
                if (parent === null && this.top !== null) {
                    if (!this.#wds.has(wds[i]!)) orphans.push(wds[i]!);
                    continue;
                }
                const name = p.slice(slash + 1);
                // Perf: an ASCII name is its own key, with no buffer made (51k directories at ten copies of the Linux tree).
                const d = this.#add(wds[i]!, parent, parent === null ? '' : ASCII.test(name) ? name : bytesOf(name).toString('latin1'));
                if (d !== null) byPath.set(p, d);
            }
            left = later;
        }
        for (const i of left) if (!this.#wds.has(wds[i]!)) orphans.push(wds[i]!);
        return orphans;
    }

    /**
     * Keeps the tree in step with an event on subdirectory `raw` of `dir`: moved away (held in
     * `movedOut` by the move's cookie until its arrival is read), moved within the tree (what it
     * replaced handed to `drop`). True when it is to be watched: made, moved in from outside, or
     * given read permission, and not watched yet.
     */
    dirEvent(dir: Dir, mask: number, cookie: number, raw: Buffer, movedOut: Map<number, Dir>, drop: (old: Dir) => void): boolean {
        const key = raw.toString('latin1');
        if (mask & IN.MOVED_FROM) {
            const child = dir.children?.get(key);
            if (child !== undefined) {
                this.detach(child);
                movedOut.set(cookie, child);
            }
        }
        if (mask & IN.MOVED_TO) {
            const moved = movedOut.get(cookie);
            if (moved !== undefined) {
                movedOut.delete(cookie);
                this.move(moved, dir, raw, drop);
                return false;
            }
        }
        return (mask & (IN.CREATE | IN.MOVED_TO | IN.ATTRIB)) !== 0 && !dir.children?.has(key);
    }

    /** Moves `d` to `raw` in `parent` (a rename within the tree); what was there is handed to `drop`. */
    move(d: Dir, parent: Dir, raw: Buffer, drop: (old: Dir) => void): void {
        const key = raw.toString('latin1');
        const old = parent.children?.get(key);
        if (old !== undefined && old !== d) drop(old);
        Object.assign(d, { key, parent });
        (parent.children ??= new Map()).set(key, d);
    }

    /** Detaches `d` from its parent (moved away, its arrival not yet read). */
    detach(d: Dir): void {
        if (d.parent?.children?.get(d.key) === d) d.parent.children.delete(d.key);
        d.parent = null;
    }

    /** Drops `d` and everything below it; `each` gets every watch descriptor dropped. */
    forget(d: Dir, each?: (wd: number) => void): void {
        if (d.parent?.children?.get(d.key) === d) d.parent.children.delete(d.key);
        const stack = [d];
        while (stack.length > 0) {
            const x = stack.pop()!;
            if (this.#wds.get(x.wd) === x) this.#wds.delete(x.wd);
            each?.(x.wd);
            if (x.children !== undefined) for (const c of x.children.values()) stack.push(c);
        }
        if (d === this.top) this.top = null;
    }

    clear(): void {
        this.#wds.clear();
        this.top = null;
    }

    /** The absolute path of `raw` in `parent` as bytes (`parent` null: the root itself). */
    absOf(parent: Dir | null, raw: Buffer): Buffer {
        const parts: Buffer[] = [];
        if (parent !== null) {
            parts.push(raw);
            for (let x: Dir | null = parent; x !== null && x.parent !== null; x = x.parent) parts.push(SLASH, Buffer.from(x.key, 'latin1'));
            parts.push(SLASH);
        }
        parts.push(this.#root);
        return Buffer.concat(parts.reverse());
    }

    /**
     * The relative path of `raw` in `dir` (`raw` null: `dir` itself). A name that is not UTF-8
     * cannot be named as the table names it: the nearest directory above that can is given instead.
     */
    relOf(dir: Dir, raw: Buffer | null): string {
        const names: Buffer[] = raw === null ? [] : [raw];
        for (let x: Dir | null = dir; x !== null && x.parent !== null; x = x.parent) names.push(Buffer.from(x.key, 'latin1'));
        names.reverse();
        const ok = names.findIndex((n) => !isUtf8(n));
        return (ok === -1 ? names : names.slice(0, ok)).map((n) => n.toString()).join('/');
    }
}
