/**
 * Selector batch (issue 6): `eligible-tools` over 1,000 candidates on the synthetic estate, as
 * candidates per second, against 1,000 single `check-access` answers in the same run. Target: the
 * batch at least 20x faster. Two views, never asserted:
 *
 * 1. Library: 1,000 `checkAccess` calls vs one `eligibleTools` batch. Each side gets a freshly
 *    built estate (built from the same parsed inputs; every cache lives on the estate object), so
 *    neither inherits the other's caches; the batch is timed cold (first batch on that estate) and
 *    again on its warm selector index (a consumer asking again at the same graph state).
 * 2. Consumer: an in-process MCP client linked to `toolgate serve`'s server
 *    (`InMemoryTransport.createLinkedPair`), the estate loaded by serve's own cached loader: 1,000
 *    `check_access` tool calls vs ONE `eligible_tools` call carrying the 1,000 candidates. The first
 *    call (which parses the estate and computes its digests) is excluded and stated; after it both
 *    sides answer from the same cached estate. The first `eligible_tools` call at that graph state
 *    (selector index cold) is reported apart from the repeated rounds.
 *
 * Candidates: agent-0's 100 grants, 20 unknown and 20 ambiguous names, random other tools; shuffled.
 * Every timing is preceded by a full GC and a short pause (so the concurrent sweep of a ~1 GB heap
 * is not charged to the next side). The warm library batch is the mean of 10 consecutive batches
 * (one batch is ~0.05 ms, far below the noise of a shared machine). Medians of 5 rounds, as wall
 * time and as the process's CPU time (all threads, so background GC work counts against the side it
 * runs beside): on a shared machine the wall time of a 20 ms region can be mostly other processes'
 * time slices.
 *
 * Measured (`npm run bench -- selector`, Node 20, 2 cores shared with other work, load average
 * 4.1-7.3; medians, candidates per second; expect run-to-run swings of 2x on such a machine, the
 * single side most: 7.1-16.2 ms across the last four runs):
 *   library  1,000 checkAccess               wall 7.10 ms (141k/s)    cpu 6.76 ms (148k/s)
 *            eligibleTools, cold index       wall 4.37 ms (229k/s)    cpu 5.00 ms (200k/s)   1.6x / 1.4x
 *            eligibleTools, warm index       wall 0.05 ms (21.8M/s)   cpu 0.05 ms (19.4M/s)  155x / 131x  (target >= 20x)
 *   MCP      1,000 check_access calls        wall 421 ms (2.4k/s)     cpu 148 ms (6.7k/s)
 *            eligible_tools, first at state  wall 16.5 ms (61k/s)     cpu 10.1 ms (99k/s)    25x / 15x
 *            eligible_tools, repeated        wall 1.76 ms (567k/s)    cpu 1.79 ms (558k/s)   239x / 83x  (target >= 20x)
 *   first MCP call (parse 200,000 grants, build, digest; excluded above): 3.2-8.8 s wall across runs;
 *   estate loads: 1 over 5,007 tool calls.
 *   control-preflight (section 3): one 1,000-node, 200-principal plan vs 200 single eligible-tools
 *   invocations through the CLI entry point, median of 3: wall 320 ms vs 24.1 s (75x), cpu 232 ms
 *   vs 12.5 s (54x) (target >= 20x); 1,291,208 read-to-write exposures counted, 1,000 listed.
 *   Before each view's decisions were kept, a warm batch rebuilt every row and its optimised code
 *   was discarded whenever the previous round's estate was collected: 0.78 ms wall, 0.79 ms cpu
 *   (18x / 11x) in the same conditions.
 * A cold batch and 1,000 single calls do the same per-tool work once each (the ~100 granted tools'
 * DENY reach; the 900 others are one lookup either way), so cold they stay within ~2x of each other;
 * the batch's gain is that this work is kept for the graph state (warm, each candidate's decision
 * is one lookup), and over MCP that one call replaces 1,000 round trips (~130-400 us each).
 */
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { parseCatalog } from '../src/catalog/parse.ts';
import type { CliIo } from '../src/cli/command.ts';
import { main } from '../src/cli/main.ts';
import { cachedEstateLoader } from '../src/cli/commands/serve.ts';
import { enforcementRego } from '../src/cli/enforcement-rego.ts';
import { checkAccess } from '../src/governance/check-access.ts';
import { buildEstate } from '../src/governance/estate.ts';
import { parseManifest } from '../src/manifest/parse.ts';
import { eligibleTools } from '../src/selector/eligible-tools.ts';
import { createServeServer } from '../src/serve/server.ts';
import { writeSyntheticEstate } from './synthetic-estate.ts';

