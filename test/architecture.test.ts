import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The import rules of src/ and workers/ (.dependency-cruiser.mjs; ARCHITECTURE.md, "Import
 * rules"), checked by dependency-cruiser on the TypeScript sources, type-only imports included.
 * The same check from the command line: `npx depcruise src workers`.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** One line per violation: the rule, the import (or the circle, from the importing module round to it), and why the rule exists. */
function describeViolation(v: IViolation, comments: ReadonlyMap<string, string>): string {
    const route = v.cycle && v.cycle.length > 0 ? [v.from, ...v.cycle.map((c) => c.name)].join(' → ') : `${v.from} → ${v.to}`;
    return `${v.rule.name}: ${route}` + (comments.has(v.rule.name) ? ` (${comments.get(v.rule.name)})` : '');
}

describe('import rules', () => {
    let result: ICruiseResult;
    let comments: Map<string, string>;

    beforeAll(async () => {
        const options = await extractDepcruiseOptions(path.join(ROOT, '.dependency-cruiser.mjs'));
        const tsConfigFile = path.join(ROOT, 'tsconfig.json');
        // Paths from the root whatever the working directory: the rules' patterns are relative to it.
        const cruised = await cruise(['src', 'workers'], { ...options, baseDir: ROOT, tsConfig: { fileName: tsConfigFile } }, {}, { tsConfig: extractTSConfig(tsConfigFile) });
        result = cruised.output as ICruiseResult;
        comments = new Map((options.ruleSet?.forbidden ?? []).map((r) => [r.name ?? '', r.comment ?? '']));
    });

    it('reads the sources and resolves their .js specifiers to the .ts files', () => {
        // A checker that resolved nothing would find no violation either.
        expect(result.summary.totalCruised).toBeGreaterThan(100);
        const walk = result.modules.find((m) => m.source === 'workers/walk.ts');
        expect(walk?.dependencies.some((d) => d.resolved.startsWith('src/common/') && d.resolved.endsWith('.ts'))).toBe(true);
    });

    it('finds no forbidden import: worker code never imports host code, src/common/ nothing above it, no circle between modules or folders', () => {
        const lines = [...new Set(result.summary.violations.map((v) => describeViolation(v, comments)))];
        expect(lines).toEqual([]);
    });
});
