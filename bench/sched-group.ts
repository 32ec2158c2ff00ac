/**
 * `npm run bench -- sched-group [--rounds 4] [--seconds 20]`: how long the host's event loop
 * waits while SCHED_IDLE threads burn CPU, by where they run: nowhere, in a process of the host's
 * own session, in a process of a session of its own (Linux; `chrt` and `stress-ng`). With
 * autogroup (`/proc/sys/kernel/sched_autogroup_enabled`), a session's threads share one
 * scheduling group: SCHED_IDLE work yields within its group only, so the group's share it uses
 * while the host sleeps is the host's wait when it wakes. The index's builds and the symbol
 * table's run on SCHED_IDLE threads of the host's own process, hence in its group. Each round
 * runs the three cases in turn; each case's longest waits (a 1 ms timer's gaps) and its count of
 * waits over 20 ms.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { benchArgs, fmtMs, intFlag, loadAverages, machine, median } from './common.js';

const CASES = ['none', 'same session', 'own session'] as const;

async function waitsWith(where: (typeof CASES)[number], ms: number): Promise<{ longest: number[]; over20: number }> {
    let burner: ChildProcess | undefined;
    if (where !== 'none') burner = spawn('chrt', ['-i', '0', 'stress-ng', '--cpu', '2', '--timeout', `${Math.ceil(ms / 1000) + 5}s`, '--quiet'], { stdio: 'ignore', detached: where === 'own session' });
    await new Promise((r) => setTimeout(r, 500));
    const waits: number[] = [];
    let last = performance.now();
    const timer = setInterval(() => {
        const now = performance.now();
        if (now - last > 20) waits.push(now - last);
        last = now;
    }, 1);
    await new Promise((r) => setTimeout(r, ms));
    clearInterval(timer);
    burner?.kill();
    if (burner !== undefined && burner.exitCode === null) await new Promise((r) => burner!.once('exit', r));
    return { longest: waits.sort((a, b) => b - a).slice(0, 3), over20: waits.length };
}

export async function schedGroupMain(argv: string[]): Promise<void> {
    const { flags } = benchArgs(argv);
    const rounds = intFlag(flags, 'rounds', 4);
    const ms = intFlag(flags, 'seconds', 20) * 1000;
    const autogroup = fs.existsSync('/proc/sys/kernel/sched_autogroup_enabled') ? fs.readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() : 'n/a';
    console.log(`# The host's event loop beside SCHED_IDLE work (${machine()}; autogroup ${autogroup})\n`);
    console.log(`Two SCHED_IDLE CPU burners (\`chrt -i 0 stress-ng --cpu 2\`), ${ms / 1000} s per case, ${rounds} rounds.\n`);
    console.log('| round | case | longest waits | waits over 20 ms | load average after |\n| ---: | --- | ---: | ---: | --- |');
    const worst = new Map<string, number[]>(CASES.map((c) => [c, []]));
    for (let r = 1; r <= rounds; r++) {
        for (const c of CASES) {
            const w = await waitsWith(c, ms);
            worst.get(c)!.push(w.longest[0] ?? 0);
            console.log(`| ${r} | ${c} | ${w.longest.map(fmtMs).join(', ')} | ${w.over20} | ${loadAverages()} |`);
        }
    }
    console.log(`\nMedian of the rounds' longest waits: ${CASES.map((c) => `${c} ${fmtMs(median(worst.get(c)!))}`).join('; ')}.`);
}
