/**
 * A compile that starts from the state the previous compile kept (compile-state.ts) and redoes only
 * the pieces a changed input touches: the decisions of agents whose grants, exceptions or granted
 * tools changed; the digest and entries of tools whose contract changed; the manifest pieces and
 * catalog members that changed (for their digests); the edge list when the connectome changed.
 * Everything else is copied in as the bytes it already was. With no usable state every piece is
 * computed, which is the full compile: both go through the same assembly, so their bytes can only
 * differ if a reused piece is stale, and test/unit/compile/incremental.test.ts checks they never do.
 *
 * The plan stops at the tarball: it says what bundle.tar.gz holds, and finishes the artifact set
 * and the state once it is given the tarball's bytes (emit/compile-run.ts makes them).
 */
import type { ByteSegments } from '../../canonical/byte-segments.ts';
import { canonicalBytes, canonicalString, canonicalTextDigestHex, CanonicalText } from '../../canonical/json.ts';
import { digestHex, textDigestHex } from '../../canonical/digest.ts';
import type { Catalog } from '../../catalog/types.ts';
import type { Estate } from '../../governance/estate.ts';
import { decide, type AgentDecisions } from '../../governance/decisions.ts';
import { bundleAgentText, dataAgentText } from '../decisions-json.ts';
import { compileDataDocument, DATA_ROOT } from '../data-document.ts';
import { nextGraphState } from '../graph-state.ts';
import { compilePolicyBundle, type BundleHeader } from '../policy-bundle.ts';
import { compileToolgraphV1 } from '../toolgraph-v1.ts';
import type { EstateCompileOptions, CompileResult, CompiledArtifact } from '../compile.ts';
import { jsonFileBytes } from '../json-file.ts';
import { memoisedCanonical, type MemoNode } from './canonical-memo.ts';
import { artifactSha256 } from './artifact-sha256.ts';
import { resumableSha256, type ResumablePartsDigest } from '../../canonical/resumable-sha256.ts';
import { isDeepFrozen } from './frozen-inputs.ts';
import { connectomeInputsDigest } from './connectome-inputs.ts';
import { manifestDigest as manifestDigestOf, sectionsUnchanged } from './manifest-digest.ts';
import { FragmentSlots, objectText, spanBytes, type Span } from './fragments.ts';
import { COMPILE_STATE_VERSION, type AgentPieces, type CompileState, type TarballChunk } from './compile-state.ts';
import { agentDecisionInputs, catalogShapeDigest, grantedKeys, grantOrder, TOOL_INPUT_SECTIONS, toolDecisionInputs } from './decision-inputs.ts';
import { planTools } from './tool-members.ts';
import { derivedMembers } from './derived-members.ts';
import { changeSummary, type RecompileSummary } from './summary.ts';
import { stateFiles, STATE_INDEX_FILE, STATE_PIECES_FILE } from './state-file.ts';

export interface RecompileResult {
  readonly result: CompileResult;
  readonly state: CompileState;
  readonly summary: RecompileSummary;
}

/** A compile up to its tarball: what bundle.tar.gz holds, and the rest once its bytes are made. */
export interface PlannedCompile {
  /** The tarball's files, and the previous tarball's gzip chunks for the new one to copy where its bytes repeat. */
  readonly tarball: { readonly files: readonly CompiledArtifact[]; readonly previous: { readonly chunks: readonly TarballChunk[]; readonly input?: ByteSegments } };
  /** data.json's bytes (the OPA data document), which are made before the tarball and need nothing of it. */
  readonly dataDocument: Uint8Array;
  finish(tarball: MadeTarball): FinishedCompile;
}

/** bundle.tar.gz as emit/ made it: its bytes, its gzip chunks and the tar bytes they hold. */
export interface MadeTarball {
  readonly bytes: Uint8Array;
  readonly chunks: readonly TarballChunk[];
  readonly tar: ByteSegments;
}

