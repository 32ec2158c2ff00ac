/**
 * search_entries' time filters (created_after/before, modified_after/before): ISO 8601 dates and
 * date-times as zod's `z.iso` validators define them, offsets honoured, offset-less input read as
 * UTC (the frame of the printed times) whatever the host's zone, the resolved instants echoed;
 * anything else refused (bad-arguments.test.ts has the refused forms).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { instantOf } from '../../../src/tools/search-times.js';
import { datedTree, makePackage, search } from '../../support/helpers.js';

describe('search_entries time filters', () => {
    it.each([
        ['a calendar date (midnight UTC)', '2020-06-01', 'old.txt'],
        ['a date-time in UTC', '2020-06-01T11:59:59Z', 'old.txt'],
        ['a date-time with an offset, converted', '2020-06-01T13:59:59+02:00', 'old.txt'],
        ['a later date-time with an offset', '2020-06-01T14:00:01+02:00', null],
        ['fractions of a second', '2020-06-01T11:59:59.999Z', 'old.txt'],
        ['a date-time without an offset, read as UTC', '2020-06-01T11:59:59', 'old.txt'],
        ['a later date-time without an offset, read as UTC', '2020-06-01T12:00:01', null],
        ['minutes without seconds, read as UTC', '2020-06-01T11:59', 'old.txt'],
    ])('accepts %s: modified_after %s', async (_what, after, expected) => {
        const fx = makePackage(datedTree());
        const r = await search(fx, { type: 'file', modified_after: after, modified_before: '2021-01-01' });
        expect(r.status).toBe('success');
        if (expected === null) expect(r.result).toMatch(/^No entries found/);
        else expect(r.result.split('\n').filter((l) => !l.startsWith('[')).map((l) => l.split(' ')[0])).toEqual([expected]);
    });

    it.each(['1', '2025', '20200601', 'Jan 1 2025', '2020-06-01 12:00:00Z', '2020-13-01T00:00:00Z', '2021-02-29', '2020-06-01T12:00:00+0200'])(
        'refuses %j with the expected form named, changing nothing',
        async (value) => {
            const dir = datedTree();
            const fx = makePackage(dir);
            for (const key of ['created_after', 'created_before', 'modified_after', 'modified_before']) {
                const r = await search(fx, { [key]: value });
                expect(r.status).toBe('error');
                expect(r.result).toContain(`${key}: expected an ISO 8601 date-time such as 2025-01-31T12:00:00Z`);
            }
            expect(fs.readdirSync(dir).sort()).toEqual(['new.txt', 'old.txt']);
        },
    );
});

describe('search_entries time filters in one frame', () => {
    it('echo the resolved instants in the no-match note', async () => {
        const fx = makePackage(datedTree());
        const r = await search(fx, { modified_after: '2020-06-01T14:00:00', modified_before: '2020-06-02' });
        expect(r.result).toBe(
            'No entries found in . matching modified after 2020-06-01T14:00:00.000Z (2020-06-01T14:00:00, read as UTC), ' +
                'modified before 2020-06-02T00:00:00.000Z (2020-06-02, read as UTC).',
        );
        const z = await search(fx, { created_after: '2099-01-01T00:00:00.000Z' });
        expect(z.result).toBe('No entries found in . matching created after 2099-01-01T00:00:00.000Z.');
        const off = await search(fx, { created_after: '2099-01-01T02:00:00+02:00' });
        expect(off.result).toBe('No entries found in . matching created after 2099-01-01T00:00:00.000Z (2099-01-01T02:00:00+02:00).');
    });

    it('echo them after the results when an input had no offset, and add nothing when every input had one', async () => {
        const fx = makePackage(datedTree());
        const r = await search(fx, { type: 'file', modified_after: '2020-06-01', modified_before: '2020-06-01T13:00:00' });
        const lines = r.result.split('\n');
        expect(lines[0]).toMatch(/^old\.txt {2}\(created: .*, modified: 2020-06-01T12:00:00\.000Z\)$/);
        expect(lines.slice(1)).toEqual([
            '[Time filters read as UTC, the frame of the times shown: modified after 2020-06-01T00:00:00.000Z (2020-06-01, read as UTC), ' +
                'modified before 2020-06-01T13:00:00.000Z (2020-06-01T13:00:00, read as UTC).]',
        ]);
        const explicit = await search(fx, { type: 'file', modified_after: '2020-06-01T00:00:00.000Z', modified_before: '2020-06-01T15:00:00+02:00' });
        expect(explicit.result.split('\n')).toHaveLength(1);
    });

    it('instantOf reads offset-less input as UTC and honours offsets', () => {
        expect(instantOf('2020-06-01')).toBe(Date.UTC(2020, 5, 1));
        expect(instantOf('2020-06-01T10:30:00')).toBe(Date.UTC(2020, 5, 1, 10, 30));
        expect(instantOf('2020-06-01T10:30:00.250')).toBe(Date.UTC(2020, 5, 1, 10, 30, 0, 250));
        expect(instantOf('2020-06-01T10:30:00+02:00')).toBe(Date.UTC(2020, 5, 1, 8, 30));
        expect(instantOf('2020-06-01T10:30:00z')).toBe(Date.UTC(2020, 5, 1, 10, 30));
    });
});
