/**
 * Malformed inputs: each gets a located error with a stable code and exit 1, no stack trace, and
 * the output folder keeps the earlier artifacts byte for byte.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';

const goodCatalog = {
  servers: [
    { name: 'fs', tools: [{ name: 'read', inputSchema: { type: 'object' } }, { name: 'write' }], resources: [{ uri: 'file:///x' }] },
    { name: 'git', tools: [{ name: 'show' }, { name: 'read' }] },
  ],
};
const goodManifest = `agents: [bot, ops]
policies:
  - {id: secrets, effect: DENY}
grants:
  - {agent: bot, tool: "git::show"}
data_access:
  - {tool: "git::show", resource: "file:///x", mode: READS}
governed_by:
  "file:///x": [secrets]
`;

interface Case {
  readonly name: string;
  readonly manifest?: string;
  readonly catalog?: string;
  readonly catalogName?: string;
  readonly args?: readonly string[];
  readonly code: string;
  /** Expected `file:line[:col]` fragment after "at". */
  readonly at?: RegExp;
}

const bomb = `a: &a ["x","x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]
agents: *g
`;
const deepYaml = `agents: ${'['.repeat(200)}${']'.repeat(200)}\n`;
const deepJson = `{"servers": [{"name": "s", "tools": [{"name": "t", "inputSchema": ${'{"a":'.repeat(300)}1${'}'.repeat(300)}}]}]}`;
const cat = (o: unknown) => JSON.stringify(o, null, 2);

