import { describe, it, expect } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { commitArtifactSet, fileIdentity } from '../../../src/cli/artifact-set.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';
import { REPO } from '../../helpers/processes.ts';
import { TOOLGATE } from '../../helpers/toolgate-bin.ts';

const ENV = { SOURCE_DATE_EPOCH: '1767225600' };

function estateCopy(): { dir: string; manifest: string; catalog: string; args: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-incremental-'));
  cpSync(join(REPO, 'examples', 'quickstart'), dir, { recursive: true });
  const manifest = join(dir, 'governance.yaml');
  const catalog = join(dir, 'catalog.json');
  return { dir, manifest, catalog, args: ['--manifest', manifest, '--catalog', catalog] };
}

const regrant = (manifest: string) => writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('tool: "git::git_log"', 'tool: "git::git_status"'));

function filesOf(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f)).toString('base64')]));
}

describe('toolgate compile --incremental', () => {
  it('starts in full (saying why), then recompiles one agent to the bytes a full compile writes from the same previous set', async () => {
    const e = estateCopy();
    const out = join(e.dir, 'out');
    const first = await runCli(['compile', ...e.args, '--out', out, '--incremental'], { env: ENV });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/full compile: no compile state/);
    expect(first.json().files).toEqual(expect.arrayContaining(['compile-state.json', 'compile-state.pieces']));
    expect(readFileSync(join(out, 'SHA256SUMS'), 'utf8')).toMatch(/ {2}compile-state\.pieces\n/);

    // The same previous set without its state: the compile from it is full.
    const full = join(e.dir, 'full');
    cpSync(out, full, { recursive: true, dereference: true });
    for (const f of ['compile-state.json', 'compile-state.pieces']) rmSync(join(full, f));
    regrant(e.manifest);
    const next = await runCli(['compile', ...e.args, '--out', out, '--incremental'], { env: ENV });
    expect(next.code, next.stderr).toBe(0);
    const summary = next.json().recompile;
    expect(summary.mode).toBe('incremental');
    expect(summary.recomputed).toEqual({ agents: 1, tools: 0 });
    expect(summary.decisions).toEqual([
      { agent: 'ci-bot', tool_key: 'git::git_log', before: 'eligible', after: null },
      { agent: 'ci-bot', tool_key: 'git::git_status', before: null, after: 'rejected:UNMAPPED' },
    ]);
    const reference = await runCli(['compile', ...e.args, '--out', full, '--incremental'], { env: ENV });
    expect(reference.json().recompile.mode).toBe('full');
    expect(filesOf(out)).toEqual(filesOf(full));
  });

  it('compiles in full, saying so, when the kept state is damaged', async () => {
    const e = estateCopy();
    const out = join(e.dir, 'out');
    expect((await runCli(['compile', ...e.args, '--out', out, '--incremental'], { env: ENV })).code).toBe(0);
    const generation = join(e.dir, readdirSync(e.dir).find((f) => f.startsWith('.out.tg-gen-'))!);
    writeFileSync(join(generation, 'compile-state.pieces'), 'not the pieces');
    regrant(e.manifest);
    const r = await runCli(['compile', ...e.args, '--out', out, '--incremental'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/full compile: compile-state\.pieces does not match the digest/);
    expect(r.json().recompile.mode).toBe('full');
  });

  it('reads the previous graph_state from the kept state only while policy-bundle.json is the one it was kept with', async () => {
    const e = estateCopy();
    const out = join(e.dir, 'out');
    expect((await runCli(['compile', ...e.args, '--out', out, '--incremental'], { env: ENV })).code).toBe(0);
    const generation = join(e.dir, readdirSync(e.dir).find((f) => f.startsWith('.out.tg-gen-'))!);
    const bundlePath = join(generation, 'policy-bundle.json');
    writeFileSync(bundlePath, readFileSync(bundlePath, 'utf8').replace('"generation":1', '"generation":5'));
    regrant(e.manifest);
    const r = await runCli(['compile', ...e.args, '--out', out, '--incremental'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().recompile).toMatchObject({ mode: 'full', reason: 'policy-bundle.json is not the one the compile state was kept with' });
    expect(r.json().graph_state.generation).toBe(6);
  });

  it('takes the connectome files of an unchanged catalog from the previous set only while they are the ones SHA256SUMS lists', async () => {
    const e = estateCopy();
    const out = join(e.dir, 'out');
    expect((await runCli(['compile', ...e.args, '--out', out, '--incremental'], { env: ENV })).code).toBe(0);
    const generation = join(e.dir, readdirSync(e.dir).find((f) => f.startsWith('.out.tg-gen-'))!);
    const dot = readFileSync(join(generation, 'connectome.dot'));
    writeFileSync(join(generation, 'connectome.dot'), 'digraph altered {}\n');
    regrant(e.manifest);
    const r = await runCli(['compile', ...e.args, '--out', out, '--incremental'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().recompile.mode).toBe('incremental');
    expect(readFileSync(join(out, 'connectome.dot')).equals(dot)).toBe(true);
    const sums = spawnSync('sha256sum', ['--check', '--strict', 'SHA256SUMS'], { cwd: out, encoding: 'utf8' });
    if (sums.error === undefined) expect(sums.status, sums.stdout + sums.stderr).toBe(0);
  });
});

describe('the artifact set of a recompile', () => {
  it('shares the files it would write unchanged (connectome, state pieces) with the previous set as hard links, and writes them afresh once they changed', async () => {
    const e = estateCopy();
    const out = join(e.dir, 'out');
    expect((await runCli(['compile', ...e.args, '--out', out, '--incremental'], { env: ENV })).code).toBe(0);
    const before = statSync(join(out, 'connectome.json')).ino;
    regrant(e.manifest);
    const r = await runCli(['compile', ...e.args, '--out', out, '--incremental'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(join(out, 'connectome.json')).ino).toBe(before);
    expect(readdirSync(e.dir).filter((f) => f.startsWith('.out.tg-gen-'))).toHaveLength(1);
    const sums = spawnSync('sha256sum', ['--check', '--strict', 'SHA256SUMS'], { cwd: out, encoding: 'utf8' });
    if (sums.error === undefined) expect(sums.status, sums.stdout + sums.stderr).toBe(0);

    // A catalog-only edit changes nothing the state's pieces hold: that file is shared too.
    const pieces = statSync(join(out, 'compile-state.pieces')).ino;
    writeFileSync(e.catalog, readFileSync(e.catalog, 'utf8').replace('Read the complete contents of a file as text.', 'Read a whole file as text.'));
    const d = await runCli(['compile', ...e.args, '--out', out, '--incremental'], { env: ENV });
    expect(d.code, d.stderr).toBe(0);
    expect(d.json().recompile).toMatchObject({ mode: 'incremental', recomputed: { agents: 0, tools: 1 } });
    expect(statSync(join(out, 'compile-state.pieces')).ino).toBe(pieces);
    // The connectome reads no description: its files are shared as well; an annotation it reads is written afresh.
    expect(statSync(join(out, 'connectome.json')).ino).toBe(before);
    writeFileSync(e.catalog, readFileSync(e.catalog, 'utf8').replace('"readOnlyHint": true', '"readOnlyHint": false'));
    const a = await runCli(['compile', ...e.args, '--out', out, '--incremental'], { env: ENV });
    expect(a.code, a.stderr).toBe(0);
    expect(statSync(join(out, 'connectome.json')).ino).not.toBe(before);
    const rebuilt = join(e.dir, 'rebuilt');
    expect((await runCli(['compile', ...e.args, '--out', rebuilt], { env: ENV })).code).toBe(0);
    expect(readFileSync(join(out, 'connectome.json')).equals(readFileSync(join(rebuilt, 'connectome.json')))).toBe(true);

    // A kept file changed after it was read is not linked: the set holds the bytes compiled.
    const kept = { path: join(out, 'connectome.json'), identity: fileIdentity(join(out, 'connectome.json'))! };
    const keptIno = statSync(kept.path).ino;
    const bytes = readFileSync(kept.path);
    writeFileSync(kept.path, 'changed after it was read\n');
    commitArtifactSet(out, [{ name: 'connectome.json', bytes, kept }, { name: 'SHA256SUMS', bytes: new TextEncoder().encode('') }]);
    expect(readFileSync(join(out, 'connectome.json')).equals(bytes)).toBe(true);
    expect(statSync(join(out, 'connectome.json')).ino).not.toBe(keptIno);
  });
});

describe('toolgate compile --watch', () => {
  it('recompiles on a save, prints what changed, and on SIGINT stops, writing its state beside the last set', async () => {
    const e = estateCopy();
    const child = spawn(process.execPath, [TOOLGATE, 'compile', ...e.args, '--out', join(e.dir, 'out'), '--watch'], { env: { ...process.env, ...ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const until = async (ok: () => boolean, what: string) => {
      for (let i = 0; i < 600 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
      if (!ok()) throw new Error(`timed out waiting for ${what}; stderr: ${stderr}`);
    };
    try {
      await until(() => /watching/.test(stderr), 'the watch to start');
      // The set before the save (no state files while the watch runs): a compile from it is full, the reference for the watch's.
      const reference = join(e.dir, 'reference');
      cpSync(join(e.dir, 'out'), reference, { recursive: true, dereference: true });
      for (const f of ['compile-state.json', 'compile-state.pieces']) rmSync(join(reference, f), { force: true });
      regrant(e.manifest);
      await until(() => (stdout.match(/"recompile"/g) ?? []).length >= 2, 'the recompile');
      const runs = stdout.split(/\n(?=\{)/).map((t) => JSON.parse(t) as { recompile: { mode: string; agents: { changed: string[] } } });
      expect(runs.map((r) => r.recompile.mode)).toEqual(['full', 'incremental']);
      expect(runs[1]!.recompile.agents.changed).toEqual(['ci-bot']);
      const full = await runCli(['compile', ...e.args, '--out', reference, '--incremental'], { env: ENV });
      expect(full.code, full.stderr).toBe(0);
      expect(full.stderr).toMatch(/full compile: no compile state/);
      // While it runs, the watch holds its state in memory: the set is the artifacts alone.
      const names = (d: string) => Object.keys(filesOf(d)).sort();
      expect(names(join(e.dir, 'out'))).toEqual(names(reference).filter((n) => !n.startsWith('compile-state.') && n !== 'SHA256SUMS').concat('SHA256SUMS').sort());
      const connectome = statSync(join(e.dir, 'out', 'connectome.json')).ino;
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      // Stopped, it writes the state beside the last set, linking that set's files: the set a full --incremental compile writes.
      expect(stderr).toMatch(/stopped; kept the compile state/);
      expect(filesOf(join(e.dir, 'out'))).toEqual(filesOf(reference));
      expect(statSync(join(e.dir, 'out', 'connectome.json')).ino).toBe(connectome);
      const sums = spawnSync('sha256sum', ['--check', '--strict', 'SHA256SUMS'], { cwd: join(e.dir, 'out'), encoding: 'utf8' });
      if (sums.error === undefined) expect(sums.status, sums.stdout + sums.stderr).toBe(0);
      // And a later --incremental starts from it.
      writeFileSync(e.manifest, readFileSync(e.manifest, 'utf8').replace('tool: "git::git_status"', 'tool: "git::git_log"'));
      const next = await runCli(['compile', ...e.args, '--out', join(e.dir, 'out'), '--incremental'], { env: ENV });
      expect(next.code, next.stderr).toBe(0);
      expect(next.json().recompile.mode).toBe('incremental');
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  }, 60_000);

  it('writes, save after save, the set a full compile writes (each save reuses the memory of a set it replaced)', async () => {
    const e = estateCopy();
    const out = join(e.dir, 'out');
    const child = spawn(process.execPath, [TOOLGATE, 'compile', ...e.args, '--out', out, '--watch'], { env: { ...process.env, ...ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const compiles = async (n: number) => {
      for (let i = 0; i < 600 && (stdout.match(/"recompile"/g) ?? []).length < n; i++) await new Promise((r) => setTimeout(r, 50));
      if ((stdout.match(/"recompile"/g) ?? []).length < n) throw new Error(`timed out waiting for compile ${n}; stderr: ${stderr}`);
    };
    const swap = (from: string, to: string) => writeFileSync(e.manifest, readFileSync(e.manifest, 'utf8').replace(`tool: "${from}"`, `tool: "${to}"`));
    try {
      await compiles(1);
      regrant(e.manifest);
      await compiles(2);
      swap('git::git_status', 'git::git_log');
      await compiles(3);
      // The set before the last save: a full compile from it is the reference for the watch's.
      const reference = join(e.dir, 'reference');
      cpSync(out, reference, { recursive: true, dereference: true });
      swap('git::git_log', 'git::git_status');
      await compiles(4);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      const runs = stdout.split(/\n(?=\{)/).map((t) => JSON.parse(t) as { recompile: { mode: string } });
      expect(runs.map((r) => r.recompile.mode)).toEqual(['full', 'incremental', 'incremental', 'incremental']);
      const full = await runCli(['compile', ...e.args, '--out', reference, '--incremental'], { env: ENV });
      expect(full.code, full.stderr).toBe(0);
      expect(full.stderr).toMatch(/full compile: no compile state/);
      expect(filesOf(out)).toEqual(filesOf(reference));
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  }, 60_000);
});