/** A compile's artifact set but SHA256SUMS, with the digests of it the compile already has. */
export interface FinishedCompile {
  readonly files: readonly CompiledArtifact[];
  /** SHA-256 (hex) by file name, for the files whose digest is known. */
  readonly sha256: ReadonlyMap<string, string>;
  readonly result: Omit<CompileResult, 'files'>;
  readonly state: CompileState;
  readonly summary: RecompileSummary;
}

const OPTIONS = { allowFloats: true } as const;
const encoder = new TextEncoder();

/** Why a state cannot be used for these inputs, or undefined when it can. */
export function stateRefusal(state: CompileState | undefined, options: EstateCompileOptions): string | undefined {
  if (state === undefined) return 'no compile state';
  if (state.version !== COMPILE_STATE_VERSION) return `compile state version ${String(state.version)}, this toolgate writes ${COMPILE_STATE_VERSION}`;
  if (state.profile !== options.profile) return `compile state is for profile ${state.profile}, this compile is ${options.profile}`;
  // The kept fragments are of one bundle format: a toolgraph-v1 bundle holds no toolgate entries.
  const format = options.format ?? 'toolgate';
  if (state.artifacts.format !== format) return `compile state is for format ${state.artifacts.format}, this compile is ${format}`;
  const p = options.previous;
  if (p !== undefined) {
    const same =
      p.graph_state.instance_id === state.graph_state.instance_id &&
      p.graph_state.generation === state.graph_state.generation &&
      p.digests.governance_digest === state.governance_digest &&
      p.digests.catalog_digest === state.catalog_digest &&
      (p.digests.connectome_digest ?? null) === state.connectome_digest;
    if (!same) return 'compile state does not match the artifacts beside it (their graph_state or input digests differ)';
  }
  return undefined;
}

/** An agent's pieces whose inputs text is computed when first read (see the agents loop). */
function lazyAgentPieces(inputsOf: () => string, bundle: Span | undefined, data: Span): AgentPieces {
  let inputs: string | undefined;
  return {
    get inputs() {
      return (inputs ??= inputsOf());
    },
    ...(bundle ? { bundle } : {}),
    data,
  };
}

/** An agent's pieces while a compile assembles its documents. */
interface AgentFragments {
  readonly inputs: () => string;
  readonly bundle?: Uint8Array;
  readonly data: Uint8Array;
}

/**
 * The canonical digest of the catalog (or of a manifest not read in pieces), with the member texts
 * a later recompile reuses when `keep` (or a previous memo is there to update); otherwise the value
 * is hashed as it is encoded, in one pass, and no text is kept.
 */
function digestOf(value: unknown, previous: MemoNode | undefined, keep: boolean): { digest: string; memo?: MemoNode } {
  if (!keep && previous === undefined) return { digest: canonicalTextDigestHex(value, OPTIONS) };
  const memo = memoisedCanonical(value, previous);
  return { digest: textDigestHex(memo.text), memo };
}

/** The catalog's body as its digest covers it: all but `crawled_at`. */
function catalogBodyOf(catalog: Catalog): Record<string, unknown> {
  const { crawled_at: _ignored, ...body } = catalog;
  return body;
}

/**
 * Plans the compile of `estate`, reusing what `previous` kept when it is usable (see `stateRefusal`);
 * emit/compile-run.ts `recompileEstate` runs it to the end.
 */