const CASES: Case[] = [
  { name: 'YAML syntax: unclosed flow sequence', manifest: 'agents: [bot, ops\npolicies: []\n', code: 'PARSE_ERROR', at: /g\.yaml:\d+:\d+/ },
  { name: 'YAML syntax: bad indentation', manifest: 'agents:\n  - bot\n - ops\n', code: 'PARSE_ERROR', at: /g\.yaml:3:\d+/ },
  { name: 'YAML duplicate key', manifest: 'agents: [bot]\nagents: [ops]\n', code: 'PARSE_ERROR', at: /g\.yaml:2:1/ },
  { name: 'YAML multiple documents', manifest: 'agents: [bot]\n---\nagents: [ops]\n', code: 'PARSE_ERROR' },
  { name: 'YAML alias bomb', manifest: bomb, code: 'PARSE_ERROR' },
  { name: 'very deep YAML', manifest: deepYaml, code: 'INPUT_TOO_LARGE' },
  { name: 'empty manifest', manifest: '', code: 'MANIFEST_INVALID', at: /g\.yaml:1:1/ },
  { name: 'top-level list', manifest: '- bot\n- ops\n', code: 'MANIFEST_INVALID', at: /g\.yaml:1:1/ },
  { name: 'unknown top-level key', manifest: `${goodManifest}owners: [me]\n`, code: 'MANIFEST_INVALID', at: /g\.yaml:10:1/ },
  { name: 'unknown key in a grant', manifest: goodManifest.replace('tool: "git::show"}', 'tool: "git::show", expires: soon}'), code: 'MANIFEST_INVALID', at: /g\.yaml:5:/ },
  { name: 'bad policy effect', manifest: goodManifest.replace('effect: DENY', 'effect: MAYBE'), code: 'MANIFEST_INVALID', at: /g\.yaml:3:/ },
  { name: 'agents is a string', manifest: goodManifest.replace('agents: [bot, ops]', 'agents: bot'), code: 'MANIFEST_INVALID', at: /g\.yaml:1:9/ },
  { name: 'grant without tool', manifest: goodManifest.replace('{agent: bot, tool: "git::show"}', '{agent: bot}'), code: 'MANIFEST_INVALID', at: /g\.yaml:5:/ },
  { name: 'grant tool is a number', manifest: goodManifest.replace('tool: "git::show"}', 'tool: 42}'), code: 'MANIFEST_INVALID', at: /g\.yaml:5:/ },
  { name: 'bad access mode', manifest: goodManifest.replace('mode: READS', 'mode: EXECUTES'), code: 'MANIFEST_INVALID', at: /g\.yaml:7:/ },
  { name: 'bad provenance source', manifest: goodManifest.replace('tool: "git::show"}', 'tool: "git::show", provenance: {source: rumour}}'), code: 'MANIFEST_INVALID', at: /g\.yaml:5:/ },
  { name: 'bad provenance confidence', manifest: goodManifest.replace('tool: "git::show"}', 'tool: "git::show", provenance: {confidence: total}}'), code: 'MANIFEST_INVALID', at: /g\.yaml:5:/ },
  { name: 'exception without reason', manifest: `${goodManifest}expected_exceptions:\n  - {agent: bot, tool: "git::show"}\n`, code: 'MANIFEST_INVALID', at: /g\.yaml:11:/ },
  { name: 'grant names an unknown agent', manifest: goodManifest.replace('{agent: bot, tool', '{agent: robot, tool'), code: 'DANGLING_REFERENCE', at: /g\.yaml:5:\d+/ },
  { name: 'governed_by names an unknown policy', manifest: goodManifest.replace('[secrets]', '[secret]'), code: 'DANGLING_REFERENCE', at: /g\.yaml:9:\d+/ },
  { name: 'exception names an unknown agent', manifest: `${goodManifest}expected_exceptions:\n  - {agent: nobody, tool: "git::show", reason: r}\n`, code: 'DANGLING_REFERENCE', at: /g\.yaml:11:\d+/ },
  { name: 'exception names an unknown policy', manifest: `${goodManifest}expected_exceptions:\n  - {agent: bot, tool: "git::show", policy: nope, reason: r}\n`, code: 'DANGLING_REFERENCE', at: /g\.yaml:11:\d+/ },
  { name: 'duplicate agent', manifest: goodManifest.replace('[bot, ops]', '[bot, ops, bot]'), code: 'DUPLICATE_ENTRY', at: /g\.yaml:1:\d+/ },
  { name: 'duplicate policy', manifest: goodManifest.replace('  - {id: secrets, effect: DENY}', '  - {id: secrets, effect: DENY}\n  - {id: secrets, effect: ALLOW}'), code: 'DUPLICATE_ENTRY', at: /g\.yaml:4:\d+/ },
  { name: 'duplicate grant', manifest: goodManifest.replace('  - {agent: bot, tool: "git::show"}', '  - {agent: bot, tool: "git::show"}\n  - {agent: bot, tool: "git::show"}'), code: 'DUPLICATE_ENTRY', at: /g\.yaml:6:\d+/ },
  { name: 'duplicate grant via a bare name', manifest: goodManifest.replace('  - {agent: bot, tool: "git::show"}', '  - {agent: bot, tool: "git::show"}\n  - {agent: bot, tool: "show"}'), code: 'DUPLICATE_ENTRY', at: /g\.yaml:6:\d+/ },
  { name: 'duplicate data_access row', manifest: goodManifest.replace('mode: READS}', 'mode: READS}\n  - {tool: "git::show", resource: "file:///x", mode: READS}'), code: 'DUPLICATE_ENTRY', at: /g\.yaml:8:\d+/ },
  { name: 'ambiguous bare tool name', manifest: goodManifest.replace('tool: "git::show"}', 'tool: "read"}'), code: 'AMBIGUOUS_TOOL', at: /g\.yaml:5:\d+/ },
  { name: 'unknown tool under --strict-drift', manifest: goodManifest.replace('tool: "git::show"}', 'tool: "git::blame"}'), args: ['--strict-drift'], code: 'STRICT_DRIFT', at: /g\.yaml:5:\d+/ },
  { name: 'JSON syntax: trailing comma', catalog: '{"servers": [\n  {"name": "fs",}\n]}', code: 'PARSE_ERROR', at: /c\.json:2:\d+/ },
  { name: 'JSON syntax: truncated', catalog: '{"servers": [', code: 'PARSE_ERROR', at: /c\.json/ },
  { name: 'catalog without servers', catalog: '{"tools": []}', code: 'CATALOG_INVALID', at: /c\.json:1:/ },
  { name: 'duplicate server', catalog: cat({ servers: [{ name: 'fs' }, { name: 'fs' }] }), code: 'DUPLICATE_CATALOG_ROW', at: /c\.json:7:15/ },
  { name: 'duplicate tool row', catalog: cat({ servers: [{ name: 'fs', tools: [{ name: 'read' }, { name: 'read' }] }] }), code: 'DUPLICATE_CATALOG_ROW', at: /c\.json:9:/ },
  { name: 'duplicate resource row', catalog: cat({ servers: [{ name: 'fs', resources: [{ uri: 'a:b' }, { uri: 'a:b' }] }] }), code: 'DUPLICATE_CATALOG_ROW' },
  { name: 'tool name containing ::', catalog: cat({ servers: [{ name: 'fs', tools: [{ name: 'a::b' }] }] }), code: 'CATALOG_INVALID', at: /c\.json:7:/ },
  { name: 'inputSchema not an object', catalog: cat({ servers: [{ name: 'fs', tools: [{ name: 'read', inputSchema: 'any' }] }] }), code: 'CATALOG_INVALID', at: /c\.json:8:/ },
  { name: 'annotation hint not a boolean', catalog: cat({ servers: [{ name: 'fs', tools: [{ name: 'read', annotations: { readOnlyHint: 'yes' } }] }] }), code: 'CATALOG_INVALID' },
  { name: 'resource without uri', catalog: cat({ servers: [{ name: 'fs', resources: [{ name: 'x' }] }] }), code: 'CATALOG_INVALID' },
  { name: 'very deep JSON', catalog: deepJson, code: 'INPUT_TOO_LARGE' },
  { name: 'YAML catalog with a type error', catalog: 'servers:\n  - name: fs\n    tools: {read: yes}\n', catalogName: 'c.yaml', code: 'CATALOG_INVALID', at: /c\.yaml:3:12/ },
];

