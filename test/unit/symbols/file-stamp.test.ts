/**
 * A file's stamp and the bounded map the symbol table's caches keep: a stamp changes with every
 * write, times put back included, and vouches only once settled; the map drops the least recently
 * used past its weight.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Lru } from '../../../src/search/shared/lru.js';
import { SETTLED_MS, settled, stampOf } from '../../../src/symbols/file-stamp.js';
import { tempDir, until } from '../../support/helpers.js';

describe('file stamps', () => {
    it('change with every write past a settled stamp, its times put back or not, and with a file put in its place', async () => {
        const dir = tempDir('lcf-stamp-');
        const file = path.join(dir, 'a.c');
        fs.writeFileSync(file, 'int a;\n');
        // Settled: a write now cannot fall in the clock tick of the last change.
        await until(() => settled(fs.statSync(file)), 100);
        const first = stampOf(fs.statSync(file));
        expect(stampOf(fs.statSync(file))).toBe(first);
        const times = path.join(dir, 'times');
        fs.writeFileSync(times, '');
        execFileSync('touch', ['-r', file, times]);
        fs.writeFileSync(file, 'int b;\n');
        execFileSync('touch', ['-r', times, file]);
        const second = stampOf(fs.statSync(file));
        expect(second, 'same size and times, a later change time').not.toBe(first);
        fs.writeFileSync(path.join(dir, 'b.c'), 'int b;\n');
        fs.renameSync(path.join(dir, 'b.c'), file);
        expect(stampOf(fs.statSync(file)), 'another inode').not.toBe(second);
    });

    it('vouch only once the last change is old enough', () => {
        const st = fs.statSync(tempDir('lcf-stamp-settled-'));
        const last = Math.max(st.mtimeMs, st.ctimeMs);
        expect(settled(st, last)).toBe(false);
        expect(settled(st, last + SETTLED_MS - 1)).toBe(false);
        expect(settled(st, last + SETTLED_MS)).toBe(true);
    });
});

describe('the bounded map', () => {
    it('drops the least recently used past its weight, and keeps nothing heavier than it', () => {
        const lru = new Lru<string, Buffer>(10, (b) => b.length);
        lru.set('a', Buffer.alloc(4));
        lru.set('b', Buffer.alloc(4));
        expect(lru.get('a')?.length).toBe(4);
        lru.set('c', Buffer.alloc(4));
        expect(lru.get('b'), 'the least recently used').toBeUndefined();
        expect(lru.get('a')).toBeDefined();
        expect(lru.get('c')).toBeDefined();
        expect(lru.weight).toBe(8);
        lru.set('a', Buffer.alloc(2));
        expect(lru.weight, 'replaced, not added').toBe(6);
        lru.set('big', Buffer.alloc(11));
        expect(lru.get('big')).toBeUndefined();
        expect(lru.size).toBe(2);
        lru.delete('a');
        expect(lru.weight).toBe(4);
        lru.clear();
        expect([lru.size, lru.weight]).toEqual([0, 0]);
    });
});
