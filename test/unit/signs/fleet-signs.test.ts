/**
 * examples/fleet/signs.rego through `compile --example fleet --signs`: stable digests across runs,
 * the same signed connectome as `toolgate sign` gives, and the expected sign on named edges under
 * the strict and explore profiles (the policy reads the compile's own data document).
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';

const env = { SOURCE_DATE_EPOCH: '0' };
const POLICY = 'examples/fleet/signs.rego';
let dir: string;

async function compileSigned(profile: string, name: string) {
  const out = join(dir, name);
  const r = await runCli(['compile', '--example', 'fleet', '--profile', profile, '--signs', POLICY, '--out', out], { env });
  expect(r.code, r.stderr).toBe(0);
  const graph = JSON.parse(readFileSync(join(out, 'connectome.json'), 'utf8')) as { edges: { from: string; to: string; kind: string; sign: string }[] };
  const signOf = (to: string) => {
    const hits = graph.edges.filter((e) => e.to === to);
    expect(hits, to).toHaveLength(1);
    return hits[0]!.sign;
  };
  return { out, json: r.json(), graph, signOf };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-fleet-signs-'));
});

describe('compile --example fleet --signs examples/fleet/signs.rego', () => {
  it('gives the same digests and bytes on every run, and the same connectome as toolgate sign', async () => {
    const a = await compileSigned('strict', 'a');
    const b = await compileSigned('strict', 'b');
    expect(a.json.connectome_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(b.json.connectome_digest).toBe(a.json.connectome_digest);
    for (const f of ['connectome.json', 'data.json', 'bundle.tar.gz', 'policy-bundle.json', 'SHA256SUMS']) {
      expect(readFileSync(join(b.out, f)), f).toEqual(readFileSync(join(a.out, f)));
    }
    // The signed compile differs from the unsigned one only by its signs.
    const plain = await runCli(['compile', '--example', 'fleet', '--out', join(dir, 'plain')], { env });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.json().connectome_digest).not.toBe(a.json.connectome_digest);
    const unsigned = JSON.parse(readFileSync(join(dir, 'plain', 'connectome.json'), 'utf8')) as typeof a.graph;
    expect(a.graph.edges.map(({ sign: _s, ...e }) => e)).toEqual(unsigned.edges.map(({ sign: _s, ...e }) => e));
    // `toolgate sign` over the unsigned compile's own outputs writes the same bytes.
    const viaSign = await runCli([
      'sign', '--graph', join(dir, 'plain', 'connectome.json'), '--policy', POLICY, '--data', join(dir, 'plain', 'data.json'), '--out', join(dir, 'signed.json'),
    ]);
    expect(viaSign.code, viaSign.stderr).toBe(0);
    expect(readFileSync(join(dir, 'signed.json'))).toEqual(readFileSync(join(a.out, 'connectome.json')));
    expect(viaSign.json().signs).toEqual({ allow: 7, deny: 7, hold: 7, ungoverned: 38, unset: 0 });
  });

  it('signs the named edges as the policy says under strict', async () => {
    const { signOf } = await compileSigned('strict', 'strict');
    // deny: an unexcused DENY reach for some agent
    expect(signOf('filesystem/tool/read_text_file')).toBe('deny'); // planner reaches sandbox-secrets-deny
    expect(signOf('memtomem-stm/tool/langfuse__getLangfuseOverview')).toBe('deny'); // the reader's surfaced project memory
    expect(signOf('memory/tool/delete_entities')).toBe('deny'); // knowledge-graph-integrity, no exception
    // hold: a DENY reach only under an operator's exception, or a destructive / open-world claim
    expect(signOf('fetch/tool/fetch')).toBe('hold'); // the publisher's declared egress
    expect(signOf('memtomem/tool/mem_read')).toBe('hold'); // the planner's declared memory reads
    expect(signOf('filesystem/tool/move_file')).toBe('hold'); // destructiveHint
    expect(signOf('everything/tool/gzip-file-as-resource')).toBe('hold'); // openWorldHint
    // allow: eligible for some agent; and read edges to prompts
    expect(signOf('filesystem/tool/list_directory')).toBe('allow');
    expect(signOf('memory/tool/read_graph')).toBe('allow');
    expect(signOf('everything/prompt/simple-prompt')).toBe('allow');
    // ungoverned: nobody is eligible (UNMAPPED under strict), resources no policy governs
    expect(signOf('time/tool/get_current_time')).toBe('ungoverned');
    expect(signOf('time/tool/convert_time')).toBe('ungoverned');
    expect(signOf('everything/resource/demo:%2F%2Fresource%2Fstatic%2Fdocument%2Farchitecture.md')).toBe('ungoverned');
  });

  it('follows the profile compiled: under explore nothing is a violation, destructive tools are held', async () => {
    const { signOf, graph } = await compileSigned('explore', 'explore');
    expect(graph.edges.filter((e) => e.sign === 'deny')).toEqual([]);
    expect(signOf('filesystem/tool/write_file')).toBe('hold');
    expect(signOf('filesystem/tool/read_text_file')).toBe('allow');
    expect(signOf('fetch/tool/fetch')).toBe('allow');
    expect(signOf('time/tool/get_current_time')).toBe('allow');
  });
});