const dir = mkdtempSync(join(tmpdir(), 'tg-bench-selector-'));
const files = writeSyntheticEstate(dir, 1);
// Old enough that serve's cache trusts the files' times from the first call (see estate-cache.ts).
const hourAgo = new Date(Date.now() - 3600_000);
utimesSync(files.manifest, hourAgo, hourAgo);
utimesSync(files.catalog, hourAgo, hourAgo);
const manifest = parseManifest(files.manifest, readFileSync(files.manifest, 'utf8'));
const catalog = parseCatalog(files.catalog, readFileSync(files.catalog, 'utf8'));
const fresh = () => buildEstate(manifest, catalog);

const agent = 'agent-0';
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
let e0: ReturnType<typeof fresh> | undefined = fresh();
const candidates = [...e0.grantsByAgent.get(agent)!.keys()];
for (let i = 0; i < 20; i++) candidates.push(`tool_${i}`, `nowhere::tool_${i}`);
while (candidates.length < 1000) candidates.push(`srv-${Math.floor(rand() * 1000)}::tool_${Math.floor(rand() * 20)}`);
for (let i = candidates.length - 1; i > 0; i--) {
  const j = Math.floor(rand() * (i + 1));
  [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
}

const r0 = eligibleTools(e0, agent, candidates, 'strict');
// One estate alive at a time from here on: a smaller heap to collect and sweep between timings.
e0 = undefined;

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

async function settle(): Promise<void> {
  gc();
  await sleep(500);
}

/** Wall and CPU time (this process, all threads) of one run of fn, in ms. */
interface Timing {
  readonly wall: number;
  readonly cpu: number;
}

async function time(fn: () => unknown): Promise<Timing> {
  await settle();
  const u = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wall = performance.now() - t0;
  const d = process.cpuUsage(u);
  return { wall, cpu: (d.user + d.system) / 1000 };
}

const median = (xs: readonly Timing[]): Timing => {
  const m = (k: keyof Timing) => [...xs].map((x) => x[k]).sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  return { wall: m('wall'), cpu: m('cpu') };
};
const rate = (ms: number) => `${Math.round(candidates.length / (ms / 1000)).toLocaleString('en-US')}/s`;
const line = (label: string, t: Timing, base?: Timing) =>
  `  ${label.padEnd(44)} wall ${t.wall.toFixed(2).padStart(8)} ms (${rate(t.wall).padStart(10)})  cpu ${t.cpu.toFixed(2).padStart(8)} ms (${rate(t.cpu).padStart(10)})` +
  (base === undefined ? '' : `  ratio wall ${(base.wall / t.wall).toFixed(1)}x, cpu ${(base.cpu / t.cpu).toFixed(1)}x`);

const rounds = 5;
let sink = 0;

// 1. Library level.
const single: Timing[] = [];
const cold: Timing[] = [];
const warm: Timing[] = [];
for (let r = 0; r < rounds; r++) {
  let a: ReturnType<typeof fresh> | undefined = fresh();
  single.push(
    await time(() => {
      for (const c of candidates) sink += checkAccess(a!, agent, c).deny_evidence.length;
    }),
  );
  a = undefined;
  const b = fresh();
  cold.push(await time(() => void (sink += eligibleTools(b, agent, candidates, 'strict').eligible.length)));
  const w = await time(() => {
    for (let i = 0; i < 10; i++) sink += eligibleTools(b, agent, candidates, 'strict').eligible.length;
  });
  warm.push({ wall: w.wall / 10, cpu: w.cpu / 10 });
}
const s = median(single);
console.log(`synthetic estate: ${JSON.stringify(files.counts)}`);
console.log(`candidates: ${candidates.length} (${r0.eligible.length} eligible, ${r0.rejected.length} rejected under strict), median of ${rounds} rounds; rates in candidates per second`);
console.log('library (fresh estate for each side):');
console.log(line('1,000 single checkAccess calls', s));
console.log(line('eligibleTools batch, cold selector index', median(cold), s));
console.log(`${line('eligibleTools batch, warm index (mean of 10)', median(warm), s)} (target >= 20x)`);

// 2. Consumer level: MCP tool calls over an in-process linked transport.
const quiet: CliIo = { stdout: () => {}, stderr: () => {}, cwd: dir, env: {}, stdin: async () => '' };
const loader = cachedEstateLoader({ manifestPath: files.manifest, catalogPath: files.catalog }, quiet, false);
// The bench asks no tool that names a file.
const noFiles = (): never => {
  throw new Error('no file tool in this bench');
};
const server = createServeServer({ load: loader.load, files: { read: noFiles, readOptional: noFiles, realPath: noFiles }, createdAt: () => '2026-01-01T00:00:00Z', enforcementRego, serverInfo: { name: 'toolgate', version: 'bench' } });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: 'selector-bench', version: '1.0.0' });
await client.connect(clientSide);

