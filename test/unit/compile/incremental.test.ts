import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { dump } from 'js-yaml';
import { canonicalString } from '../../../src/canonical/json.ts';
import { parseManifest } from '../../../src/manifest/parse.ts';
import { parseCatalog } from '../../../src/catalog/parse.ts';
import { buildEstate } from '../../../src/governance/estate.ts';
import type { EstateCompileOptions, CompileResult } from '../../../src/compile/compile.ts';
import { stateRefusal } from '../../../src/compile/incremental/recompile.ts';
import { compileDataJson, compileEstate, recompileEstate } from '../../../src/emit/compile-run.ts';
import { connectomeArtifacts } from '../../../src/compile/connectome-artifacts.ts';
import { enforcementRego } from '../../../src/cli/enforcement-rego.ts';
import { InputMemo } from '../../../src/cli/watch-memo.ts';
import { rehearseSave } from '../../../src/cli/watch-rehearsal.ts';
import { ArtifactBuffers } from '../../../src/compile/incremental/artifact-buffers.ts';
import { COMPILE_STATE_VERSION, manifestPieceCache, type CompileState } from '../../../src/compile/incremental/compile-state.ts';
import { readStateFiles, stateFiles } from '../../../src/compile/incremental/state-file.ts';
import type { Profile } from '../../../src/governance/types.ts';
import type { Catalog } from '../../../src/catalog/types.ts';

type Json = Record<string, unknown>;
interface Model {
  manifest: { agents: string[]; policies: { id: string; effect: string; scope: string }[]; grants: { agent: string; tool: string; provenance?: Json }[]; data_access: { tool: string; resource: string; mode: string }[]; governed_by: Record<string, string[]>; expected_exceptions: { agent: string; tool: string; reason: string }[] };
  catalog: { kind: string; schema_version: number; servers: { name: string; tools: { name: string; description?: string; inputSchema?: Json; annotations?: Json }[]; resources?: { uri: string }[]; resourceTemplates?: { uriTemplate: string }[]; prompts?: { name: string }[] }[] };
}

const SERVERS = ['fs', 'git', 'web'];
const TOOLS = ['read', 'write', 'list', 'fetch'];
const RESOURCES = ['file:///etc/app/secret', 'file:///srv/docs/', 'https://example.com/api'];

function baseModel(): Model {
  const tools = SERVERS.flatMap((s) => TOOLS.map((t) => `${s}::${t}`));
  return {
    manifest: {
      agents: ['a0', 'a1', 'a2', 'a3'],
      policies: [
        { id: 'p0', effect: 'DENY', scope: 'secrets' },
        { id: 'p1', effect: 'ALLOW', scope: 'docs' },
        { id: 'p2', effect: 'DENY', scope: 'net' },
      ],
      grants: [0, 1, 2, 3].flatMap((a) => tools.filter((_, i) => (i + a) % 3 === 0).map((tool) => ({ agent: `a${a}`, tool, provenance: { source: 'operator_asserted', confidence: 'high', evidence: `T-${a}` } }))),
      data_access: [
        { tool: 'fs::read', resource: RESOURCES[0]!, mode: 'READS' },
        { tool: 'fs::write', resource: RESOURCES[1]!, mode: 'WRITES' },
        { tool: 'git::read', resource: RESOURCES[0]!, mode: 'READS' },
        { tool: 'web::fetch', resource: RESOURCES[2]!, mode: 'READS' },
      ],
      governed_by: { [RESOURCES[0]!]: ['p0'], [RESOURCES[1]!]: ['p1'], [RESOURCES[2]!]: ['p2'] },
      expected_exceptions: [{ agent: 'a1', tool: 'git::*', reason: 'history is reviewed' }],
    },
    catalog: {
      kind: 'toolgate.catalog',
      schema_version: 1,
      servers: SERVERS.map((s) => ({
        name: s,
        ...(s === 'fs' ? { resources: [{ uri: RESOURCES[0]! }], resourceTemplates: [{ uriTemplate: 'file:///srv/docs/{path}' }], prompts: [{ name: 'summarise' }] } : {}),
        tools: TOOLS.map((t, i) => ({ name: t, description: `${t} on ${s}`, inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, annotations: { readOnlyHint: i % 2 === 0 } })),
      })),
    },
  };
}

