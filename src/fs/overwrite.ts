import type { FileHandle } from 'node:fs/promises';

/** Writing through an open file handle: whole buffers, and a file's content replaced in place (shared by safe writes and the restore of a backup). */

/** Writes all of `data` at `position` through `fh` (a short write is continued). */
export async function writeAll(fh: FileHandle, data: Uint8Array, position: number): Promise<void> {
    let done = 0;
    while (done < data.length) {
        const { bytesWritten } = await fh.write(data, done, data.length - done, position + done);
        if (bytesWritten === 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
        done += bytesWritten;
    }
}

/** Replaces the whole content of the open file `fh` with `data`, in place, and syncs it. */
export async function overwrite(fh: FileHandle, data: Uint8Array): Promise<void> {
    await writeAll(fh, data, 0);
    await fh.truncate(data.length);
    await fh.sync();
}
