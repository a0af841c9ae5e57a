/**
 * Selector batch (issue 6): `eligible-tools` over 1,000 candidates on the synthetic estate, as
 * candidates per second, against 1,000 single `checkAccess` calls on the same estate in the same
 * run (nothing reloaded; one call per candidate). Each side gets a freshly built estate so neither
 * inherits the other's caches; the batch is also timed again on its warm index (a consumer asking
 * again at the same graph state). Candidates: the agent's 100 grants, unknown and ambiguous names,
 * and random other tools, shuffled.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCatalog } from '../src/catalog/parse.ts';
import { checkAccess } from '../src/governance/check-access.ts';
import { buildEstate } from '../src/governance/estate.ts';
import { parseManifest } from '../src/manifest/parse.ts';
import { eligibleTools } from '../src/selector/eligible-tools.ts';
import { writeSyntheticEstate } from './synthetic-estate.ts';

const dir = mkdtempSync(join(tmpdir(), 'tg-bench-selector-'));
const files = writeSyntheticEstate(dir, 1);
const manifestText = readFileSync(files.manifest, 'utf8');
const catalogText = readFileSync(files.catalog, 'utf8');
const fresh = () => buildEstate(parseManifest(files.manifest, manifestText), parseCatalog(files.catalog, catalogText));

const agent = 'agent-0';
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const e0 = fresh();
const candidates = [...e0.grantsByAgent.get(agent)!.keys()];
for (let i = 0; i < 20; i++) candidates.push(`tool_${i}`, `nowhere::tool_${i}`);
while (candidates.length < 1000) candidates.push(`srv-${Math.floor(rand() * 1000)}::tool_${Math.floor(rand() * 20)}`);
for (let i = candidates.length - 1; i > 0; i--) {
  const j = Math.floor(rand() * (i + 1));
  [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

function time(fn: () => void): number {
  gc();
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

const rounds = 5;
const single: number[] = [];
const cold: number[] = [];
const warm: number[] = [];
let sink = 0;
for (let r = 0; r < rounds; r++) {
  const a = fresh();
  single.push(time(() => {
    for (const c of candidates) sink += checkAccess(a, agent, c).deny_evidence.length;
  }));
  const b = fresh();
  cold.push(time(() => void (sink += eligibleTools(b, agent, candidates, 'strict').eligible.length)));
  warm.push(time(() => void (sink += eligibleTools(b, agent, candidates, 'strict').eligible.length)));
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const s = median(single);
const c = median(cold);
const w = median(warm);
const r = eligibleTools(e0, agent, candidates, 'strict');
console.log(`synthetic estate: ${JSON.stringify(files.counts)}`);
console.log(`candidates: ${candidates.length} (${r.eligible.length} eligible, ${r.rejected.length} rejected), median of ${rounds} rounds`);
console.log(`  1,000 single checkAccess calls   ${s.toFixed(2)} ms  (${Math.round(candidates.length / (s / 1000)).toLocaleString('en-US')} candidates/s)`);
console.log(`  eligible-tools batch, cold index ${c.toFixed(2)} ms  (${Math.round(candidates.length / (c / 1000)).toLocaleString('en-US')} candidates/s)  ratio ${(s / c).toFixed(1)}x`);
console.log(`  eligible-tools batch, warm index ${w.toFixed(2)} ms  (${Math.round(candidates.length / (w / 1000)).toLocaleString('en-US')} candidates/s)  ratio ${(s / w).toFixed(1)}x (target >= 20x)`);
if (sink < 0) console.log(sink);
rmSync(dir, { recursive: true, force: true });
