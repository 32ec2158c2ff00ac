import fsp from 'node:fs/promises';
import { crcInSlices, tableBody, tableHeader, type FileTable } from './shared/format.js';
import type { Pause } from './shared/table-names.js';

/**
 * A build's table file (format.ts), written in two steps: what the walk gave (the columns but the
 * flags, the name posting lists) as soon as it is decoded, the flags and the names once the
 * contents are read. Memory: the walk's buffer (71 MB at ten times the Linux tree, half of it the
 * name lists' ids, which the index reads from this file) can then be let go before the contents
 * are read, the table held in a compact copy (format.ts compactTable) for the rest of the build
 * and served as it is: no second copy made while a rebuild's table loads beside the served one.
 */
export class TableFileWriter {
    readonly #fh: fsp.FileHandle;
    readonly #idCount: number;
    /** Bytes written (the header's place first) and the CRC-32 of the body so far. */
    #at: number;
    #crc: number;

    private constructor(fh: fsp.FileHandle, idCount: number, at: number, crc: number) {
        [this.#fh, this.#idCount, this.#at, this.#crc] = [fh, idCount, at, crc];
    }

    /** Creates `file` (it must not exist; mode 0600) and writes `t`'s columns but its flags, and its name lists; a failure removes it. */
    static async start(file: string, t: FileTable, pause: Pause): Promise<TableFileWriter> {
        const fh = await fsp.open(file, 'wx', 0o600);
        try {
            const early = tableBody(t, Buffer.alloc(0)).slice(0, -2);
            let at = tableHeader(t, 0, 0).length;
            let crc = 0;
            for (const part of early) {
                crc = await crcInSlices(part, pause, crc);
                await writeAll(fh, part, at);
                at += part.length;
            }
            return new TableFileWriter(fh, t.grams.ids.length, at, crc);
        } catch (err) {
            await fh.close();
            await fsp.rm(file, { force: true });
            throw err;
        }
    }

    /** Writes `t`'s flags and names, then the header; closes the file. Returns its length in bytes. */
    async finish(t: FileTable, pause: Pause): Promise<number> {
        try {
            const late = tableBody(t, t.names.bytes).slice(-2);
            for (const part of late) {
                this.#crc = await crcInSlices(part, pause, this.#crc);
                await writeAll(this.#fh, part, this.#at);
                this.#at += part.length;
            }
            await writeAll(this.#fh, tableHeader(t, t.names.bytes.length, this.#crc, this.#idCount), 0);
            return this.#at;
        } finally {
            await this.#fh.close();
        }
    }

    /** Closes the file unfinished (the build failed; its folder is removed). */
    async abort(): Promise<void> {
        await this.#fh.close().catch(() => undefined);
    }
}

async function writeAll(fh: fsp.FileHandle, bytes: Uint8Array, pos: number): Promise<void> {
    for (let done = 0; done < bytes.length; ) done += (await fh.write(bytes, done, bytes.length - done, pos + done)).bytesWritten;
}