type Edit = (m: Model) => void;
const toolRef = fc.tuple(fc.nat(SERVERS.length - 1), fc.nat(TOOLS.length - 1)).map(([s, t]) => `${SERVERS[s]}::${TOOLS[t]}`);
const edit: fc.Arbitrary<[string, Edit]> = fc.oneof(
  fc.tuple(fc.nat(7), toolRef).map(([a, tool]): [string, Edit] => [`add grant a${a % 4} ${tool}`, (m) => {
    const agent = m.manifest.agents[a % m.manifest.agents.length];
    if (agent !== undefined && !m.manifest.grants.some((g) => g.agent === agent && g.tool === tool)) m.manifest.grants.push({ agent, tool });
  }]),
  fc.nat(40).map((i): [string, Edit] => [`remove grant ${i}`, (m) => void m.manifest.grants.splice(i % Math.max(1, m.manifest.grants.length), 1)]),
  fc.tuple(fc.nat(2), fc.nat(3), fc.string({ maxLength: 12 })).map(([s, t, d]): [string, Edit] => [`describe ${s}/${t} ${JSON.stringify(d)}`, (m) => {
    const tool = m.catalog.servers[s]?.tools[t];
    if (tool) tool.description = d;
  }]),
  fc.tuple(fc.nat(2), fc.nat(3), fc.constantFrom('integer', 'string', 'boolean')).map(([s, t, type]): [string, Edit] => [`schema ${s}/${t} ${type}`, (m) => {
    const tool = m.catalog.servers[s]?.tools[t];
    if (tool) tool.inputSchema = { type: 'object', properties: { path: { type: 'string' }, extra: { type } } };
  }]),
  fc.tuple(fc.nat(2), fc.nat(3)).map(([s, t]): [string, Edit] => [`drop tool ${s}/${t}`, (m) => void m.catalog.servers[s]?.tools.splice(t, 1)]),
  fc.tuple(fc.nat(2), fc.nat(2)).map(([s, r]): [string, Edit] => [`resource ${s} ${r}`, (m) => {
    const server = m.catalog.servers[s]!;
    const list = (server.resources ??= []);
    const at = list.findIndex((x) => x.uri === RESOURCES[r]);
    if (at >= 0) list.splice(at, 1);
    else list.push({ uri: RESOURCES[r]! });
  }]),
  fc.tuple(fc.nat(2), fc.constantFrom('file:///srv/docs/{path}', 'file:///etc/app/{name}', 'https://example.com/{+rest}')).map(([s, uriTemplate]): [string, Edit] => [`template ${s} ${uriTemplate}`, (m) => {
    m.catalog.servers[s]!.resourceTemplates = [{ uriTemplate }];
  }]),
  fc.tuple(fc.nat(2), fc.constantFrom('summarise', 'review')).map(([s, name]): [string, Edit] => [`prompt ${s} ${name}`, (m) => {
    const list = (m.catalog.servers[s]!.prompts ??= []);
    if (list.some((p) => p.name === name)) m.catalog.servers[s]!.prompts = list.filter((p) => p.name !== name);
    else list.push({ name });
  }]),
  fc.tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/), toolRef).map(([name, tool]): [string, Edit] => [`add agent n-${name}`, (m) => {
    if (m.manifest.agents.includes(`n-${name}`)) return;
    m.manifest.agents.push(`n-${name}`);
    m.manifest.grants.push({ agent: `n-${name}`, tool });
  }]),
  fc.nat(7).map((i): [string, Edit] => [`remove agent ${i}`, (m) => {
    const agent = m.manifest.agents[i % m.manifest.agents.length];
    if (agent === undefined || m.manifest.agents.length === 1) return;
    m.manifest.agents = m.manifest.agents.filter((a) => a !== agent);
    m.manifest.grants = m.manifest.grants.filter((g) => g.agent !== agent);
    m.manifest.expected_exceptions = m.manifest.expected_exceptions.filter((x) => x.agent !== agent);
  }]),
  fc.tuple(fc.nat(2), fc.boolean()).map(([i, flip]): [string, Edit] => [`policy p${i} ${flip ? 'effect' : 'scope'}`, (m) => {
    const p = m.manifest.policies[i]!;
    if (flip) p.effect = p.effect === 'DENY' ? 'ALLOW' : 'DENY';
    else p.scope = `${p.scope}-x`;
  }]),
  fc.tuple(toolRef, fc.nat(2), fc.boolean()).map(([tool, r, reads]): [string, Edit] => [`access ${tool} ${r}`, (m) => {
    const row = { tool, resource: RESOURCES[r]!, mode: reads ? 'READS' : 'WRITES' };
    const at = m.manifest.data_access.findIndex((d) => d.tool === row.tool && d.resource === row.resource && d.mode === row.mode);
    if (at >= 0) m.manifest.data_access.splice(at, 1);
    else m.manifest.data_access.push(row);
  }]),
  fc.tuple(toolRef, fc.nat(2)).map(([tool, p]): [string, Edit] => [`bind ${tool} p${p}`, (m) => {
    m.manifest.governed_by[tool] = [`p${p}`];
  }]),
  fc.tuple(fc.constantFrom('*', 'a0', 'a2'), fc.constantFrom('*', 'fs::*', 'fs::read', 'git::read')).map(([agent, tool]): [string, Edit] => [`exception ${agent} ${tool}`, (m) => {
    const at = m.manifest.expected_exceptions.findIndex((x) => x.agent === agent && x.tool === tool);
    if (at >= 0) m.manifest.expected_exceptions.splice(at, 1);
    else if (agent === '*' || m.manifest.agents.includes(agent)) m.manifest.expected_exceptions.push({ agent, tool, reason: 'by design' });
  }]),
);

