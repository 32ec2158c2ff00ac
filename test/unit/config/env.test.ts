/** config/env.ts: parsing LLM_CHAT_FS_* values, with errors that name the variable. */
import { describe, expect, it } from 'vitest';
import { checkPositiveInt, envBoolean, envList, envPositiveInt, envString } from '../../../src/config/shared/env.js';

const NAME = 'LLM_CHAT_FS_TEST_VALUE';
const env = (value?: string): NodeJS.ProcessEnv => (value === undefined ? {} : { [NAME]: value });

describe('envPositiveInt', () => {
    it('reads a positive whole number, trimmed; unset or blank gives the fallback', () => {
        expect(envPositiveInt(NAME, 7, env('42'))).toBe(42);
        expect(envPositiveInt(NAME, 7, env(' 1000 '))).toBe(1000);
        expect(envPositiveInt(NAME, 7, env())).toBe(7);
        expect(envPositiveInt(NAME, 7, env(''))).toBe(7);
        expect(envPositiveInt(NAME, 7, env('   '))).toBe(7);
    });

    it.each(['0', '-1', '1.5', 'abc', '12abc', '9007199254740993', 'Infinity', 'NaN'])('refuses %j, naming the variable and the value', (raw) => {
        expect(() => envPositiveInt(NAME, 7, env(raw))).toThrow(`Invalid ${NAME}=${JSON.stringify(raw)}: expected a positive whole number.`);
    });

    it('reads process.env by default', () => {
        process.env[NAME] = '5';
        try {
            expect(envPositiveInt(NAME, 7)).toBe(5);
        } finally {
            delete process.env[NAME];
        }
        expect(envPositiveInt(NAME, 7)).toBe(7);
    });
});

describe('envBoolean', () => {
    it.each([
        ['true', true],
        ['TRUE', true],
        [' yes ', true],
        ['1', true],
        ['on', true],
        ['false', false],
        ['No', false],
        ['0', false],
        ['OFF', false],
    ])('reads %j as %s', (raw, expected) => {
        expect(envBoolean(NAME, !expected, env(raw))).toBe(expected);
    });

    it('gives the fallback when unset or blank, and refuses anything else', () => {
        expect(envBoolean(NAME, true, env())).toBe(true);
        expect(envBoolean(NAME, false, env(' '))).toBe(false);
        expect(() => envBoolean(NAME, false, env('maybe'))).toThrow(`Invalid ${NAME}="maybe": expected true or false (also accepted: 1/0, yes/no, on/off).`);
        expect(() => envBoolean(NAME, false, env('2'))).toThrow(NAME);
    });
});

describe('envList', () => {
    it('splits on commas, trims and drops empty items; unset gives undefined, blank an empty list', () => {
        expect(envList(NAME, env('a, b ,,c,'))).toEqual(['a', 'b', 'c']);
        expect(envList(NAME, env('/one path/with spaces'))).toEqual(['/one path/with spaces']);
        expect(envList(NAME, env(''))).toEqual([]);
        expect(envList(NAME, env(' , '))).toEqual([]);
        expect(envList(NAME, env())).toBeUndefined();
    });
});

describe('envString', () => {
    it('gives the trimmed value, or undefined when unset or blank', () => {
        expect(envString(NAME, env(' /work '))).toBe('/work');
        expect(envString(NAME, env('   '))).toBeUndefined();
        expect(envString(NAME, env())).toBeUndefined();
    });
});

describe('checkPositiveInt', () => {
    it('passes a positive whole number through and refuses others, naming the option', () => {
        expect(checkPositiveInt('maxResults', 3)).toBe(3);
        for (const bad of [0, -2, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
            expect(() => checkPositiveInt('maxResults', bad)).toThrow(`Invalid maxResults: ${String(bad)}; expected a positive whole number.`);
        }
        // A value of the wrong type, as plain JavaScript may pass it, is shown as what it is.
        expect(() => checkPositiveInt('timeoutMs', '40' as unknown as number)).toThrow('Invalid timeoutMs: "40"; expected a positive whole number.');
    });
});
