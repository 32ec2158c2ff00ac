/**
 * Searches of an index with files changed after its generation: the changed entries one search
 * found are reused by the next while nothing was noted since, and made anew after any change.
 * Every answer is the scan path's, capped, filtered or not, and the index answers each.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inotifyAvailable } from '../../../src/search-index/watch/inotify.js';
import { pair, same } from '../../support/index-pair.js';

/** 30 directories of 20 files; a quarter of them hold `shared_word` on two lines (few enough for the index to answer). */
function project(): Record<string, string> {
    const files: Record<string, string> = {};
    for (let d = 0; d < 30; d++) for (let f = 0; f < 20; f++) files[`d${String(d).padStart(2, '0')}/f${f}.c`] = f % 4 === 0 ? `int shared_word_${f};\nint own_d${d}_f${f};\n/* shared_word */\n` : `int own_d${d}_f${f};\n`;
    return files;
}

describe.runIf(inotifyAvailable())('changed entries between searches (inotify)', () => {
    it('answers as the scan path does, search after search, capped and filtered, with changes noted in between', async () => {
        const p = await pair(project());
        const searches: Record<string, unknown>[] = [
            { content_pattern: 'shared_word', max_results: 7 },
            { content_pattern: 'shared_word', max_results: 45, include: ['*.c'], exclude: ['d0[0-4]/**'] },
            { content_pattern: 'changed_word', max_results: 3 },
            { content_pattern: 'changed_word' },
            { content_pattern: 'shared_word', output_mode: 'files_with_matches', max_results: 30 },
            { content_pattern: 'changed_word', modified_after: '2000-01-01' },
            { name_pattern: '^new' },
        ];
        const all = async (): Promise<string[]> => {
            const texts: string[] = [];
            for (const args of searches) {
                const r = await same(p, args);
                expect(r.answered, JSON.stringify(args)).toBe(true);
                texts.push(r.text);
            }
            return texts;
        };
        // Changes after the generation: a new file early in walk order, one edited, one removed.
        fs.writeFileSync(path.join(p.root, 'd00/new0.c'), 'int changed_word;\nshared_word\n');
        fs.writeFileSync(path.join(p.root, 'd10/f3.c'), 'changed_word here\n');
        fs.rmSync(path.join(p.root, 'd20/f5.c'));
        const first = await all();
        expect(first[2]).toContain('d00/new0.c:1:');
        // Nothing noted since: the same answers again (the changed entries reused).
        expect(await all()).toEqual(first);
        // A changed path that is now a directory, a removed new file, another new one: seen at once.
        fs.rmSync(path.join(p.root, 'd10/f3.c'));
        fs.mkdirSync(path.join(p.root, 'd10/f3.c'));
        fs.writeFileSync(path.join(p.root, 'd10/f3.c/inner.c'), 'changed_word inside\n');
        fs.rmSync(path.join(p.root, 'd00/new0.c'));
        fs.writeFileSync(path.join(p.root, 'd29/new1.c'), 'changed_word last\n');
        const second = await all();
        expect(second[3]).toContain('d10/f3.c/inner.c:1:');
        expect(second[3]).toContain('d29/new1.c:1:');
        expect(second[3]).not.toContain('new0.c');
        expect(await all()).toEqual(second);
        // An edit of a file already changed (same path, nothing new at the top): its new content is read.
        fs.writeFileSync(path.join(p.root, 'd29/new1.c'), 'nothing here\n');
        const third = await all();
        expect(third[3]).not.toContain('d29/new1.c');
    }, 120_000);
});