const rego = enforcementRego();

async function optionsFor(model: Model, profile: Profile, previous: CompileResult | undefined): Promise<EstateCompileOptions> {
  const connectome = await connectomeArtifacts(parseCatalog('catalog.json', JSON.stringify(model.catalog)));
  return {
    profile,
    createdAt: '2026-01-01T00:00:00Z',
    regoModules: rego,
    connectome,
    ...(previous ? { previous: { graph_state: previous.graph_state, digests: previous.digests, created_at: previous.created_at } } : {}),
  };
}

function estateOf(model: Model) {
  return buildEstate(parseManifest('governance.json', JSON.stringify(model.manifest)), parseCatalog('catalog.json', JSON.stringify(model.catalog)));
}

/**
 * The estate as compile --incremental reads it: the manifest written as block YAML, read in pieces
 * with those `state` kept; through `watch`, as compile --watch reads it, a file whose text did not
 * change being the (for the catalog, frozen) object read before, and a changed manifest cut again
 * from the plan of its previous read.
 */
function estateOfYaml(model: Model, state: CompileState | undefined, watch?: InputMemo) {
  // As the watch does, the manifest's previous read says how its text was cut (only what changed is cut again).
  const previousPlan = (watch?.previous('governance.yaml') as ReturnType<typeof parseManifest> | undefined)?.piecePlan;
  const manifest = (text: string) => parseManifest('governance.yaml', text, { pieces: manifestPieceCache(state), ...(previousPlan ? { previousPlan } : {}) });
  const catalog = (text: string) => parseCatalog('catalog.json', text);
  const [m, c] = [dump(model.manifest), JSON.stringify(model.catalog)];
  return watch ? buildEstate(watch.parsed('governance.yaml', m, manifest), watch.parsed('catalog.json', c, catalog, { freeze: true })) : buildEstate(manifest(m), catalog(c));
}

function fileOf(r: CompileResult, name: string): Uint8Array {
  return r.files.find((f) => f.name === name)!.bytes;
}

const tarballOf = (r: CompileResult) => fileOf(r, 'bundle.tar.gz');

/** The artifacts a state file is read beside. */
const besideOf = (r: CompileResult, tarball = tarballOf(r)) => ({ policyBundle: fileOf(r, 'policy-bundle.json'), data: fileOf(r, 'data.json'), tarball });

function filesOf(r: CompileResult): Record<string, string> {
  return Object.fromEntries(r.files.map((f) => [f.name, Buffer.from(f.bytes).toString('base64')]));
}

