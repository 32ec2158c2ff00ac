/**
 * The symbols bench's corpora: one real tree per language, each from a stable place on this
 * machine that a Debian or npm package puts there, so a run on another machine samples the same
 * files. A corpus that is missing is skipped with the line saying how to install it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kernelTree } from './common.js';

export interface Corpus {
    lang: string;
    /** Directories sampled; none when the corpus is missing. */
    dirs: string[];
    /** Where the files come from, for the report. */
    source: string;
    /** How to get the corpus when it is missing. */
    install: string;
    /** Files of the language that are not source to compare (declaration files, minified bundles). */
    skip?: (file: string) => boolean;
}

const CACHE = path.join(os.homedir(), '.cache', 'llm-chat-file-corpora');
const TLDRAW = '5.4.2';

/** npm packages whose plain, unminified, hand-written sources are a corpus: the package, its version, the folders of it sampled. */
interface NpmSource {
    pkg: string;
    version: string;
    dirs: string[];
}

/** JavaScript: ES classes and modules (three), CommonJS classes with JSDoc (webpack), ES5 prototypes (express). */
const JS_PACKAGES: NpmSource[] = [
    { pkg: 'three', version: '0.170.0', dirs: ['src'] },
    { pkg: 'webpack', version: '5.97.1', dirs: ['lib'] },
    { pkg: 'express', version: '4.21.2', dirs: ['lib'] },
];
/** TypeScript: operator functions and classes (rxjs), a client library's classes (query-core), a server's generics (trpc). */
const TS_PACKAGES: NpmSource[] = [
    { pkg: 'rxjs', version: '7.8.1', dirs: ['src'] },
    { pkg: '@tanstack/query-core', version: '5.62.8', dirs: ['src'] },
    { pkg: '@trpc/server', version: '10.45.2', dirs: ['src'] },
];

/** The folder `npm pack` names after a package: `@tanstack/query-core@5.62.8` is `tanstack-query-core-5.62.8`. */
const packed = (s: NpmSource): string => `${s.pkg.replace(/^@/, '').replace('/', '-')}-${s.version}`;

function npmCorpus(lang: string, sources: NpmSource[], skip?: (f: string) => boolean): Corpus {
    const dirs = sources.flatMap((s) => s.dirs.map((d) => path.join(CACHE, packed(s), 'package', d)));
    return {
        lang,
        dirs: dirs.every((d) => fs.existsSync(d)) ? dirs : [],
        source: `the npm packages ${sources.map((s) => `${s.pkg} ${s.version} (${s.dirs.join(', ')})`).join(', ')}, unpacked in ${CACHE}`,
        install: `cd ${CACHE} && ${sources.map((s) => `npm pack ${s.pkg}@${s.version} && mkdir ${packed(s)} && tar -xzf ${packed(s)}.tgz -C ${packed(s)}`).join(' && ')}`,
        ...(skip && { skip }),
    };
}

function newest(parent: string, pattern: RegExp): string | undefined {
    if (!fs.existsSync(parent)) return undefined;
    return fs
        .readdirSync(parent)
        .filter((d) => pattern.test(d))
        .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
        .pop();
}

function existing(dirs: readonly string[]): string[] {
    return dirs.filter((d) => fs.existsSync(d));
}

function kernel(flags: Map<string, string>): string[] {
    try {
        const k = kernelTree(flags).root;
        return existing(['kernel', 'mm', 'fs/ext4', 'net/ipv4'].map((d) => path.join(k, d)));
    } catch {
        return [];
    }
}

/** OpenJDK's sources, unpacked once from the JDK's src.zip into the cache (a few modules: 6,000 files). */
function openjdk(): string[] {
    const dir = path.join(CACHE, 'openjdk-17-src');
    const zip = '/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip';
    if (!fs.existsSync(path.join(dir, 'java.base')) && fs.existsSync(zip)) {
        fs.mkdirSync(dir, { recursive: true });
        execFileSync('unzip', ['-q', '-o', zip, 'java.base/*', 'java.desktop/*', 'java.net.http/*', 'java.sql/*', '-d', dir], { stdio: 'inherit' });
    }
    return existing([path.join(dir, 'java.base'), path.join(dir, 'java.desktop'), path.join(dir, 'java.net.http'), path.join(dir, 'java.sql')]);
}

const declarationFile = (f: string): boolean => f.endsWith('.d.ts') || f.endsWith('.d.mts') || f.endsWith('.d.cts');

/** Every language's default corpus. */
export function defaultCorpora(flags: Map<string, string>): Corpus[] {
    const py = newest('/usr/lib', /^python3\.\d+$/);
    const go = newest('/usr/share', /^go-1\.\d+$/);
    const boost = '/usr/include/boost';
    return [
        { lang: 'c', dirs: kernel(flags), source: 'Linux 6.1: kernel/, mm/, fs/ext4/, net/ipv4/', install: 'the kernel tree of ../shared/tools/kernel-corpus.sh (or --dir / KERNEL_TREE)' },
        { lang: 'cpp', dirs: existing([boost]), source: `Boost headers (${boost}, .hpp .ipp)`, install: 'apt-get install libboost1.81-dev' },
        npmCorpus('javascript', JS_PACKAGES),
        npmCorpus('typescript', TS_PACKAGES, declarationFile),
        {
            lang: 'tsx',
            dirs: existing([path.join(CACHE, `tldraw-${TLDRAW}`)]),
            source: `the tldraw ${TLDRAW} npm package's sources (${CACHE}/tldraw-${TLDRAW})`,
            install: `cd ${CACHE} && npm pack tldraw@${TLDRAW} && mkdir tldraw-${TLDRAW} && tar -xzf tldraw-${TLDRAW}.tgz -C tldraw-${TLDRAW}`,
        },
        { lang: 'python', dirs: py === undefined ? [] : [path.join('/usr/lib', py)], source: `Python's standard library (/usr/lib/${py ?? 'python3.x'})`, install: 'apt-get install python3' },
        { lang: 'go', dirs: go === undefined ? [] : existing([path.join('/usr/share', go, 'src')]), source: `Go's standard library (/usr/share/${go ?? 'go-1.x'}/src)`, install: 'apt-get install golang-src' },
        {
            lang: 'rust',
            dirs: existing(['/usr/share/cargo/registry']),
            source: 'Rust crates of Debian (/usr/share/cargo/registry)',
            install: 'apt-get install librust-tokio-dev librust-serde-dev librust-regex-dev',
        },
        { lang: 'java', dirs: openjdk(), source: `OpenJDK 17's java.base, java.desktop, java.net.http, java.sql (${CACHE}/openjdk-17-src)`, install: 'apt-get install openjdk-17-source unzip (the bench unpacks src.zip)' },
    ];
}

/** Corpora given as `--corpora lang=DIR,lang=DIR`. */
export function givenCorpora(spec: string): Corpus[] {
    const byLang = new Map<string, string[]>();
    for (const part of spec.split(',')) {
        const [lang, dir] = part.split('=');
        byLang.set(lang!, [...(byLang.get(lang!) ?? []), dir!]);
    }
    return [...byLang].map(([lang, dirs]) => ({ lang, dirs: existing(dirs), source: dirs.join(', '), install: `no such directory: ${dirs.join(', ')}` }));
}
