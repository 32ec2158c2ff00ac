/**
 * Files whose stat says 0 bytes but which have content (procfs, sysfs): content searches read
 * them to their end under the usual size cap, through the tool and through the scan itself; and
 * a no-match note gives no advice about a name_pattern that matched.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AccessType } from '../../../src/index.js';
import { compilePattern } from '../../../src/search/regex.js';
import { scanPath, type ScanSpec } from '../../../workers/search/scan-file.js';
import { makeMatcher } from '../../../workers/search/scan.js';
import { makePackage, search, searchProject } from '../../support/helpers.js';

const KERNEL = '/proc/sys/kernel';

function spec(pattern: string, maxFileSize = 10 * 1024 * 1024): ScanSpec {
    return { matcher: makeMatcher(compilePattern(pattern)), mode: 'content', maxFileSize, max: 100_000, context: 0 };
}

describe('files whose size reads as 0', () => {
    it('are content-searched through search_entries, to their end', async () => {
        expect(fs.statSync(`${KERNEL}/ostype`).size).toBe(0);
        const fx = makePackage(KERNEL, { accesses: [{ type: AccessType.Read, path: KERNEL }] });
        const r = await search(fx, { name_pattern: '^ostype$', content_pattern: 'linux' });
        expect([r.status, r.result]).toEqual(['success', 'ostype:1: Linux']);
        const count = await search(fx, { name_pattern: '^os(type|release)$', content_pattern: '.', output_mode: 'count' });
        expect(count.result.split('\n')).toEqual(['osrelease: 1', 'ostype: 1']);
    });

    it('are read past the first read of the scan and capped at maxFileSize like any file', () => {
        const smaps = '/proc/self/smaps';
        const whole = fs.readFileSync(smaps, 'utf8');
        // The test process maps enough to take more than the scan's first read (64 KiB).
        expect(fs.statSync(smaps).size).toBe(0);
        expect(whole.length).toBeGreaterThan(64 * 1024);
        const all = scanPath(smaps, null, spec('^Rss:'));
        expect(all!.scanned).toBe(true);
        const rss = whole.split('\n').filter((l) => l.startsWith('Rss:')).length;
        // The mappings change a little between the two reads; the lines found run to the file's end.
        expect(all!.lines.length).toBeGreaterThan(rss * 0.9);
        expect(all!.lines.at(-1)!.line).toBeGreaterThan(whole.slice(0, 64 * 1024).split('\n').length);
        const capped = scanPath(smaps, null, spec('^Rss:', 10_000));
        expect(capped!.scanned).toBe(false);
        expect(capped!.lines).toEqual([]);
        expect(capped!.tooLarge).toBe(10_001);
    });
});

describe('the no-match note of a search whose name part matched', () => {
    it('gives no advice about name_pattern, and still about content_pattern', async () => {
        const fx = makePackage(searchProject('lcf-namematch-'));
        const r = await search(fx, { name_pattern: 'main\\.(ts|js)$', content_pattern: 'absent(1)' });
        expect(r.result.split('\n')).toEqual([
            'No entries found in . matching name_pattern /main\\.(ts|js)$/i, content_pattern /absent(1)/i.',
            '[content_pattern is a regular expression, in which characters such as [ ] ( ) $ ^ * + ? | have special meanings. To search for the text as written, set literal: true.]',
        ]);
        // A name_pattern that matched nothing still gets the advice.
        const none = await search(fx, { name_pattern: 'nothing(1)', content_pattern: 'todo' });
        expect(none.result).toContain('[name_pattern is a regular expression');
    });

    it('on /proc: a pseudo-file searched is not blamed on the name pattern', async () => {
        const fx = makePackage(KERNEL, { accesses: [{ type: AccessType.Read, path: KERNEL }] });
        const r = await search(fx, { name_pattern: '^os(type|release)$', content_pattern: 'no such text here' });
        expect(r.result).toBe('No entries found in . matching name_pattern /^os(type|release)$/i, content_pattern /no such text here/i.');
    });
});
