/** The names the index gives the entries of a tree's folder (store.ts, build.ts, reopen.ts), by kind. */
export const GEN_NAME = /^gen-[0-9a-z]+-[0-9a-f]{8}$/;
export const SEGMENT_NAME = /^seg-\d{4,}\.bin$/;
export const SNAPSHOT_NAME = /^snap-[0-9a-z]+-[0-9a-f]{8}-\d+\.bin$/;
