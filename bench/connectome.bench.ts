/**
 * Connectome benchmark. Figures, never assertions:
 * 1. canonical encoding + digest (@noble/hashes SHA-256) of a 100,000-node, 500,000-edge graph,
 *    as a ratio to JSON.stringify + node:crypto SHA-256 of the same data in the same run (target <= 4x);
 * 2. diff time for two such graphs at 1x and 10x scale (target: linear, 10x in <= 12x the time);
 * peak RSS and heap after each phase.
 * The 10x phase needs a larger heap: the bench re-runs itself with --max-old-space-size when needed.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { digestHex } from '../src/canonical/digest.ts';
import { buildGraph, diffConnectomes, encodeDiff, encodeGraph, type ConnectomeEdge, type ConnectomeNode, type Graph } from '../src/connectome/index.ts';

const KINDS = ['invoke', 'read', 'message', 'supervise'] as const;

function synthetic(nodes: number, edges: number, provenance: 'declared' | 'observed', seed: number): { nodes: ConnectomeNode[]; edges: ConnectomeEdge[] } {
  let x = seed >>> 0 || 1;
  const rnd = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
  const ns: ConnectomeNode[] = [];
  const servers = Math.max(1, Math.floor(nodes / 1000));
  for (let i = 0; i < nodes; i++) {
    const srv = `srv${i % servers}`;
    ns.push(i < servers ? { id: `${srv}/server`, kind: 'server', level: 'server', labels: {} } : { id: `${srv}/tool/t${i}`, kind: 'tool', level: 'server', labels: i % 10 === 0 ? { name: `t${i}`, readOnly: true } : {} });
  }
  const es: ConnectomeEdge[] = [];
  const seen = new Set<string>();
  while (es.length < edges) {
    const f = ns[Math.floor(rnd() * nodes)]!.id;
    const t = ns[Math.floor(rnd() * nodes)]!.id;
    const kind = KINDS[Math.floor(rnd() * 4)]!;
    const k = `${f}|${t}|${kind}`;
    if (seen.has(k)) continue;
    seen.add(k);
    es.push({ from: f, to: t, kind, provenance, sign: 'unset' });
  }
  return { nodes: ns, edges: es };
}

function mb(n: number): string {
  return `${(n / 1048576).toFixed(0)} MB`;
}
let peakRss = 0;
function mem(label: string): void {
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  console.log(`  memory after ${label}: rss ${mb(m.rss)}, heap used ${mb(m.heapUsed)} (peak rss so far ${mb(peakRss)})`);
}
function time<T>(f: () => T): [T, number] {
  const t0 = performance.now();
  const r = f();
  return [r, performance.now() - t0];
}
function best<T>(runs: number, f: () => T): number {
  let b = Infinity;
  for (let i = 0; i < runs; i++) b = Math.min(b, time(f)[1]);
  return b;
}

function encodePhase(): void {
  const raw = synthetic(100_000, 500_000, 'declared', 7);
  const [graph, buildMs] = time(() => buildGraph(raw));
  mem('build');
  const plain = { schema_version: 4, algorithm: 'sha256', nodes: graph.nodes, edges: graph.edges };
  const baseline = best(3, () => createHash('sha256').update(JSON.stringify(plain)).digest('hex'));
  const ours = best(3, () => digestHex(encodeGraph(graph), 'sha256'));
  const encodeOnly = best(3, () => encodeGraph(graph));
  const bytes = encodeGraph(graph);
  const hashOnly = best(3, () => digestHex(bytes, 'sha256'));
  mem('encode');
  console.log(`canonical encode + digest, 100,000 nodes / 500,000 edges (${mb(bytes.length)} of bytes):`);
  console.log(`  build (check + sort + label text): ${buildMs.toFixed(0)} ms (not in the ratio)`);
  console.log(`  baseline JSON.stringify + node:crypto sha256: ${baseline.toFixed(0)} ms`);
  console.log(`  ours encodeGraph + @noble/hashes sha256:       ${ours.toFixed(0)} ms (encode ${encodeOnly.toFixed(0)} ms, noble sha256 ${hashOnly.toFixed(0)} ms)`);
  console.log(`  ratio: ${(ours / baseline).toFixed(2)}x (target <= 4x)`);
}

function diffAt(scale: number): number {
  const n = 100_000 * scale;
  const e = 500_000 * scale;
  const d = buildGraph(synthetic(n, e, 'declared', 11));
  const o = buildGraph(synthetic(n, e, 'observed', 13));
  mem(`building two ${scale}x graphs`);
  const window = { ended_at: '2026-01-01T01:00:00Z', started_at: '2026-01-01T00:00:00Z' };
  const ms = best(scale === 1 ? 3 : 1, () => encodeDiff(diffConnectomes(d, o, { window })));
  mem(`diff ${scale}x`);
  return ms;
}

const mode = process.argv[2];
if (mode === '--diff10') {
  console.log(`DIFF10 ${diffAt(10).toFixed(1)}`);
} else {
  encodePhase();
  const one = diffAt(1);
  console.log(`diff (record + canonical bytes) of two 1x graphs (100,000 nodes / 500,000 edges each): ${one.toFixed(0)} ms`);
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, ['--max-old-space-size=16384', '--import', 'tsx', self, '--diff10'], { encoding: 'utf8' });
  const m = /DIFF10 ([\d.]+)/.exec(r.stdout);
  process.stdout.write(r.stdout.replace(/DIFF10 .*\n/, ''));
  if (m) {
    const ten = Number(m[1]);
    console.log(`diff of two 10x graphs (1,000,000 nodes / 5,000,000 edges each): ${ten.toFixed(0)} ms`);
    console.log(`  scaling: 10x the input took ${(ten / one).toFixed(2)}x the time (target <= 12x)`);
  } else {
    console.log(`diff 10x did not complete: ${r.stderr.slice(-500)}`);
  }
  console.log(`peak rss (1x process): ${mb(peakRss)}`);
}
