/**
 * `npm run bench -- media [--runs 7]`: `read_file` on media files made here: a 4,000×3,000 JPEG
 * (time, pixels sent), a 20,000×20,000 one-colour PNG (time to refuse it from its header), a
 * 300-page text PDF (pages 150-152, and the first call without pages) and a notebook of 200 cells
 * with image outputs (the cell view's share of the file's characters), a PDF page of vector
 * drawing rendered as an image and a page of one 300-dpi scan sent as its picture; the host's longest
 * event-loop delay during the calls. Medians of warm runs on a package of its own; the first call
 * of a fresh package (pool start, libraries loaded) apart. Results to bench/results/media-<date>.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import sharp from 'sharp';
import { AccessType, FileConfiguration, FileToolPackage, Workspace } from '../src/index.js';
import type { FileToolResult } from '../src/tools/base.js';
import { drawingPdf, image, notebook, onePngColour, scannedPdf, textPdf } from '../test/support/media-files.js';
import { benchArgs, fmtMs, intFlag, machine, median, REPO } from './common.js';

interface Row {
    what: string;
    target: string;
    first: number;
    warm: number;
    result: string;
}

export async function mediaMain(argv: readonly string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const runs = intFlag(flags, 'runs', 7);
    const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'lcf-bench-media-'));
    try {
        console.log('making the files ...');
        fs.writeFileSync(path.join(dir, 'photo.jpg'), await image(4000, 3000, 'jpeg'));
        fs.writeFileSync(path.join(dir, 'bomb.png'), onePngColour(20_000, 20_000));
        fs.writeFileSync(path.join(dir, 'doc.pdf'), await textPdf(300, 45));
        const nb = notebook(200, 20_000);
        fs.writeFileSync(path.join(dir, 'nb.ipynb'), nb);
        fs.writeFileSync(path.join(dir, 'drawing.pdf'), await drawingPdf(await image(400, 300, 'png')));
        // An A4 page scanned at 300 dpi.
        fs.writeFileSync(path.join(dir, 'scan.pdf'), await scannedPdf(await image(2480, 3508, 'png')));
        const pkg = new FileToolPackage(new Workspace({ accesses: [{ type: AccessType.Read, path: dir }], workspacePath: dir }), { fileConfig: new FileConfiguration(1_000_000) });
        const read = pkg.tools().find((t) => t.name === 'read_file')!;
        const delay = monitorEventLoopDelay({ resolution: 1 });
        const time = async (args: Record<string, unknown>): Promise<{ ms: number; r: FileToolResult }> => {
            const t0 = performance.now();
            const [r] = (await read.execute(args)) as FileToolResult[];
            return { ms: performance.now() - t0, r: r! };
        };
        const measure = async (what: string, target: string, args: Record<string, unknown>, describe: (r: FileToolResult) => Promise<string> | string): Promise<Row> => {
            const first = await time(args);
            const warm: number[] = [];
            for (let i = 0; i < runs; i++) warm.push((await time(args)).ms);
            return { what, target, first: first.ms, warm: median(warm), result: await describe(first.r) };
        };
        delay.enable();
        const rows: Row[] = [];
        rows.push(
            await measure('4,000×3,000 JPEG', '≤ 300 ms, ≤ 1.15 MP', { paths: ['photo.jpg'] }, async (r) => {
                const part = r.parts?.find((p) => p.type === 'image');
                if (part?.type !== 'image') return r.result;
                const m = await sharp(Buffer.from(part.data, 'base64')).metadata();
                return `${m.width}×${m.height} = ${((m.width * m.height) / 1e6).toFixed(2)} MP, ${Math.round((part.data.length * 3) / 4 / 1024)} KiB`;
            }),
        );
        rows.push(await measure('20,000×20,000 PNG (bomb)', 'refused ≤ 50 ms', { paths: ['bomb.png'] }, (r) => `${r.status}: ${r.result.slice(0, 60)}...`));
        rows.push(await measure('300-page PDF, pages 150-152', '≤ 500 ms', { paths: ['doc.pdf'], pages: '150-152', max_chars: 10_000 }, (r) => r.result.split('\n')[0]!.replace(dir + '/', '')));
        rows.push(await measure('300-page PDF, no pages', '≤ 1 s', { paths: ['doc.pdf'], max_chars: 10_000 }, (r) => r.result.split('\n')[0]!.replace(dir + '/', '')));
        rows.push(await measure('notebook, 200 cells, image outputs', 'view ≤ 10% of the file', { paths: ['nb.ipynb'], cells: 'all' }, (r) => `${r.result.length.toLocaleString('en-US')} of ${nb.length.toLocaleString('en-US')} characters = ${((100 * r.result.length) / nb.length).toFixed(1)}%`));
        const pageLine = (r: FileToolResult): string => (r.parts?.[0]?.type === 'text' ? r.parts[0].text : r.result).split('\n').find((l) => l.startsWith('[no text layer'))!.replace(/^\[no text layer on this page: /, '').replace(/\]$/, '');
        rows.push(await measure('PDF page of vector drawing, page_images', 'rendered', { paths: ['drawing.pdf'], pages: '2', page_images: true }, pageLine));
        rows.push(await measure('PDF page of one 2,480×3,508 scan, page_images', 'its picture', { paths: ['scan.pdf'], pages: '2', page_images: true }, pageLine));
        delay.disable();
        await pkg.close();
        const lines = [
            '# Media reads',
            '',
            `\`npm run bench -- media --runs ${runs}\`, ${new Date().toISOString()}; ${machine()}.`,
            `Each call through \`read_file\` on a package of its own (its pool on ${os.availableParallelism()} cores); "first" is the first call of the package (pool start, the library loaded on its thread), "warm" the median of ${runs} more.`,
            '',
            '| File | Target | First | Warm (median) | Result |',
            '| --- | --- | ---: | ---: | --- |',
            ...rows.map((r) => `| ${r.what} | ${r.target} | ${fmtMs(r.first)} | ${fmtMs(r.warm)} | ${r.result.replace(/\|/g, '\\|')} |`),
            '',
            `Longest event-loop delay of the host during all the calls: ${fmtMs(delay.max / 1e6)} (decoding and parsing run on the pool's threads).`,
            '',
        ];
        const out = path.join(REPO, 'bench', 'results', `media-${new Date().toISOString().slice(0, 10)}.md`);
        fs.writeFileSync(out, lines.join('\n'));
        console.log(lines.join('\n'));
        console.log(`written to ${out}`);
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}
