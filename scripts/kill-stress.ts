/**
 * Kill stress for the output-folder commit protocol: runs `toolgate compile` into one --out again
 * and again, alternating two profiles (so consecutive sets differ), and SIGKILLs each run at a
 * random moment. After every kill `sha256sum -c SHA256SUMS` must pass in --out, and the set must be
 * the whole previous one or the whole new one. A last unkilled run must leave nothing beside --out.
 *
 *   npx tsx scripts/kill-stress.ts [KILLS=100] [--example quickstart|fleet]
 *
 * Even runs are killed at a moment drawn uniformly from [0.2 T, 1.2 T], T the measured length of
 * an unkilled run (most land while the process loads or compiles); odd runs at a moment drawn
 * uniformly from the first KILL_STRESS_COMMIT_MS (default 40) ms after the run's generation folder
 * appears beside --out (watched with inotify, no test hook), so they land inside the commit. Runs
 * that finish before their kill are counted apart, not as kills.
 * Exit 0 when no kill left a broken set; prints the figures as JSON (KILL_STRESS_PROGRESS=1: a
 * line per run on stderr).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, watch, type FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOOLGATE } from '../test/helpers/toolgate-bin.ts';

const ROOT = new URL('../', import.meta.url).pathname;
const BIN = TOOLGATE;
const argv = process.argv.slice(2);
const kills = Number(argv.find((a) => /^\d+$/.test(a)) ?? 100);
const example = argv.includes('--example') ? argv[argv.indexOf('--example') + 1]! : 'quickstart';
const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', SOURCE_DATE_EPOCH: '1767225600' };
const PROFILES = ['strict', 'review'] as const;

const parent = mkdtempSync(join(tmpdir(), 'toolgate-kill-stress-'));
const out = join(parent, 'out');
const args = (profile: string) => [BIN, 'compile', '--example', example, '--profile', profile, '--out', out];

function run(profile: string): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args(profile), { env: ENV, cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`compile failed (${r.status}): ${r.stderr}`);
  return performance.now() - t0;
}

/** The set in --out: 'missing', 'broken', or its profile with its SHA256SUMS text. */
function inspect(): { state: 'missing' | 'broken' | 'ok'; profile?: string; sums?: string } {
  if (!existsSync(out)) return { state: 'missing' };
  const check = spawnSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: out, encoding: 'utf8' });
  if (check.status !== 0) return { state: 'broken' };
  try {
    const profile = JSON.parse(readFileSync(join(out, 'data.json'), 'utf8')).toolgate.profile as string;
    return { state: 'ok', profile, sums: readFileSync(join(out, 'SHA256SUMS'), 'utf8') };
  } catch {
    return { state: 'broken' };
  }
}

/**
 * One run killed with SIGKILL: after `delayMs` from its start (mode 'clock'), or `delayMs` after
 * its new generation folder appears beside --out (mode 'commit', seen through inotify, no hook),
 * which puts the kill inside the commit itself: writing, fsyncing, linking, swapping, removing.
 */
function killedRun(profile: string, mode: 'clock' | 'commit', delayMs: number): Promise<'killed' | 'finished'> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args(profile), { env: ENV, cwd: ROOT, stdio: 'ignore' });
    let timer: NodeJS.Timeout | undefined;
    let watcher: FSWatcher | undefined;
    if (mode === 'clock') timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
    else {
      watcher = watch(parent, (_event, name) => {
        if (timer === undefined && typeof name === 'string' && name.startsWith(`.out.tg-gen-${child.pid}-`)) timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
      });
    }
    child.on('exit', (_code, signal) => {
      clearTimeout(timer);
      watcher?.close();
      resolve(signal === 'SIGKILL' ? 'killed' : 'finished');
    });
  });
}

const times = [run('strict'), run('review'), run('strict')];
const T = times.reduce((a, b) => a + b, 0) / times.length;
const COMMIT_WINDOW_MS = Number(process.env.KILL_STRESS_COMMIT_MS ?? 40);
const figures = { kills: 0, kills_clock: 0, kills_in_commit: 0, finished_before_kill: 0, complete_old: 0, complete_new: 0, missing: 0, broken: 0, leftovers_seen_after_kills: 0, mean_run_ms: Math.round(T) };
let i = 0;
while (figures.kills < kills) {
  const before = inspect();
  if (before.state !== 'ok') throw new Error(`--out is ${before.state} before run ${i}`);
  const profile = PROFILES[(PROFILES.indexOf(before.profile as (typeof PROFILES)[number]) + 1) % 2]!;
  // Half the kills at a random moment of the whole run, half at a random moment of the commit.
  const mode = i % 2 === 0 ? 'clock' : 'commit';
  const delay = mode === 'clock' ? T * (0.2 + 1.0 * Math.random()) : COMMIT_WINDOW_MS * Math.random();
  const how = await killedRun(profile, mode, delay);
  const after = inspect();
  if (how === 'finished') figures.finished_before_kill++;
  else {
    figures.kills++;
    figures[mode === 'clock' ? 'kills_clock' : 'kills_in_commit']++;
    if (readdirSync(parent).length > 2) figures.leftovers_seen_after_kills++;
  }
  if (after.state !== 'ok') figures[after.state]++;
  else if (how === 'killed') {
    if (after.sums === before.sums) figures.complete_old++;
    else if (after.profile === profile) figures.complete_new++;
    else figures.broken++;
  }
  if (process.env.KILL_STRESS_PROGRESS) console.error(`run ${i}: ${mode} ${how} after ${Math.round(delay)} ms -> ${after.state === 'ok' ? (after.sums === before.sums ? 'old' : 'new') : after.state}`);
  if (after.state !== 'ok') {
    console.error(`run ${i} (${how} after ${Math.round(delay)} ms): --out is ${after.state}`);
    if (after.state === 'broken') break;
    run(profile); // missing: the documented window of a real folder only; the next run restores it
  }
  i++;
}
run('strict');
const leftAfterClean = readdirSync(parent).filter((n) => n !== 'out' && n !== readlinkSync(out));
const ok = figures.broken === 0 && figures.missing === 0 && leftAfterClean.length === 0 && lstatSync(out).isSymbolicLink();
console.log(JSON.stringify({ ...figures, leftovers_after_last_clean_run: leftAfterClean.length, ok }, null, 2));
process.exitCode = ok ? 0 : 1;
