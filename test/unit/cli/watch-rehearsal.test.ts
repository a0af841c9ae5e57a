/** A watch's rehearsed save: incremental, on the watch's own state, signing nothing and leaving the next save as it would have been. */
import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { parseManifest } from '../../../src/manifest/parse.ts';
import { parseCatalog } from '../../../src/catalog/parse.ts';
import { buildEstate } from '../../../src/governance/estate.ts';
import { compileEstate, recompileEstate } from '../../../src/emit/compile-run.ts';
import { connectomeArtifacts } from '../../../src/compile/connectome-artifacts.ts';
import type { EstateCompileOptions } from '../../../src/compile/compile.ts';
import { ArtifactBuffers } from '../../../src/compile/incremental/artifact-buffers.ts';
import { manifestPieceCache } from '../../../src/compile/incremental/compile-state.ts';
import { enforcementRego } from '../../../src/cli/enforcement-rego.ts';
import { rehearseSave } from '../../../src/cli/watch-rehearsal.ts';

const MANIFEST = 'examples/fleet/governance.yaml';
const text = readFileSync(MANIFEST, 'utf8');
const catalog = parseCatalog('catalog.json', readFileSync('examples/fleet/catalog.json', 'utf8'));

async function watched(manifestText: string, extra: Partial<EstateCompileOptions> = {}) {
  const estate = buildEstate(parseManifest(MANIFEST, manifestText, { pieces: new Map() }), catalog);
  const options: EstateCompileOptions = { profile: 'review', createdAt: '2026-01-01T00:00:00Z', regoModules: enforcementRego(), connectome: await connectomeArtifacts(catalog), recompiles: true, ...extra };
  const { state, result } = await recompileEstate(undefined, estate, options);
  return { estate, options, state, result };
}

describe('a rehearsed save', () => {
  it('recompiles the manifest less one grant incrementally: one agent recomputed', async () => {
    const w = await watched(text);
    const summary = await rehearseSave({ manifestPath: MANIFEST, estate: w.estate, state: w.state, options: w.options });
    expect(summary?.mode).toBe('incremental');
    expect(summary?.recomputed.agents).toBe(1);
    expect(summary?.agents.changed).toHaveLength(1);
  });

  it('asks no bundle signer, and leaves the next save giving the bytes of a full compile', async () => {
    let signed = 0;
    const signBundle = async () => (signed++, new Uint8Array([1]));
    const buffers = new ArtifactBuffers();
    const w = await watched(text, { signBundle, allocateArtifact: (n) => buffers.take(n) });
    signed = 0;
    expect(await rehearseSave({ manifestPath: MANIFEST, estate: w.estate, state: w.state, options: w.options, buffers })).toBeDefined();
    expect(signed).toBe(0);
    const saved = text.replace('{agent: planner, tool: "time::get_current_time"', '{agent: planner, tool: "fetch::fetch"');
    expect(saved).not.toBe(text);
    const estate = buildEstate(parseManifest(MANIFEST, saved, { pieces: manifestPieceCache(w.state), previousPlan: w.estate.manifest.piecePlan! }), catalog, { previous: w.estate });
    const previous = { graph_state: w.result.graph_state, digests: w.result.digests, created_at: w.result.created_at };
    const next = await recompileEstate(w.state, estate, { ...w.options, previous });
    const full = await compileEstate(buildEstate(parseManifest(MANIFEST, saved), catalog), { ...w.options, previous });
    expect(next.result.files.map((f) => [f.name, Buffer.from(f.bytes).toString('base64')])).toEqual(full.files.map((f) => [f.name, Buffer.from(f.bytes).toString('base64')]));
  });

  it('is not run for a manifest of one grant, nor one not read in pieces', async () => {
    const one = text.replace(/\ngrants:\n[\s\S]*?\n(?=[a-z_]+:)/, '\ngrants:\n  - {agent: planner, tool: "time::get_current_time"}\n\n');
    expect(one).not.toBe(text);
    const w = await watched(one);
    expect(await rehearseSave({ manifestPath: MANIFEST, estate: w.estate, state: w.state, options: w.options })).toBeUndefined();
    const whole = buildEstate(parseManifest(MANIFEST, text), catalog);
    const v = await watched(text);
    expect(await rehearseSave({ manifestPath: MANIFEST, estate: whole, state: v.state, options: v.options })).toBeUndefined();
  });
});
