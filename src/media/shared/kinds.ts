/**
 * Which files `read_file` shows as media rather than text, by their extension; the content then
 * decides (an image library or the PDF parser refuses a file that is not what its name says).
 * SVG is not here: it is text and is read as text.
 */

/** The media kinds `read_file` reads: images, PDF documents and Jupyter notebooks. */
export type MediaKind = 'image' | 'pdf' | 'notebook';

const KINDS: ReadonlyMap<string, MediaKind> = new Map<string, MediaKind>([
    ...['.png', '.jpg', '.jpeg', '.gif', '.webp', '.bmp', '.tif', '.tiff', '.avif', '.heic', '.heif'].map((e) => [e, 'image'] as const),
    ['.pdf', 'pdf'],
    ['.ipynb', 'notebook'],
]);

/** The media kind of a path by its extension (case-insensitive), or `undefined` for any other file. */
export function mediaKindOf(path: string): MediaKind | undefined {
    const dot = path.lastIndexOf('.');
    if (dot < 0 || dot < path.lastIndexOf('/')) return undefined;
    return KINDS.get(path.slice(dot).toLowerCase());
}
