/**
 * Every `npx toolgate ...` line in the README's shell blocks runs, and says what its comment (or the
 * text beside it) promises. The lines are read from README.md itself, so a command edited there is
 * the command tested here; `--out` goes to a temporary folder instead of the repo's `out/`.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../../helpers/processes.ts';
import { runCli, type CliRun } from '../../helpers/cli.ts';

interface ReadmeCommand {
  readonly line: string;
  readonly argv: string[];
}

/** The toolgate invocations of the README's ```sh blocks, in order, without `npm ci &&` or a trailing comment. */
function readmeCommands(): ReadmeCommand[] {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const out: ReadmeCommand[] = [];
  for (const block of blocks) {
    for (const raw of block.split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').trim();
      const at = line.indexOf('npx toolgate ');
      if (at < 0) continue;
      out.push({ line: raw.trim(), argv: line.slice(at + 'npx toolgate '.length).split(/\s+/) });
    }
  }
  return out;
}

const commands = readmeCommands();
const outRoot = mkdtempSync(join(tmpdir(), 'toolgate-readme-'));
const redirected = (argv: string[]) => argv.map((a, i) => (argv[i - 1] === '--out' ? join(outRoot, a) : a));
const run = (c: ReadmeCommand): Promise<CliRun> => runCli(redirected(c.argv), { cwd: REPO, env: { SOURCE_DATE_EPOCH: '1767225600' } });
const named = (sub: string) => {
  const c = commands.find((x) => x.argv[0] === sub);
  if (!c) throw new Error(`the README shows no ${sub} command`);
  return c;
};

describe('the README commands', () => {
  it('are found: the quick start, its three questions and the two signed compiles', () => {
    expect(commands.map((c) => c.argv[0])).toEqual(['compile', 'check-access', 'unsafe-tools', 'blast-radius', 'compile', 'compile']);
  });

  it('compile the quickstart into a set that sha256sum -c accepts and tar lists, as the README goes on to do', async () => {
    const r = await run(commands[0]!);
    expect(r.code, r.stderr).toBe(0);
    const out = join(outRoot, 'out/quickstart');
    const sums = spawnSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: out, encoding: 'utf8' });
    expect(sums.status, sums.stderr).toBe(0);
    const tar = spawnSync('tar', ['-tzf', 'bundle.tar.gz'], { cwd: out, encoding: 'utf8' });
    expect(tar.status, tar.stderr).toBe(0);
    expect(tar.stdout.split('\n')).toEqual(expect.arrayContaining(['.manifest', 'toolgate/data.json', 'toolgate/authz.rego']));
  });

  it('check-access: DENY, with the path as evidence', async () => {
    const r = await run(named('check-access'));
    expect(r.code, r.stderr).toBe(0);
    const v = r.json<{ verdict: string; deny_evidence: { path: string }[]; gateway: { allow: boolean } }>();
    expect(v.verdict).toBe('DENY');
    expect(v.deny_evidence.map((e) => e.path)).toContain('(ci-bot)-[:CAN_CALL]->(git::git_show)-[:READS]->(file:///srv/app/.env)-[:GOVERNED_BY]->(secrets-deny)');
    expect(v.gateway.allow).toBe(false);
  });

  it('unsafe-tools: the violation, git_show reading the .env', async () => {
    const r = await run(named('unsafe-tools'));
    expect(r.code, r.stderr).toBe(0);
    const rows = r.json<{ rows: { tool_key: string; resource: string; classification: string }[] }>().rows;
    expect(rows).toContainEqual(expect.objectContaining({ tool_key: 'git::git_show', resource: 'file:///srv/app/.env', classification: 'violation' }));
  });

  it('blast-radius: who a change to the policy affects', async () => {
    const r = await run(named('blast-radius'));
    expect(r.code, r.stderr).toBe(0);
    const b = r.json<{ found: boolean; kind: string; agents: unknown[] }>();
    expect(b).toMatchObject({ found: true, kind: 'policy' });
    expect(JSON.stringify(b.agents)).toContain('ci-bot');
  });

  it('compile both examples with their consumer signs, so the connectome carries signs other than unset', async () => {
    for (const c of commands.slice(4)) {
      const r = await run(c);
      expect(r.code, `${c.line}\n${r.stderr}`).toBe(0);
      const out = redirected(c.argv)[c.argv.indexOf('--out') + 1]!;
      const signs = new Set((JSON.parse(readFileSync(join(out, 'connectome.json'), 'utf8')) as { edges: { sign: string }[] }).edges.map((e) => e.sign));
      expect([...signs].some((s) => s !== 'unset'), c.line).toBe(true);
    }
  }, 60_000);
});
