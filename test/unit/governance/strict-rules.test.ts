import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strictFindings } from '../../../src/governance/strict-rules.ts';
import { exampleEstate, inlineEstate } from '../../helpers/estates.ts';
import { runCli } from '../../helpers/cli.ts';

const CATALOG = { servers: [{ name: 's', tools: [{ name: 'read' }, { name: 'other' }] }, { name: 'q', tools: [{ name: 'x' }] }] };
const BASE = `agents: [a, b]
policies: [{id: deny, effect: DENY}, {id: deny2, effect: DENY}, {id: allow, effect: ALLOW}]
grants:
  - {agent: a, tool: "s::read"}
  - {agent: a, tool: "s::other"}
  - {agent: a, tool: "gone::t"}
data_access:
  - {tool: "s::read", resource: "file:///secret", mode: READS}
governed_by:
  "file:///secret": [deny]
`;
const rules = (exceptions: string) => strictFindings(inlineEstate(`${BASE}expected_exceptions:\n${exceptions}`, CATALOG)).map((f) => f.rule);

describe('strict rules', () => {
  it('accept an exception that classifies a row, and the bundled examples', () => {
    expect(rules('  - {agent: a, tool: "s::read", policy: deny, reason: ok}\n')).toEqual(['grant-never-crawled']);
    expect(strictFindings(exampleEstate('quickstart'))).toEqual([]);
  });

  it('name why an exception can never classify a row', () => {
    const cases: [string, string][] = [
      ['{agent: a, tool: "s::nope", reason: r}', 'exception-unknown-tool'],
      ['{agent: a, tool: "zz::*", reason: r}', 'exception-unknown-tool'],
      ['{agent: a, tool: "s::read", policy: allow, reason: r}', 'exception-allow-policy'],
      ['{agent: b, tool: "s::read", reason: r}', 'exception-no-grant'],
      ['{agent: a, tool: "s::other", reason: r}', 'exception-no-deny-path'],
      ['{agent: b, tool: "*", reason: r}', 'exception-no-grant'],
      ['{agent: "*", tool: "q::*", reason: r}', 'exception-no-grant'],
      ['{agent: a, tool: "s::read", resource: "file:///other", reason: r}', 'exception-wrong-target'],
      ['{agent: a, tool: "s::read", policy: deny2, reason: r}', 'exception-wrong-target'],
    ];
    for (const [x, rule] of cases) expect(rules(`  - ${x}\n`), x).toEqual([rule, 'grant-never-crawled']);
  });

  it('find credential-shaped identities', () => {
    const e = inlineEstate('agents: ["password=hunter2"]\npolicies: [{id: "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaa", effect: DENY}]\n', { servers: [] });
    expect(strictFindings(e).map((f) => [f.rule, f.message.includes('hunter2')])).toEqual([
      ['credential-shaped-identity', false],
      ['credential-shaped-identity', false],
    ]);
  });
});

describe('--strict on the CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tg-strict-'));
  writeFileSync(join(dir, 'governance.yaml'), `${BASE}expected_exceptions:\n  - {agent: a, tool: "s::other", reason: r}\n`);
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify(CATALOG));
  const args = ['--manifest', join(dir, 'governance.yaml'), '--catalog', join(dir, 'catalog.json')];

  it('without it, findings are warnings naming the rule and the command runs', async () => {
    const r = await runCli(['unmapped-tools', ...args]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: \[exception-no-deny-path\] .*governance\.yaml:\d+:\d+/);
    expect(r.stderr).toMatch(/DRIFT/);
  });

  it('with it, the manifest is refused with every finding located (exit 1, nothing on stdout)', async () => {
    const r = await runCli(['unmapped-tools', '--strict', ...args]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/MANIFEST_INVALID/);
    expect(r.stderr).toMatch(/\[exception-no-deny-path\]/);
    expect(r.stderr).toMatch(/\[grant-never-crawled\].*gone::t/);
    const c = await runCli(['compile', '--strict', ...args, '--out', join(dir, 'out')]);
    expect(c.code).toBe(1);
  });

  it('strict: true in toolgate.yaml does the same', async () => {
    writeFileSync(join(dir, 'toolgate.yaml'), 'manifest: governance.yaml\ncatalog: catalog.json\nstrict: true\n');
    const r = await runCli(['drift'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refused under --strict/);
  });

  it('refuses credential-shaped identities and run ids whether strict or not', async () => {
    const d = mkdtempSync(join(tmpdir(), 'tg-cred-'));
    writeFileSync(join(d, 'g.yaml'), 'agents: ["token=abcdef"]\n');
    writeFileSync(join(d, 'c.json'), JSON.stringify({ servers: [] }));
    const r = await runCli(['drift', '--manifest', join(d, 'g.yaml'), '--catalog', join(d, 'c.json')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/credential-shaped/);
    expect(r.stderr).not.toContain('abcdef');
    const p = await runCli(['preflight', 'ci-bot', 'git::git_log', '--run-id', 'https://u:pw@x.example/run', '--example', 'quickstart']);
    expect(p.code).toBe(2);
    expect(p.stderr).toMatch(/credential-shaped/);
  });
});
