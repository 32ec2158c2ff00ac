/**
 * The package's `index` options are checked before anything is made: a wrong value throws naming
 * the setting, and neither the index folder nor a pool is made.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AccessType, FileToolPackage, Workspace } from '../../../src/index.js';
import { tempDir } from '../../support/helpers.js';

function attempt(index: unknown): { error: unknown; dir: string } {
    const root = tempDir();
    const dir = path.join(root, 'index-folder');
    const ws = new Workspace({ accesses: [{ path: root, type: AccessType.Write }], workspacePath: root });
    const options = typeof index === 'object' && index !== null && !Array.isArray(index) ? { dir, ...index } : index;
    try {
        const pkg = new FileToolPackage(ws, { index: options as never });
        void pkg.close();
        return { error: undefined, dir };
    } catch (error) {
        return { error, dir };
    }
}

describe('index options', () => {
    it.each([
        [{ segmentBytes: -1 }, Error, /Invalid index\.segmentBytes: -1; expected a positive whole number/],
        [{ segmentBytes: 'x' }, Error, /Invalid index\.segmentBytes: "x"; expected a positive whole number/],
        [{ rebuildAfter: '40' }, Error, /Invalid index\.rebuildAfter: "40"; expected a positive whole number/],
        [{ segmentBytes: 1.5 }, Error, /Invalid index\.segmentBytes: 1\.5/],
        [{ rebuildAfter: -5 }, Error, /Invalid index\.rebuildAfter: -5/],
        [{ rebuildAfter: 0 }, Error, /Invalid index\.rebuildAfter: 0/],
        [{ watcher: 'bogus' }, Error, /Invalid index\.watcher: "bogus"; expected auto, inotify, parcel/],
        [{ watch: 'yes' }, Error, /Invalid index\.watch: "yes"; expected true or false/],
        [{ merge: 1 }, Error, /Invalid index\.merge: 1/],
        [{ symbols: 'on' }, Error, /Invalid index\.symbols: "on"; expected true or false/],
        [{ dir: '' }, Error, /Invalid index\.dir: ""; expected a directory path/],
        [{ dir: 42 }, Error, /Invalid index\.dir: 42/],
        [{ bogus: 1 }, TypeError, /Unknown index setting: bogus\. Settings: dir, watcher, watch, merge, symbols, rebuildAfter, segmentBytes\./],
        ['yes', TypeError, /Invalid index: "yes"; expected true, false or an object/],
        [[], TypeError, /Invalid index: \[\]; expected true, false or an object/],
    ])('refuses %j, naming the setting, and makes nothing on disk', (index, kind, message) => {
        const { error, dir } = attempt(index);
        expect(error).toBeInstanceOf(kind);
        expect((error as Error).message).toMatch(message);
        expect(fs.existsSync(dir)).toBe(false);
    });

    it('takes every documented setting with a valid value', () => {
        const { error } = attempt({ watch: true, watcher: 'inotify', rebuildAfter: 10, segmentBytes: 1 << 20, merge: false, symbols: false });
        expect(error).toBeUndefined();
    });
});
