/** How a tree check's thread stops (check-dir.ts), mapped onto the check's result by index-check.ts. */

/** More entries than the task's maxEntries. */
export class TooMany extends Error {}
/** The watcher could not be started: nothing found can be trusted. */
export class Unwatched extends Error {}
/** The root cannot be walked: failed with the walk's code. */
export class RootFailure extends Error {
    constructor(readonly code: 'not_a_directory' | 'walk_failed', message: string) {
        super(message);
    }
}
