import { isInside } from '../../access/shared/contain.js';
import { hasTwoForms, nfcPathTest, testNfc } from './normal-form.js';
import { compileGlobs, IgnoreCache, readGitignoreFile, type PathTest } from './filters.js';
import { EntryKind, type PreparedSearch } from './protocol.js';
import type { IgnoreFrame, SearchRequest } from './types.js';

/**
 * The entry policy of a search: which entries a prepared search keeps (skipped directory names,
 * entry type, name pattern, include/exclude globs, `.gitignore` frames, filters on the entry's
 * stat). Pure and free of worker code: the walk's `SearchPolicy` (workers/search/search-policy.ts)
 * extends it, and the index's answered walk (src/search-index/answer.ts) decides the table's
 * entries with it, so a filter added here applies on both paths.
 */

/** What the stat filters read of an entry: `fs.Stats` fits, and so does an entry of the index's table. */
export interface EntryStat {
    birthtimeMs: number;
    mtimeMs: number;
    size: number;
}

/**
 * Some filter of `req` reads the entry's stat (see {@link EntryPolicy.statOk}): entries are then
 * stat'ed, and hits carry their times (`PreparedSearch.needTimes`).
 */
export function needsStat(req: Pick<SearchRequest, 'createdAfter' | 'createdBefore' | 'modifiedAfter' | 'modifiedBefore'>): boolean {
    return [req.createdAfter, req.createdBefore, req.modifiedAfter, req.modifiedBefore].some((t) => t !== undefined);
}

/**
 * One file, one name: a link to a directory whose target lies inside the searched directory is
 * listed as an entry but not entered, since the walk reaches that directory under its own name
 * (a `lib64 -> lib` link would otherwise show every file below it twice). Links to directories
 * outside the searched one are entered as before, within the access roots and without loops.
 */
export function entersLinkedDir(target: string, searchedReal: string): boolean {
    return !isInside(target, searchedReal);
}

/**
 * Globs as one path test; tested in NFC too when a glob holds a character with two normal forms.
 * Perf: ASCII globs cost nothing more (an entry's ASCII letters are the same in either form).
 */
function globTest(globs: readonly string[]): PathTest {
    const test = compileGlobs(globs);
    return globs.some(hasTwoForms) ? nfcPathTest(test) : test;
}

export class EntryPolicy {
    readonly search: PreparedSearch;
    readonly name: RegExp | null;
    readonly skip: Set<string>;
    readonly wantFiles: boolean;
    readonly wantDirs: boolean;
    readonly include: PathTest | null;
    readonly exclude: PathTest | null;
    /** `.gitignore` matchers, when the search respects them. */
    readonly ignores: IgnoreCache | null;
    /** Some path filter is on: entries' relative paths are needed. */
    readonly filtered: boolean;
    /** The name pattern holds a character with two normal forms: names are tested in NFC too. */
    readonly #nameNfc: boolean;

    constructor(search: PreparedSearch) {
        this.search = search;
        this.name = search.namePattern ? new RegExp(search.namePattern.source, search.namePattern.flags) : null;
        this.skip = new Set(search.skipDirs);
        this.wantFiles = search.type !== 'directory';
        this.wantDirs = search.type !== 'file' && !search.contentPattern;
        this.include = search.include ? globTest(search.include) : null;
        this.exclude = search.exclude ? globTest(search.exclude) : null;
        this.#nameNfc = search.namePattern !== undefined && hasTwoForms(search.namePattern.source);
        this.ignores = search.respectGitignore ? new IgnoreCache() : null;
        this.filtered = search.include !== undefined || search.exclude !== undefined || search.respectGitignore;
    }

    /** The name pattern (if any) matches `name`. */
    nameOk(name: string): boolean {
        return this.name === null || (this.#nameNfc ? testNfc(this.name, name) : this.name.test(name));
    }

    /**
     * A visited entry is a hit candidate by its type, name and path (`sub`: relative to the
     * searched directory): wanted type, name pattern, include globs. Its stat is checked apart
     * ({@link statOk}), only when {@link needsStat}.
     */
    kept(name: string, sub: string, isDir: boolean): boolean {
        return (isDir ? this.wantDirs : this.wantFiles) && this.nameOk(name) && (this.include === null || this.include(sub, name, isDir));
    }

    /** Excluded by a glob or ignored by a `.gitignore`: left out as if absent (not counted, not walked). */
    leftOut(frames: readonly IgnoreFrame[] | undefined, sub: string, name: string, isDir: boolean): boolean {
        if (this.exclude !== null && this.exclude(sub, name, isDir)) return true;
        return frames !== undefined && frames.length > 0 && this.ignores !== null && this.ignores.ignored(frames, sub, isDir);
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

    /** The entry's stat passes the stat filters: the timestamp bounds (exclusive). */
    statOk(st: EntryStat): boolean {
        const s = this.search;
        const b = st.birthtimeMs;
        const m = st.mtimeMs;
        if (s.createdAfter !== undefined && !(b > s.createdAfter)) return false;
        if (s.createdBefore !== undefined && !(b < s.createdBefore)) return false;
        if (s.modifiedAfter !== undefined && !(m > s.modifiedAfter)) return false;
        if (s.modifiedBefore !== undefined && !(m < s.modifiedBefore)) return false;
        return true;
    }

    /** The entry's times when its stat passes {@link statOk}, else `null`. */
    timesOk(st: EntryStat): { birthtimeMs: number; mtimeMs: number } | null {
        return this.statOk(st) ? { birthtimeMs: st.birthtimeMs, mtimeMs: st.mtimeMs } : null;
    }
}
