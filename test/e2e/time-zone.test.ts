/**
 * search_entries' time filters in a process whose time zone is not UTC (a fresh Node process with
 * TZ set, so not in the unit project): offset-less input is still read as UTC.
 */
import { describe, expect, it } from 'vitest';
import { childModule, runChildScript } from '../support/child-source.js';
import { datedTree } from '../support/helpers.js';

describe('search_entries time filters', () => {
    it('read offset-less input as UTC in a process whose zone is not UTC', async () => {
        const dir = datedTree();
        const script = `
            import { Workspace, AccessType, FileToolPackage } from ${JSON.stringify(childModule('src/index.ts'))};
            const ws = new Workspace({ accesses: [{ type: AccessType.Read, path: ${JSON.stringify(dir)} }] });
            const pkg = new FileToolPackage(ws);
            const run = async (args) => (await pkg.tools().find((t) => t.name === 'search_entries').execute(args))[0].result;
            const out = {
                zoneOffset: new Date(2020, 5, 1).getTimezoneOffset(),
                before: await run({ type: 'file', modified_after: '2020-06-01T13:00:00', modified_before: '2021-01-01T00:00:00.000Z' }),
                after: await run({ type: 'file', modified_after: '2020-06-01T11:00:00', modified_before: '2020-06-01T13:00' }),
            };
            await pkg.close();
            process.stdout.write(JSON.stringify(out));`;
        // UTC+14: a local reading would put 13:00 at 23:00 UTC the day before, and find old.txt.
        const { code, stdout, stderr } = await runChildScript(script, { env: { ...process.env, TZ: 'Pacific/Kiritimati' } });
        expect(stderr).toBe('');
        expect(code).toBe(0);
        const out = JSON.parse(stdout) as { zoneOffset: number; before: string; after: string };
        expect(out.zoneOffset).toBe(-840);
        expect(out.before).toBe(
            'No entries found in . matching type file, modified after 2020-06-01T13:00:00.000Z (2020-06-01T13:00:00, read as UTC), modified before 2021-01-01T00:00:00.000Z.',
        );
        expect(out.after.split('\n')[0]).toMatch(/^old\.txt {2}\(created: .*, modified: 2020-06-01T12:00:00\.000Z\)$/);
        expect(out.after).toContain('[Time filters read as UTC');
    }, 60_000);
});