describe('malformed inputs', () => {
  let dir: string;
  let out: string;
  let before: Map<string, Buffer>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-bad-'));
    out = join(dir, 'out');
    writeFileSync(join(dir, 'good.yaml'), goodManifest);
    writeFileSync(join(dir, 'good.json'), JSON.stringify(goodCatalog));
    const r = await runCli(['compile', '--manifest', join(dir, 'good.yaml'), '--catalog', join(dir, 'good.json'), '--out', out], { env: { SOURCE_DATE_EPOCH: '0' } });
    expect(r.code, r.stderr).toBe(0);
    before = new Map(readdirSync(out).map((f) => [f, readFileSync(join(out, f))]));
  });

  it('has at least 30 cases', () => expect(CASES.length).toBeGreaterThanOrEqual(30));

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const m = join(dir, 'g.yaml');
    const catalogFile = join(dir, c.catalogName ?? 'c.json');
    writeFileSync(m, c.manifest ?? goodManifest);
    writeFileSync(catalogFile, c.catalog ?? JSON.stringify(goodCatalog));
    const r = await runCli(['compile', '--manifest', m, '--catalog', catalogFile, '--out', out, ...(c.args ?? [])], { env: { SOURCE_DATE_EPOCH: '0' } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`error ${c.code}`);
    if (c.at) expect(r.stderr).toMatch(c.at);
    expect(r.stderr).not.toMatch(/\n\s+at .+\(.*:\d+:\d+\)/); // no stack trace
    expect(r.stdout).toBe('');
    expect(readdirSync(out).sort()).toEqual([...before.keys()].sort());
    for (const [f, bytes] of before) expect(readFileSync(join(out, f)).equals(bytes), f).toBe(true);
  });

  it('refuses a file over the input size limit before reading it', async () => {
    const big = join(dir, 'big.json');
    writeFileSync(big, '');
    truncateSync(big, 300 * 1024 * 1024); // sparse: nothing is written to disk
    const r = await runCli(['compile', '--manifest', join(dir, 'good.yaml'), '--catalog', big, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error INPUT_TOO_LARGE at');
  });

  it('refuses a file that is not UTF-8', async () => {
    const bad = join(dir, 'latin1.json');
    writeFileSync(bad, Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]));
    const r = await runCli(['compile', '--manifest', join(dir, 'good.yaml'), '--catalog', bad, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error PARSE_ERROR');
  });

  it('names a missing file', async () => {
    const r = await runCli(['compile', '--manifest', join(dir, 'nope.yaml'), '--catalog', join(dir, 'good.json'), '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error FILE_UNREADABLE at ${join(dir, 'nope.yaml')}`);
  });

  it('exits 2 on bad usage', async () => {
    for (const argv of [['compile', '--example', 'quickstart'], ['compile', '--example', 'quickstart', '--out', out, '--profile', 'lenient'], ['check-access', 'only-one'], ['nope']]) {
      const r = await runCli(argv);
      expect(r.code, argv.join(' ')).toBe(2);
    }
  });
});
