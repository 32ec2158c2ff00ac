import { errors } from '../errors/shared/errors.js';
import { globAsRegex, looksLikeGlob } from '../search/glob-hint.js';
import { MAX_PATTERN_LENGTH } from '../search/prepare.js';
import { compilePattern, inlineFlagsHint, mayBacktrack } from '../search/regex.js';
import type { Definition } from './shared/types.js';

/**
 * What a model may ask for by name: an exact name (`kvm_vcpu_ioctl`), a name path whose last
 * parts are the containers (`Engine/search`, `Engine.search`, `std::vector::push_back`), or with
 * `regex` a JavaScript regex matched against the name (files are searched for it with its `^` and
 * `$` anchors as word boundaries).
 */
export interface NameQuery {
    /** The identifier that must appear in a file for it to be a candidate (`undefined` for a regex). */
    word: string | undefined;
    matches(d: Definition): boolean;
    /** The regex source to search file contents with. */
    contentPattern: string;
    /** The name's regex, for a regex query. */
    regex?: RegExp;
    /** The containers a name path gives before the name (`['Engine']` for `Engine/search`). */
    containers?: readonly string[];
}

export function nameQuery(name: string, regex: boolean, tool: string): NameQuery {
    // Said here, naming `name`: the content search the name becomes would name its own parameter.
    if (name.length > MAX_PATTERN_LENGTH) throw errors.invalidArgument(tool, `name is ${name.length.toLocaleString('en-US')} characters long, above the limit of ${MAX_PATTERN_LENGTH.toLocaleString('en-US')}.`);
    if (regex) {
        let re: RegExp;
        try {
            re = new RegExp(name, 'u');
        } catch (err) {
            const hint = inlineFlagsHint(name, false, 'u');
            throw errors.invalidArgument(tool, `name is not a valid regex: ${(err as Error).message}${hint === '' ? '' : `. ${hint}`}`);
        }
        if (mayBacktrack(compilePattern(name))) {
            throw errors.invalidArgument(tool, `name ${JSON.stringify(name)} may backtrack without bound (a repeated group holding a quantifier or an alternation, or a backreference): write it without one.`);
        }
        // The anchors become word edges where the name's edge is an ASCII word character (`\b` knows no other); elsewhere none.
        const start = name.startsWith('^') ? name.slice(1) : null;
        let body = start ?? name;
        const end = /(?<!\\)\$$/.test(body);
        if (end) body = body.slice(0, -1);
        const contentPattern = `${start !== null ? edgeOf(body[0]) : ''}${body}${end && body.at(-2) !== '\\' ? edgeOf(body.at(-1)) : ''}`;
        return { word: undefined, regex: re, matches: (d) => re.test(d.name), contentPattern };
    }
    // A leading `::` is C++'s global namespace; any other empty part (`a..b`, `.b`, `A/`) is a
    // mistake. Call parentheses after a part (`run()`, as text often names a function) are left out.
    const parts = name.replace(/^::/, '').split(/::|\/|\./).map((p) => p.replace(/\(\)$/, ''));
    const last = parts.pop();
    if (last === undefined || parts.some((p) => p.length === 0) || !/^[\p{L}\p{N}_$~]+$/u.test(last)) {
        throw errors.invalidArgument(tool, `name ${JSON.stringify(name)} is not an identifier or a name path such as "Class/method"${tool === 'find_symbol' ? regexAdvice(name) : ''}.`);
    }
    return {
        word: last,
        containers: parts,
        matches: (d) => d.name === last && endsWith(d.container, parts),
        contentPattern: `${edgeOf(last[0])}${last.replace(/[$]/g, '\\$&')}${edgeOf(last.at(-1))}`,
    };
}

/** find_symbol's advice for a name that is not one: the regex a glob means, else `regex: true`. */
function regexAdvice(name: string): string {
    const regex = looksLikeGlob(name) ? globAsRegex(name) : null;
    return regex === null ? ' (use regex: true for a pattern)' : `: it reads as a glob; with regex: true, ${JSON.stringify(regex)} finds the names it means`;
}

/** `\b` before or after a name whose edge is `ch`, when it is an ASCII word character; else nothing (more files searched, none missed: the parse decides). */
function edgeOf(ch: string | undefined): string {
    return ch !== undefined && /^[A-Za-z0-9_]$/.test(ch) ? '\\b' : '';
}

/** `container.name`, as tools print a definition. */
export function dotted(d: Pick<Definition, 'container' | 'name'>): string {
    return [...d.container, d.name].join('.');
}

/**
 * Whether a definition's containers end with the asked ones. A class template's container is
 * written with its arguments (`X<T>`, as out-of-class members spell it), which a model leaves out:
 * `X::v` matches it as `X<T>::v` does.
 */
function endsWith(container: readonly string[], parts: readonly string[]): boolean {
    if (parts.length > container.length) return false;
    const off = container.length - parts.length;
    return parts.every((p, i) => {
        const c = container[off + i]!;
        return c === p || (!p.includes('<') && c.endsWith('>') && c.slice(0, c.indexOf('<')) === p);
    });
}
