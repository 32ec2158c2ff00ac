import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { BY_FILE, SIG_NONE, type SigPlace } from './shared/symbol-codec.js';
import { signatureCheck, signatureText } from './shared/signature.js';
import { Lru } from '../search/shared/lru.js';
import { settled, stampOf } from './file-stamp.js';

/**
 * Files whose bytes gave the CRC-32 their checkpoints hold, by real path: the stamp they had
 * (file-stamp.ts) and that CRC. Perf: a file with the same stamp and CRC since is not read and
 * checked whole again, only its signatures read (find_symbol PAGE_SIZE prints 53 files'). Some
 * 200 bytes an entry.
 */
export const checkedFiles = new Lru<string, { stamp: string; crc: number }>(4096);

/**
 * The signatures of the symbol table's definitions `ks`, read back from their source files
 * (`realOf(k)`) at their places (`places`, symbol-codec.ts): `null` for one whose text is not
 * known, or does not give the signature's stored check, or whose file no longer gives the CRC-32
 * of its bytes its checkpoints hold (`crcOf(k)`; such a file is read whole, unless it has the
 * stamp it had when last read whole and found to give that CRC): the caller parses that file
 * again.
 */
export async function readSignatures(ks: readonly number[], places: readonly (SigPlace | null)[], realOf: (k: number) => string, crcOf: (k: number) => number | undefined): Promise<(string | null)[]> {
    const byFile = indexesBy(ks, (k, i) => (places[i] === null || places[i]![0] === SIG_NONE ? undefined : realOf(k)));
    const out: (string | null)[] = ks.map(() => null);
    await Promise.all(
        [...byFile].map(async ([real, is]) => {
            const fh = await fsp.open(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW).catch(() => null);
            if (fh === null) return;
            try {
                const crc = places[is[0]!]![2] === BY_FILE ? crcOf(ks[is[0]!]!) : undefined;
                const now = Date.now();
                const st = crc === undefined ? null : await fh.stat();
                const stamp = st === null ? '' : stampOf(st);
                const known = st === null ? undefined : checkedFiles.get(real);
                const trusted = known !== undefined && known.stamp === stamp && known.crc === crc;
                const whole = crc === undefined || trusted ? null : await fh.readFile();
                if (whole !== null) {
                    if (crc32(whole) !== crc) {
                        checkedFiles.delete(real);
                        return;
                    }
                    if (settled(st!, now)) checkedFiles.set(real, { stamp, crc: crc! });
                }
                const sigs: [number, string][] = [];
                for (const i of is) {
                    const [at, lenCut, check] = places[i]!;
                    const len = Math.floor(lenCut / 2);
                    let buf: Buffer;
                    if (whole !== null) buf = whole.subarray(at, at + len);
                    else {
                        buf = Buffer.alloc(len);
                        buf = buf.subarray(0, len === 0 ? 0 : (await fh.read(buf, 0, len, at)).bytesRead);
                    }
                    if (buf.length !== len) continue;
                    const sig = signatureText(buf.toString('utf8'), lenCut % 2 === 1);
                    if (check === BY_FILE ? whole !== null || trusted : signatureCheck(sig) === check) sigs.push([i, sig]);
                }
                // Read under a known stamp: given only when the file still has it after the reads (no write in between).
                if (trusted && stampOf(await fh.stat()) !== stamp) {
                    checkedFiles.delete(real);
                    return;
                }
                for (const [i, sig] of sigs) out[i] = sig;
            } catch {
                // Unreadable now: parsed again by the caller.
            } finally {
                await fh.close();
            }
        }),
    );
    return out;
}

/** The indexes of `items` by the key `keyOf` gives each, in order; an item with no key (`undefined`) is left out. */
export function indexesBy<T, K>(items: readonly T[], keyOf: (item: T, i: number) => K | undefined): Map<K, number[]> {
    const out = new Map<K, number[]>();
    items.forEach((item, i) => {
        const key = keyOf(item, i);
        if (key === undefined) return;
        const list = out.get(key);
        if (list) list.push(i);
        else out.set(key, [i]);
    });
    return out;
}
