/**
 * Reading `LLM_CHAT_FS_*` environment variables: the one place where the environment is parsed.
 * Invalid values throw an Error naming the variable and what it expects.
 */

/** Reads a positive integer (e.g. a count, bytes or milliseconds) from `name`, or returns `fallback`. */
export function envPositiveInt(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const value = Number(raw.trim());
    if (!Number.isSafeInteger(value) || value <= 0) {
        throw new Error(`Invalid ${name}=${JSON.stringify(raw)}: expected a positive whole number.`);
    }
    return value;
}

/** Reads a boolean (`true/false/1/0/yes/no`, any case) from `name`, or returns `fallback`. */
export function envBoolean(name: string, fallback: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const v = raw.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    if (['false', '0', 'no', 'off'].includes(v)) return false;
    throw new Error(`Invalid ${name}=${JSON.stringify(raw)}: expected true or false (also accepted: 1/0, yes/no, on/off).`);
}

/** Reads a comma-separated list from `name` (empty items dropped), or returns `undefined` when unset. */
export function envList(name: string, env: NodeJS.ProcessEnv = process.env): string[] | undefined {
    const raw = env[name];
    if (raw === undefined) return undefined;
    return raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0);
}

/** Reads a string from `name`, or `undefined` when unset or blank. */
export function envString(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
    const raw = env[name];
    return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

/** An option's value as an error message shows it: a string quoted (`Invalid timeoutMs: 40` would read as a valid value, an empty one as nothing), an array as JSON. */
export function shownValue(value: unknown): string {
    return typeof value === 'string' || Array.isArray(value) ? JSON.stringify(value) : String(value);
}

/** Checks an explicit option: a positive integer, or throws naming the option. */
export function checkPositiveInt(option: string, value: unknown): number {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
        throw new Error(`Invalid ${option}: ${shownValue(value)}; expected a positive whole number.`);
    }
    return value;
}