describe('recompileEstate', () => {
  it('writes the same bytes as a full compile, for every artifact, after any sequence of edits', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<Profile>('strict', 'review', 'explore'), fc.array(edit, { minLength: 1, maxLength: 4 }), async (profile, edits) => {
        const model = baseModel();
        let { result, state } = await recompileEstate(undefined, estateOf(model), await optionsFor(model, profile, undefined));
        const watch = new InputMemo();
        for (const [step, [, apply]] of edits.entries()) {
          apply(model);
          const estate = estateOf(model);
          const options = await optionsFor(model, profile, result);
          // As compile --incremental reads it: the manifest as YAML, in pieces, the unchanged ones from the state;
          // on even steps as a watch reads it, an unchanged file being the object read at the step before.
          const read = estateOfYaml(model, state, step % 2 === 0 ? watch : undefined);
          // Every other step starts from the state as a fresh process reads it back from its files.
          const files = stateFiles(state);
          const kept = readStateFiles(files.index, files.pieces, besideOf(result));
          const from = step % 2 === 1 && 'state' in kept ? kept.state : state;
          const incremental = await recompileEstate(from, read, options);
          const full = await recompileEstate(undefined, estate, options);
          expect(incremental.summary.mode).toBe('incremental');
          expect(filesOf(incremental.result)).toEqual(filesOf(full.result));
          expect(filesOf(incremental.result)).toEqual(filesOf(await compileEstate(estate, options)));
          const [a, b] = [stateFiles(incremental.state), stateFiles((await recompileEstate(undefined, estateOfYaml(model, undefined), { ...options, keepState: true })).state)];
          expect(Buffer.from(a.index).equals(Buffer.from(b.index)) && Buffer.from(a.pieces).equals(Buffer.from(b.pieces))).toBe(true);
          ({ result, state } = incremental);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('writes the same bytes as a full compile at every save of a watch (the estate built from the previous one, the state in memory)', async () => {
    // Saves that changed no tool copy the tool members whole (tool-members.ts): some must.
    let copiedWhole = 0;
    // A watch rehearses a save before the first (cli/watch-rehearsal.ts): here before any save.
    const rehearsals: string[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 6 }), fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), async (edits, rehearse) => {
        const model = baseModel();
        const watch = new InputMemo();
        const read = (previous: ReturnType<typeof estateOfYaml> | undefined, state: CompileState | undefined) => {
          const m = dump(model.manifest);
          const previousPlan = (watch.previous('governance.yaml') as ReturnType<typeof parseManifest> | undefined)?.piecePlan;
          const manifest = watch.parsed('governance.yaml', m, (text) => parseManifest('governance.yaml', text, { pieces: manifestPieceCache(state), ...(previousPlan ? { previousPlan } : {}) }));
          // Read from its previous version, as a watch reads it: an unchanged tool is the object read before.
          const catalog = watch.parsed<Catalog>('catalog.json', JSON.stringify(model.catalog), (text, before) => parseCatalog('catalog.json', text, before ? { previousJson: before } : {}), { freeze: true });
          return buildEstate(manifest, catalog, previous ? { previous } : {});
        };
        // As the watch does, each save writes its documents into the memory of the set two saves back.
        const buffers = new ArtifactBuffers();
        const allocateArtifact = (n: number) => buffers.take(n);
        const bytesOf = (s: CompileState) => [s.bytes.policy_bundle, s.bytes.data];
        let estate = read(undefined, undefined);
        let { result, state } = await recompileEstate(undefined, estate, { ...(await optionsFor(model, 'review', undefined)), allocateArtifact });
        for (const [i, [, apply]] of edits.entries()) {
          if (rehearse[i]) rehearsals.push((await rehearseSave({ manifestPath: 'governance.yaml', estate, state, options: { ...(await optionsFor(model, 'review', result)), allocateArtifact }, buffers }))?.mode ?? 'none');
          apply(model);
          estate = read(estate, state);
          const options = await optionsFor(model, 'review', result);
          const next = await recompileEstate(state, estate, { ...options, allocateArtifact });
          if (state.exposed?.source === estate.tools) copiedWhole++;
          expect(filesOf(next.result)).toEqual(filesOf(await compileEstate(buildEstate(estate.manifest, estate.catalog), options)));
          // What it says changed is what a recompile from the same state read back from its files says
          // (which knows nothing of the previous estate, so it compares every tool).
          const files = stateFiles(state);
          const fromFiles = readStateFiles(files.index, files.pieces, besideOf(result));
          if (!('state' in fromFiles)) throw new Error(fromFiles.refused);
          const plain = await recompileEstate(fromFiles.state, buildEstate(estate.manifest, estate.catalog), options);
          expect({ tools: next.summary.tools, agents: next.summary.agents, decisions: next.summary.decisions }).toEqual({ tools: plain.summary.tools, agents: plain.summary.agents, decisions: plain.summary.decisions });
          buffers.retire(bytesOf(state), bytesOf(next.state));
          ({ result, state } = next);
        }
      }),
      { numRuns: 60 },
    );
    expect(copiedWhole).toBeGreaterThan(0);
    expect(rehearsals).toContain('incremental');
  });

  it('recomputes only the agent whose grant changed, and names the decision that changed', async () => {
    const model = baseModel();
    const first = await recompileEstate(undefined, estateOf(model), await optionsFor(model, 'review', undefined));
    model.manifest.grants.push({ agent: 'a0', tool: 'web::list' });
    const next = await recompileEstate(first.state, estateOf(model), await optionsFor(model, 'review', first.result));
    expect(next.summary.recomputed).toEqual({ agents: 1, tools: 0 });
    expect(next.summary.agents.changed).toEqual(['a0']);
    expect(next.summary.decisions).toEqual([{ agent: 'a0', tool_key: 'web::list', before: null, after: 'eligible' }]);
  });

  it('recomputes every agent granted a tool whose data access changed, and no other', async () => {
    const model = baseModel();
    const first = await recompileEstate(undefined, estateOf(model), await optionsFor(model, 'strict', undefined));
    model.manifest.data_access.push({ tool: 'web::list', resource: RESOURCES[0]!, mode: 'READS' });
    const next = await recompileEstate(first.state, estateOf(model), await optionsFor(model, 'strict', first.result));
    const granted = [...new Set(model.manifest.grants.filter((g) => g.tool === 'web::list').map((g) => g.agent))].sort();
    expect(next.summary.recomputed.agents).toBe(granted.length);
    expect(next.summary.agents.changed).toEqual(granted);
  });

  it('re-encodes one tool when one description changes, and reports it', async () => {
    const model = baseModel();
    const first = await recompileEstate(undefined, estateOf(model), await optionsFor(model, 'review', undefined));
    model.catalog.servers[1]!.tools[2]!.description = 'lists refs';
    const next = await recompileEstate(first.state, estateOf(model), await optionsFor(model, 'review', first.result));
    expect(next.summary.recomputed).toEqual({ agents: 0, tools: 1 });
    expect(next.summary.tools).toEqual({ added: [], removed: [], changed: ['git::list'] });
  });

  it('gives data.json alone with the bytes the whole compile writes, from scratch and from a kept state', async () => {
    const model = baseModel();
    const options = await optionsFor(model, 'strict', undefined);
    const first = await recompileEstate(undefined, estateOf(model), options);
    expect(Buffer.from(await compileDataJson(estateOf(model), options)).equals(Buffer.from(fileOf(first.result, 'data.json')))).toBe(true);
    model.manifest.grants.push({ agent: 'a2', tool: 'fs::read' });
    const nextOptions = await optionsFor(model, 'strict', first.result);
    const next = await recompileEstate(first.state, estateOf(model), nextOptions);
    expect(Buffer.from(await compileDataJson(estateOf(model), nextOptions, first.state)).equals(Buffer.from(fileOf(next.result, 'data.json')))).toBe(true);
  });

  it('recompiles a toolgraph-v1 bundle to the bytes of a full compile, and keeps its state to that format', async () => {
    const model = baseModel();
    const v1 = async (previous?: CompileResult) => ({ ...(await optionsFor(model, 'review', previous)), format: 'toolgraph-v1' as const, agent: 'a0' });
    const first = await recompileEstate(undefined, estateOfYaml(model, undefined), { ...(await v1()), keepState: true });
    model.manifest.grants.push({ agent: 'a0', tool: 'web::list' });
    const options = { ...(await v1(first.result)), keepState: true };
    const next = await recompileEstate(first.state, estateOfYaml(model, first.state), options);
    expect(next.summary.mode).toBe('incremental');
    expect(filesOf(next.result)).toEqual(filesOf((await recompileEstate(undefined, estateOfYaml(model, undefined), options)).result));
    expect(stateRefusal(next.state, await optionsFor(model, 'review', next.result))).toMatch(/format toolgraph-v1/);
  });

  describe('the state files', () => {
    it('read back to a state that recompiles like the one kept in memory, and refuse damage', async () => {
      const model = baseModel();
      const first = await recompileEstate(undefined, estateOf(model), await optionsFor(model, 'review', undefined));
      const files = stateFiles(first.state);
      const read = readStateFiles(files.index, files.pieces, besideOf(first.result));
      if (!('state' in read)) throw new Error(read.refused);
      model.manifest.grants.pop();
      const options = await optionsFor(model, 'review', first.result);
      const fromFile = await recompileEstate(read.state, estateOf(model), options);
      const fromMemory = await recompileEstate(first.state, estateOf(model), options);
      expect(fromFile.summary).toEqual(fromMemory.summary);
      expect(filesOf(fromFile.result)).toEqual(filesOf(fromMemory.result));
      // The index is canonical JSON, rows with non-ASCII names included.
      model.manifest.agents.push('agent-ä');
      model.manifest.grants.push({ agent: 'agent-ä', tool: 'fs::read' });
      const index = new TextDecoder().decode(stateFiles((await recompileEstate(undefined, estateOf(model), options)).state).index);
      expect(index).toContain('agent-ä');
      expect(index).toBe(canonicalString(JSON.parse(index), { allowFloats: true }));
      const damaged = Uint8Array.from(files.pieces);
      damaged[0] = damaged[0]! ^ 1;
      expect(readStateFiles(files.index, damaged, besideOf(first.result))).toEqual({ refused: expect.stringMatching(/does not match the digest/) });
      const other = new TextEncoder().encode(new TextDecoder().decode(files.index).replace(`"schema_version":${COMPILE_STATE_VERSION}`, '"schema_version":7'));
      expect(readStateFiles(other, files.pieces, besideOf(first.result))).toEqual({ refused: expect.stringMatching(/version 7/) });
      expect(readStateFiles(new TextEncoder().encode('{'), files.pieces, besideOf(first.result))).toEqual({ refused: expect.stringMatching(/not JSON/) });
      // The encoded entries live in the artifacts beside the state: other (or missing) ones refuse it.
      const otherData = Uint8Array.from(fileOf(first.result, 'data.json'));
      otherData[5] = otherData[5]! ^ 1;
      expect(readStateFiles(files.index, files.pieces, { ...besideOf(first.result), data: otherData })).toEqual({ refused: 'data.json is not the one the compile state was kept with' });
      expect(readStateFiles(files.index, files.pieces, { data: fileOf(first.result, 'data.json') })).toEqual({ refused: 'policy-bundle.json is not the one the compile state was kept with' });
    });

    it('take the gzip chunks from the bundle.tar.gz they were kept with, and none from another', async () => {
      const model = baseModel();
      const first = await recompileEstate(undefined, estateOf(model), await optionsFor(model, 'review', undefined));
      const files = stateFiles(first.state);
      const withTarball = readStateFiles(files.index, files.pieces, besideOf(first.result));
      if (!('state' in withTarball)) throw new Error(withTarball.refused);
      expect(withTarball.state.tarball_chunks.map((c) => [c.digest, Buffer.from(c.deflated).toString('base64')])).toEqual(
        first.state.tarball_chunks.map((c) => [c.digest, Buffer.from(c.deflated).toString('base64')]),
      );
      expect(withTarball.state.artifacts).toEqual(first.state.artifacts);
      const other = Uint8Array.from(tarballOf(first.result));
      other[20] = other[20]! ^ 1;
      const withOther = readStateFiles(files.index, files.pieces, besideOf(first.result, other));
      expect('state' in withOther && withOther.state.tarball_chunks).toEqual([]);
    });
  });

  describe('when the state cannot be used', () => {
    const model = baseModel();
    it('compiles in full and says why: another profile, another version, other artifacts', async () => {
      const first = await recompileEstate(undefined, estateOf(model), await optionsFor(model, 'review', undefined));
      const strict = await optionsFor(model, 'strict', first.result);
      expect(stateRefusal(first.state, strict)).toMatch(/profile review/);
      const again = await recompileEstate(first.state, estateOf(model), strict);
      expect(again.summary.mode).toBe('full');
      expect(filesOf(again.result)).toEqual(filesOf(await compileEstate(estateOf(model), strict)));
      const review = await optionsFor(model, 'review', first.result);
      expect(stateRefusal({ ...first.state, version: COMPILE_STATE_VERSION + 1 } as unknown as CompileState, review)).toMatch(new RegExp(`version ${COMPILE_STATE_VERSION + 1}`));
      const otherArtifacts = { ...review, previous: { ...review.previous!, graph_state: { ...review.previous!.graph_state, generation: 9 } } };
      expect(stateRefusal(first.state, otherArtifacts)).toMatch(/does not match/);
      expect(stateRefusal(first.state, review)).toBeUndefined();
    });
  });
});
