import { describe, expect, it } from 'vitest';
import { Utf16Writer } from '../../../src/print/utf16-writer.js';

const utf16 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf16le'));

describe('Utf16Writer', () => {
    it('copies byte ranges short and long, at any offset of a view, lone surrogates included', () => {
        const short = 'héllo 日本 \ud83d';
        const long = 'x'.repeat(600) + '😀' + 'y'.repeat(10);
        // Views that start inside a larger buffer, as a packed run's text does.
        const backing = new Uint8Array(64 + 2 * (short.length + long.length));
        backing.set(utf16(short), 64);
        backing.set(utf16(long), 64 + 2 * short.length);
        const text = new Uint8Array(backing.buffer, 64);
        const w = new Utf16Writer(1 << 20);
        w.bytes(text, 2, 2 * short.length); // a short range, not from the view's start
        w.char(124);
        w.bytes(text, 2 * short.length); // a long range (1,222 bytes) to the end
        w.startLine();
        w.number(4_294_967_295);
        w.char(58);
        w.string('\udc00tail');
        expect(w.take()).toBe(`${short.slice(1)}|${long}\n4294967295:\udc00tail`);
        expect(w.size).toBe(0);
    });

    it('grows past its first buffer and hands out full blocks of whole lines', () => {
        // Blocks of 100,000 bytes: past the writer's first buffer of 64 KiB.
        const w = new Utf16Writer(100_000);
        const line = utf16('abc'.repeat(100)); // 600 bytes
        const blocks: string[] = [];
        for (let i = 0; i < 300; i++) {
            w.startLine();
            w.bytes(line);
            const full = w.takeFull();
            if (full !== undefined) blocks.push(full);
        }
        if (w.size > 0) blocks.push(w.take());
        // 167 lines of 600 bytes and their line breaks reach 100,000 bytes; the rest is the last block.
        expect(blocks.map((b) => b.split('\n').length)).toEqual([167, 133]);
        expect(blocks.join('\n')).toBe(Array.from({ length: 300 }, () => 'abc'.repeat(100)).join('\n'));
    });

    it('gives the same text whether a block holds only Latin-1 characters or any others, wherever they come', () => {
        const w = new Utf16Writer();
        for (const text of ['plain ascii', 'latin-1 ÿ é \u0080', `${'a'.repeat(5000)}\u0100`, `日${'b'.repeat(3000)}`, '', `${'c'.repeat(70_000)}😀`]) {
            w.string(text);
            expect(w.take()).toBe(text);
            // Written as bytes too, as packed hit texts are.
            w.bytes(new Uint8Array(Buffer.from(text, 'utf16le')));
            expect(w.take()).toBe(text);
        }
    });
});
