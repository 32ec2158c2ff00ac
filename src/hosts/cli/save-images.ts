import fs from 'node:fs';
import path from 'node:path';
import { describePart, type BinaryPart } from '../../content/parts.js';
import { makeDirectories } from '../../fs/make-directories.js';

/** File name extensions of the image types the tools send. */
const EXTENSIONS: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** Most names tried for one image before giving up (`image-1.png` ... `image-10000.png`). */
const MAX_TRIES = 10_000;

/** Writes a command's image parts into a directory and says where each went. */
export interface ImageSaver {
    /** The summary line of `part`: `[image image/png, 1,234 bytes, saved to /dir/image-1.png]`. */
    line(part: BinaryPart): string;
    /** Whether an image could not be written (the command then exits with the code of `io`). */
    failed: boolean;
}

/**
 * The saver for `--save-images DIR` (relative to `cwd`): the directory is created when missing
 * (mode 0700, as the images may show private data), and must be a directory.
 * @returns a message saying what is wrong with `dir`, or the saver.
 */
export async function imageSaver(dir: string, cwd: string): Promise<ImageSaver | string> {
    if (dir.trim() === '') return '--save-images needs a directory; got an empty string.';
    const abs = path.resolve(cwd, dir);
    try {
        if (!(await makeDirectories(abs, 0o700))) return `--save-images ${dir}: not a directory. Name a directory, not a file.`;
    } catch (err) {
        return `--save-images ${dir}: cannot be used (${(err as NodeJS.ErrnoException).code ?? String(err)}). Name a directory you can write to.`;
    }
    const saver: ImageSaver = {
        failed: false,
        line(part) {
            if (part.type !== 'image') return `[${describePart(part)}]`;
            const bytes = Buffer.from(part.data, 'base64');
            const ext = EXTENSIONS[part.mimeType] ?? 'bin';
            for (let n = 1; n <= MAX_TRIES; n++) {
                const file = path.join(abs, `image-${n}.${ext}`);
                try {
                    // Security: 'wx' is O_CREAT|O_EXCL: an existing file, or a link planted under the name, is never written through.
                    fs.writeFileSync(file, bytes, { flag: 'wx', mode: 0o600 });
                    return `[image ${part.mimeType}, ${bytes.length.toLocaleString('en-US')} bytes, saved to ${file}]`;
                } catch (err) {
                    if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
                    saver.failed = true;
                    return `[${describePart(part)}, not saved: ${(err as Error).message}]`;
                }
            }
            saver.failed = true;
            return `[${describePart(part)}, not saved: ${abs} already holds image-1.${ext} to image-${MAX_TRIES}.${ext}]`;
        },
    };
    return saver;
}