export async function planRecompile(previous: CompileState | undefined, estate: Estate, options: EstateCompileOptions): Promise<PlannedCompile> {
  const refusal = stateRefusal(previous, options);
  const prev = refusal === undefined ? previous : undefined;

  // A recompile may follow: the state is kept in files or in memory.
  const recompileFollows = options.keepState === true || options.recompiles === true;
  // Member texts are worth keeping when a recompile may follow, or this is one.
  const keepMemo = recompileFollows || previous !== undefined;
  // A manifest read in YAML pieces is hashed from their texts; one that was not (JSON) through the member memo.
  const manifestDigest: { digest: string; pieces: CompileState['manifest_pieces']; memo?: MemoNode; resumable?: ResumablePartsDigest } = estate.manifest.pieces
    ? manifestDigestOf(estate.manifest, prev?.manifest_pieces, prev?.governance_digest, prev?.resumed_digests?.manifest)
    : { ...digestOf(estate.manifest.raw ?? {}, prev?.manifest_memo, keepMemo), pieces: [] };
  // A deep-frozen catalog (a watch keeps the one it read so) that is the previous compile's own has its digest.
  const sameCatalog = prev?.catalog_source === estate.catalog && isDeepFrozen(estate.catalog);
  const catalogDigest = sameCatalog
    ? { digest: prev!.catalog_digest, ...(prev!.catalog_memo ? { memo: prev!.catalog_memo } : {}) }
    : digestOf(catalogBodyOf(estate.catalog), prev?.catalog_memo, keepMemo);
  const digests = {
    governance_digest: manifestDigest.digest,
    catalog_digest: catalogDigest.digest,
    connectome_digest: options.connectome?.digest ?? null,
  };
  const next = nextGraphState(estate, digests, options.previous);
  const created_at = next.unchanged && options.previous?.created_at ? options.previous.created_at : options.createdAt;
  const header: BundleHeader = { created_at, profile: options.profile, graph_state: next.graph_state, ...digests };

  // Tools: a contract unchanged since the previous compile keeps its digest and entries.
  const toolgateFormat = options.format !== 'toolgraph-v1';
  const planned = planTools(prev, estate, toolgateFormat);
  const tools = planned.tools;

  // Agents: recompute an agent's decisions when its own inputs or any granted tool's changed. What
  // the decisions read is compared with a previous state or kept for a later one; a one-shot compile
  // leaves it to be computed only if its state is ever asked for it.
  const eager = prev !== undefined || recompileFollows;
  // A tool's part is kept when nothing it reads changed: the catalog's shape and the manifest sections it reads.
  const catalogShape = eager ? catalogShapeDigest(estate.catalog) : '';
  const toolInputsKept = prev !== undefined && prev.catalog_shape === catalogShape && sectionsUnchanged(estate.manifest, prev.manifest_pieces, TOOL_INPUT_SECTIONS);
  const sameInputs = toolInputsKept && prev.decision_inputs_for === estate.grantsByTool;
  let decisionInputs = eager ? (sameInputs ? prev.decision_inputs : toolDecisionInputs(estate, toolInputsKept ? prev.decision_inputs : undefined)) : undefined;
  const agentInputs = agentDecisionInputs(estate);
  const agentPieces = new Map<string, AgentFragments>();
  const recomputed: string[] = [];
  const changedTools = new Set<string>();
  if (prev !== undefined && !sameInputs) for (const [k, text] of decisionInputs!) if (prev.decision_inputs.get(k) !== text) changedTools.add(k);
  for (const agent of [...estate.agents.keys()].sort()) {
    // Compared in the manifest's order: sorting every agent's keys cost more than the comparison.
    const granted = grantOrder(estate, agent);
    const inputs = eager ? agentInputs(agent, granted) : undefined;
    const kept = prev?.agents.get(agent);
    if (kept !== undefined && kept.inputs === inputs && (changedTools.size === 0 || !granted.some((k) => changedTools.has(k)))) {
      const { policy_bundle, data } = prev!.bytes;
      agentPieces.set(agent, { inputs: () => kept.inputs, ...(kept.bundle ? { bundle: spanBytes(policy_bundle, kept.bundle) } : {}), data: spanBytes(data, kept.data) });
      continue;
    }
    const keys = grantedKeys(estate, agent);
    const decisions: AgentDecisions = { agent, decisions: keys.map((k) => decide(estate, agent, k, options.profile)) };
    agentPieces.set(agent, {
      inputs: inputs !== undefined ? () => inputs : () => agentInputs(agent, granted),
      ...(toolgateFormat ? { bundle: encoder.encode(bundleAgentText(decisions).text) } : {}),
      data: encoder.encode(dataAgentText(decisions).text),
    });
    recomputed.push(agent);
  }

  const edgeList = options.connectome?.edges ?? [];
  const edges =
    prev !== undefined && prev.connectome_digest !== null && prev.connectome_digest === digests.connectome_digest
      ? spanBytes(prev.bytes.data, prev.edges)
      : encoder.encode(canonicalString(edgeList, OPTIONS));

  // The two documents, assembled from the fragments (copied as bytes) and the text around them.
  const agentList = [...agentPieces];
  const bundleSlots = new FragmentSlots();
  const bundleToolsSlot = toolgateFormat ? bundleSlots.add(planned.members.bundle!) : undefined;
  const bundleAgentSlots = toolgateFormat ? agentList.map(([, p]) => bundleSlots.add(p.bundle!)) : [];
  const bundleFile = toolgateFormat
    ? bundleSlots.assemble(compilePolicyBundle(header, bundleToolsSlot!.placeholder, objectText(agentList.map(([a], i) => [a, bundleAgentSlots[i]!.placeholder] as const))), '\n', options.allocateArtifact)
    : { bytes: jsonFileBytes(compileToolgraphV1(estate, options.agent ?? '', options.profile, header, tools)), at: [] };
  const dataSlots = new FragmentSlots();
  const dataAgentSlots = agentList.map(([, p]) => dataSlots.add(p.data));
  const documentsSlot = dataSlots.add(planned.members.documents);
  const contractsSlot = dataSlots.add(planned.members.contracts);
  const edgesSlot = dataSlots.add(edges);
  const derived = derivedMembers(estate, tools, planned.keys, edgeList, prev);
  const dataDoc = compileDataDocument(estate, header, {
    agents: objectText(agentList.map(([a], i) => [a, dataAgentSlots[i]!.placeholder] as const)),
    tools: documentsSlot.placeholder,
    contracts: contractsSlot.placeholder,
    edges: edgesSlot.placeholder,
    derived: derived.texts,
  });
  const dataFile = dataSlots.assemble(dataDoc, '\n', options.allocateArtifact);
  const dataBytes = dataFile.bytes;
  // The tarball's toolgate/data.json is the document's inner object, read in place: data.json is
  // `{"toolgate":INNER}` + LF.
  const head = canonicalString({ [DATA_ROOT]: new CanonicalText('') }).length - 1;
  const innerDataBytes = dataBytes.subarray(head, dataBytes.length - 2);
  const spanOf = (file: { at: readonly number[] }, slot: { slot: number }, bytes: { readonly length: number }): Span => ({ at: file.at[slot.slot]!, length: bytes.length });

  const content = [{ name: `${DATA_ROOT}/data.json`, bytes: innerDataBytes }, ...options.regoModules.map((m) => ({ name: m.path, bytes: encoder.encode(m.text) }))];
  // The large digests resume where the previous compile's bytes and these begin alike (they are compared, so any previous will do).
  const resumed = previous?.resumed_digests;
  const innerDataDigest = resumableSha256(innerDataBytes, resumed?.tarball_data);
  const revision = digestHex(canonicalBytes(Object.fromEntries(content.map((c, i) => [c.name, i === 0 ? innerDataDigest.hex : digestHex(c.bytes)]))));
  const manifest = {
    revision,
    roots: [DATA_ROOT],
    rego_version: 1,
    metadata: { toolgate: { profile: options.profile, graph_state: next.graph_state, ...digests } },
  };
  const tarFiles = [{ name: '.manifest', bytes: jsonFileBytes(manifest) }, ...content];
  if (options.signBundle) tarFiles.push({ name: '.signatures.json', bytes: await options.signBundle(tarFiles) });
  const finish = (tarball: MadeTarball): FinishedCompile => {
    const files: CompiledArtifact[] = [
      { name: 'policy-bundle.json', bytes: bundleFile.bytes },
      { name: 'data.json', bytes: dataBytes },
      { name: 'bundle.tar.gz', bytes: tarball.bytes },
      ...(options.connectome?.files ?? []),
    ];
    const bundleDigest = resumableSha256(bundleFile.bytes, resumed?.policy_bundle);
    const dataDigest = resumableSha256(dataBytes, resumed?.data);
    const sha256ByName = new Map(files.map((f) => [f.name, f.bytes === bundleFile.bytes ? bundleDigest.hex : f.bytes === dataBytes ? dataDigest.hex : artifactSha256(f.bytes)]));
    let piecesFile: CompileState['pieces_file'];
    let connectomeInputs: string | undefined;
    const state: CompileState = {
      version: COMPILE_STATE_VERSION,
      profile: options.profile,
      graph_state: next.graph_state,
      ...digests,
      tools: planned.pieces,
      tool_spans: planned.spans,
      tool_members: {
        ...(bundleToolsSlot ? { bundle: spanOf(bundleFile, bundleToolsSlot, planned.members.bundle!) } : {}),
        documents: spanOf(dataFile, documentsSlot, planned.members.documents),
        contracts: spanOf(dataFile, contractsSlot, planned.members.contracts),
      },
      exposed: { source: estate.tools, tools, keys: planned.keys },
      derived,
      get decision_inputs() {
        return (decisionInputs ??= toolDecisionInputs(estate));
      },
      ...(eager ? { decision_inputs_for: estate.grantsByTool } : {}),
      agents: new Map(
        agentList.map(([a, p], i) => [
          a,
          lazyAgentPieces(p.inputs, toolgateFormat ? spanOf(bundleFile, bundleAgentSlots[i]!, p.bundle!) : undefined, spanOf(dataFile, dataAgentSlots[i]!, p.data)),
        ]),
      ),
      edges: spanOf(dataFile, edgesSlot, edges),
      bytes: { policy_bundle: bundleFile.bytes, data: dataBytes },
      connectome_declared_only: options.connectome?.declaredOnly === true,
      get catalog_shape() {
        return catalogShape || catalogShapeDigest(estate.catalog);
      },
      get connectome_inputs() {
        return (connectomeInputs ??= connectomeInputsDigest(estate.catalog));
      },
      artifacts: {
        format: options.format ?? 'toolgate',
        created_at,
        policy_bundle_sha256: sha256ByName.get('policy-bundle.json')!,
        data_sha256: sha256ByName.get('data.json')!,
        tarball_sha256: sha256ByName.get('bundle.tar.gz')!,
      },
      tarball_chunks: tarball.chunks,
      tarball_tar: tarball.tar,
      manifest_pieces: manifestDigest.pieces,
      ...(manifestDigest.memo ? { manifest_memo: manifestDigest.memo } : {}),
      ...(catalogDigest.memo ? { catalog_memo: catalogDigest.memo } : {}),
      catalog_source: estate.catalog,
      resumed_digests: { policy_bundle: bundleDigest, data: dataDigest, tarball_data: innerDataDigest, ...(manifestDigest.resumable ? { manifest: manifestDigest.resumable } : {}) },
      get pieces_file() {
        return piecesFile;
      },
    };
    if (options.keepState) {
      const kept = stateFiles({ ...state, ...(prev?.pieces_file ? { pieces_file: prev.pieces_file } : {}) });
      piecesFile = { bytes: kept.pieces, sha256: kept.piecesSha256 };
      files.push({ name: STATE_INDEX_FILE, bytes: kept.index }, { name: STATE_PIECES_FILE, bytes: kept.pieces });
      sha256ByName.set(STATE_PIECES_FILE, kept.piecesSha256);
    }
    const summary = changeSummary(prev, state, { recomputedAgents: recomputed, recomputedTools: planned.recomputed, ...(planned.sameKeys ? { sameToolKeys: true } : {}), ...(refusal !== undefined ? { fullBecause: refusal } : {}) });
    return { files, sha256: sha256ByName, result: { graph_state: next.graph_state, created_at, digests }, state, summary };
  };
  const previousTarball = { chunks: prev?.tarball_chunks ?? [], ...(prev?.tarball_tar !== undefined ? { input: prev.tarball_tar } : {}) };
  return { tarball: { files: tarFiles, previous: previousTarball }, dataDocument: dataBytes, finish };
}