const callTool = async (name: string, args: Record<string, unknown>) => {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent as { result: { deny_evidence?: unknown[]; eligible?: unknown[]; rejected?: unknown[] } };
};

const first = await time(() => callTool('check_access', { agent: 'agent-1', tool: 'srv-1::tool_1' }));
const firstBatch = await time(async () => {
  sink += (await callTool('eligible_tools', { agent, candidates, profile: 'strict' })).result.eligible!.length;
});
const mcpSingle: Timing[] = [];
const mcpBatch: Timing[] = [];
for (let r = 0; r < rounds; r++) {
  mcpSingle.push(
    await time(async () => {
      for (const c of candidates) sink += (await callTool('check_access', { agent, tool: c })).result.deny_evidence!.length;
    }),
  );
  mcpBatch.push(
    await time(async () => {
      const res = (await callTool('eligible_tools', { agent, candidates, profile: 'strict' })).result;
      if (res.eligible!.length + res.rejected!.length !== candidates.length) throw new Error('eligible_tools lost candidates');
      sink += res.eligible!.length;
    }),
  );
}
const ms = median(mcpSingle);
const stats = loader.stats();
console.log(`MCP client over InMemoryTransport (serve's cached estate; first call excluded: ${(first.wall / 1000).toFixed(1)} s wall to parse the estate and digest it):`);
console.log(line('1,000 check_access tool calls', ms));
console.log(line('one eligible_tools call, first at this state', firstBatch, ms));
console.log(`${line('one eligible_tools call (1,000 candidates)', median(mcpBatch), ms)} (target >= 20x)`);
console.log(`  estate loads: ${stats.loads} over ${stats.gets} tool calls`);
await client.close();
// 3. control-preflight (issue 19): one plan of 1,000 nodes naming 200 principals, against 200
// single `eligible-tools` calls (one per principal: what an orchestrator does without a plan), both
// through the CLI entry point in this process, so each side pays what a real invocation pays:
// reading, validating and indexing the estate, then the selector. The estate is a small one built
// here (200 agents, 50 servers x 20 tools, 20 grants each) so 200 single invocations finish.
{
  const cdir = mkdtempSync(join(tmpdir(), 'tg-bench-control-'));
  const principals = 200;
  const servers = 50;
  const lines = ['agents:'];
  for (let a = 0; a < principals; a++) lines.push(`  - p-${a}`);
  lines.push('policies: [{id: deny-0, effect: DENY}]', 'grants:');
  const cands: string[][] = [];
  for (let a = 0; a < principals; a++) {
    const mine: string[] = [];
    for (let g = 0; g < 20; g++) {
      const key = `s-${(a * 7 + g) % servers}::t_${(a + g * 3) % 20}`;
      if (mine.includes(key)) continue;
      mine.push(key);
      lines.push(`  - {agent: p-${a}, tool: "${key}", provenance: {source: operator_asserted, confidence: high, evidence: "B-${a}"}}`);
    }
    cands.push([...new Set([...mine, `s-${a % servers}::t_19`, `nowhere::t_${a}`])]);
  }
  lines.push('data_access:');
  for (let sv = 0; sv < servers; sv++) for (let t = 0; t < 20; t += 4) lines.push(`  - {tool: "s-${sv}::t_${t}", resource: "db://r-${(sv + t) % 40}", mode: ${t % 8 === 0 ? 'READS' : 'WRITES'}, provenance: {source: operator_asserted, confidence: high, evidence: "D"}}`);
  lines.push('governed_by:', '  "db://r-0": [deny-0]');
  const gov = join(cdir, 'governance.yaml');
  const cat = join(cdir, 'catalog.json');
  writeFileSync(gov, `${lines.join('\n')}\n`);
  writeFileSync(cat, JSON.stringify({ servers: Array.from({ length: servers }, (_, sv) => ({ name: `s-${sv}`, tools: Array.from({ length: 20 }, (_, t) => ({ name: `t_${t}` })) })) }));
  // 1,000 nodes: start, 998 agent nodes in 2 parallel lanes of 499 (each node one principal), end.
  const nodes: Record<string, unknown>[] = [{ id: 'start', kind: 'start', principals: [], agent_call: false }];
  const edges: Record<string, unknown>[] = [];
  const lane = 499;
  for (let l = 0; l < 2; l++) {
    for (let i = 0; i < lane; i++) {
      const id = `n-${l}-${i}`;
      nodes.push({ id, kind: 'agent', principals: [`p-${(l * lane + i) % principals}`], agent_call: true, max_invocations: 1, max_parallelism: 1, timeout_seconds: 60 });
      edges.push({ from: i === 0 ? 'start' : `n-${l}-${i - 1}`, to: id, kind: 'success', decided_by: 'code' });
    }
    edges.push({ from: `n-${l}-${lane - 1}`, to: 'end', kind: 'join', decided_by: 'code' });
  }
  nodes.push({ id: 'end', kind: 'end', principals: [], agent_call: false });
  const plan = { schema_version: 1, kind: 'toolgraph.control-plan', run_id: 'bench-1', producer: { name: 'bench', version: '1' }, principals: cands.map((c, a) => ({ id: `p-${a}`, candidate_tools: c })), nodes, edges, limits: { maximum_agent_calls: 998, maximum_parallelism: 2, maximum_cycles: 0 } };
  const planFile = join(cdir, 'plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  let out = '';
  const cio: CliIo = { stdout: (t) => void (out += t), stderr: () => {}, cwd: cdir, env: { SOURCE_DATE_EPOCH: '0' }, stdin: async () => '' };
  const est = ['--manifest', gov, '--catalog', cat];
  const singles: Timing[] = [];
  const plans: Timing[] = [];
  let exposures = 0;
  for (let r = 0; r < 3; r++) {
    singles.push(
      await time(async () => {
        for (let a = 0; a < principals; a++) {
          out = '';
          if ((await main(['eligible-tools', `p-${a}`, ...cands[a]!, '--profile', 'strict', ...est], cio)) !== 0) throw new Error('eligible-tools failed');
          sink += out.length;
        }
      }),
    );
    plans.push(
      await time(async () => {
        out = '';
        if ((await main(['control-preflight', planFile, '--profile', 'strict', ...est], cio)) !== 0) throw new Error('control-preflight failed');
        exposures = (JSON.parse(out) as { potential_exposure_count: number }).potential_exposure_count;
      }),
    );
  }
  const cs = median(singles);
  const cp = median(plans);
  const ratio = (k: keyof Timing) => (cs[k] / cp[k]).toFixed(1);
  console.log(`control-preflight: ${nodes.length} nodes, ${edges.length} edges, ${principals} principals x ~22 candidates, ${exposures.toLocaleString('en-US')} read-to-write exposures (1,000 listed); median of 3, CLI entry point in-process:`);
  console.log(`  200 single eligible-tools invocations          wall ${cs.wall.toFixed(0).padStart(8)} ms  cpu ${cs.cpu.toFixed(0).padStart(8)} ms`);
  console.log(`  one control-preflight invocation               wall ${cp.wall.toFixed(0).padStart(8)} ms  cpu ${cp.cpu.toFixed(0).padStart(8)} ms  ratio wall ${ratio('wall')}x, cpu ${ratio('cpu')}x (target >= 20x)`);
  rmSync(cdir, { recursive: true, force: true });
}
if (sink < 0) console.log(sink);
rmSync(dir, { recursive: true, force: true });
