import { EntryPolicy } from '../../src/search/shared/entry-policy.js';
import type { PreparedSearch } from '../../src/search/shared/protocol.js';
import { makeMatcher, type ContentMatcher } from './scan.js';

/**
 * The entry policy of a search in a worker: {@link EntryPolicy} (which entries a prepared search
 * keeps, shared with the index) plus the content matcher, built once per search from the
 * {@link PreparedSearch} every task of the call gets unchanged.
 */
export class SearchPolicy extends EntryPolicy {
    readonly content: ContentMatcher | null;

    private constructor(search: PreparedSearch) {
        super(search);
        this.content = search.contentPattern ? makeMatcher(search.contentPattern) : null;
    }

    static #cached: SearchPolicy | undefined;

    /** The policy of `search`, built once per search (the tasks of one call share its `id`). */
    static of(search: PreparedSearch): SearchPolicy {
        if (SearchPolicy.#cached?.search.id !== search.id) SearchPolicy.#cached = new SearchPolicy(search);
        return SearchPolicy.#cached;
    }
}
