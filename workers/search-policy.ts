import type { Stats } from 'node:fs';
import type { PreparedSearch } from '../src/engine/protocol.js';
import { compileGlobs, IgnoreCache, readGitignoreFile, type PathTest } from '../src/engine/filters.js';
import { EntryKind } from '../src/engine/protocol.js';
import type { IgnoreFrame } from '../src/engine/types.js';
import { makeMatcher, type ContentMatcher } from './scan.js';

/**
 * The entry policy of a search in a worker: which entries a prepared search keeps (name
 * pattern, entry type, include/exclude globs, `.gitignore` frames, timestamp filters), built
 * once per search from the {@link PreparedSearch} every task of the call gets unchanged.
 */
export class SearchPolicy {
    readonly search: PreparedSearch;
    readonly name: RegExp | null;
    readonly content: ContentMatcher | null;
    readonly skip: Set<string>;
    readonly wantFiles: boolean;
    readonly wantDirs: boolean;
    readonly include: PathTest | null;
    readonly exclude: PathTest | null;
    /** `.gitignore` matchers, when the search respects them. */
    readonly ignores: IgnoreCache | null;
    /** Some path filter is on: entries' relative paths are needed. */
    readonly filtered: boolean;

    private constructor(search: PreparedSearch) {
        this.search = search;
        this.name = search.namePattern ? new RegExp(search.namePattern.source, search.namePattern.flags) : null;
        this.content = search.contentPattern ? makeMatcher(search.contentPattern) : null;
        this.skip = new Set(search.skipDirs);
        this.wantFiles = search.type !== 'directory';
        this.wantDirs = search.type !== 'file' && !search.contentPattern;
        this.include = search.include ? compileGlobs(search.include) : null;
        this.exclude = search.exclude ? compileGlobs(search.exclude) : null;
        this.ignores = search.respectGitignore ? new IgnoreCache() : null;
        this.filtered = search.include !== undefined || search.exclude !== undefined || search.respectGitignore;
    }

    static #cached: SearchPolicy | undefined;

    /** The policy of `search`, built once per search (the tasks of one call share its `id`). */
    static of(search: PreparedSearch): SearchPolicy {
        if (SearchPolicy.#cached?.search.id !== search.id) SearchPolicy.#cached = new SearchPolicy(search);
        return SearchPolicy.#cached;
    }

    /** The name pattern (if any) matches `name`. */
    nameOk(name: string): boolean {
        return this.name === null || this.name.test(name);
    }

    /** Excluded by a glob or ignored by a `.gitignore`: left out as if absent (not counted, not walked). */
    leftOut(frames: readonly IgnoreFrame[] | undefined, sub: string, name: string, isDir: boolean): boolean {
        if (this.exclude !== null && this.exclude(sub, name, isDir)) return true;
        return frames !== undefined && this.ignores !== null && this.ignores.ignored(frames, sub, isDir);
    }

    /**
     * The `.gitignore` frames in force in a directory just listed (display path `rel`, entries
     * reached through `base`): `frames` plus its own `.gitignore` when the search respects them
     * and it holds one (a regular file).
     */
    withGitignore(frames: readonly IgnoreFrame[] | undefined, rel: string, base: string, names: readonly string[], kinds: readonly number[]): readonly IgnoreFrame[] | undefined {
        if (this.ignores === null) return frames;
        const at = names.indexOf('.gitignore');
        const rules = at !== -1 && kinds[at] === EntryKind.File ? readGitignoreFile(base + '.gitignore') : null;
        if (rules === null) return frames;
        const dir = rel === this.search.root.display ? '' : `${rel.slice(this.search.relStart)}/`;
        return [...(frames ?? []), { base: dir, up: '', rules }];
    }

    /** The entry's times when they pass the timestamp filters (exclusive bounds), else `null`. */
    timesOk(st: Stats): { birthtimeMs: number; mtimeMs: number } | null {
        const s = this.search;
        const b = st.birthtimeMs;
        const m = st.mtimeMs;
        if (s.createdAfter !== undefined && !(b > s.createdAfter)) return null;
        if (s.createdBefore !== undefined && !(b < s.createdBefore)) return null;
        if (s.modifiedAfter !== undefined && !(m > s.modifiedAfter)) return null;
        if (s.modifiedBefore !== undefined && !(m < s.modifiedBefore)) return null;
        return { birthtimeMs: b, mtimeMs: m };
    }
}
