/**
 * A compile that starts from the state the previous compile kept (compile-state.ts) and redoes only
 * the pieces a changed input touches: the decisions of agents whose grants, exceptions or granted
 * tools changed; the digest and entries of tools whose contract changed; the manifest and catalog
 * members that changed (for their digests); the edge list when the connectome changed. Everything
 * else is spliced in as the canonical text it already was. With no usable state every piece is
 * computed, which is the full compile: both go through the same assembly, so their bytes can only
 * differ if a reused piece is stale, and test/unit/compile/incremental.test.ts checks they never do.
 *
 * The plan stops at the tarball: it says what bundle.tar.gz holds, and finishes the artifact set
 * and the state once it is given the tarball's bytes (emit/compile-run.ts makes them).
 */
import { canonicalBytes, canonicalString, canonicalTextDigestHex, CanonicalText } from '../../canonical/json.ts';
import { digestHex, textDigestHex } from '../../canonical/digest.ts';
import { toolKey as toolKeyOf } from '../../catalog/types.ts';
import type { Estate } from '../../governance/estate.ts';
import { decide, type AgentDecisions } from '../../governance/decisions.ts';
import { agentsObjectText, bundleAgentText, dataAgentText } from '../decisions-json.ts';
import { compileDataDocument, DATA_ROOT, toolDocument } from '../data-document.ts';
import { toolContractDigest } from '../digests.ts';
import { toolContracts } from '../gateway-data.ts';
import { nextGraphState } from '../graph-state.ts';
import { bundleToolEntry, compilePolicyBundle, exposedTools, type BundleHeader } from '../policy-bundle.ts';
import { compileToolgraphV1 } from '../toolgraph-v1.ts';
import type { EstateCompileOptions, CompileResult, CompiledArtifact } from '../compile.ts';
import { jsonFileBytes } from '../json-file.ts';
import { memoisedCanonical, type MemoNode } from './canonical-memo.ts';
import { COMPILE_STATE_VERSION, type AgentPieces, type CompileState, type TarballChunk, type ToolPieces } from './compile-state.ts';
import { agentDecisionInputs, grantedKeys, toolDecisionInputs } from './decision-inputs.ts';
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
  readonly tarball: { readonly files: readonly CompiledArtifact[]; readonly previousChunks: readonly TarballChunk[] };
  finish(tarball: { readonly bytes: Uint8Array; readonly chunks: readonly TarballChunk[] }): FinishedCompile;
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

/**
 * data.json is `{"toolgate":INNER}` + LF where the tarball's toolgate/data.json is INNER + LF: the
 * inner bytes are encoded once and copied into the wrapper (`shell` is the wrapper around nothing).
 */
function wrappedBytes(shell: string, innerWithLf: Uint8Array): Uint8Array {
  const head = encoder.encode(shell.slice(0, -1));
  const out = new Uint8Array(head.length + innerWithLf.length + 1);
  out.set(head);
  out.set(innerWithLf.subarray(0, innerWithLf.length - 1), head.length);
  out[out.length - 2] = shell.charCodeAt(shell.length - 1);
  out[out.length - 1] = 10;
  return out;
}

/** An agent's pieces whose inputs text is computed when first read (see the agents loop). */
function lazyAgentPieces(inputsOf: () => string, bundle: string, data: string): AgentPieces {
  let inputs: string | undefined;
  return {
    get inputs() {
      return (inputs ??= inputsOf());
    },
    bundle,
    data,
  };
}

/**
 * The canonical digest of a manifest or catalog, with the member texts a later recompile reuses
 * when `keep` (or a previous memo is there to update); otherwise the value is hashed as it is
 * encoded, in one pass, and no text is kept.
 */
function digestOf(value: unknown, previous: MemoNode | undefined, keep: boolean): { digest: string; memo?: MemoNode } {
  if (!keep && previous === undefined) return { digest: canonicalTextDigestHex(value, OPTIONS) };
  const memo = memoisedCanonical(value, previous);
  return { digest: textDigestHex(memo.text), memo };
}

/**
 * Plans the compile of `estate`, reusing what `previous` kept when it is usable (see `stateRefusal`);
 * emit/compile-run.ts `recompileEstate` runs it to the end.
 */
export async function planRecompile(previous: CompileState | undefined, estate: Estate, options: EstateCompileOptions): Promise<PlannedCompile> {
  const refusal = stateRefusal(previous, options);
  const prev = refusal === undefined ? previous : undefined;

  const { catalog } = estate;
  const { crawled_at: _ignored, ...catalogBody } = catalog;
  // Member texts are worth keeping when a recompile may follow: the state is kept, or this is one.
  const keepMemo = options.keepState === true || previous !== undefined;
  const manifestDigest = digestOf(estate.manifest.raw ?? {}, prev?.manifest_memo, keepMemo);
  const catalogDigest = digestOf(catalogBody, prev?.catalog_memo, keepMemo);
  const digests = {
    governance_digest: manifestDigest.digest,
    catalog_digest: catalogDigest.digest,
    connectome_digest: options.connectome?.digest ?? null,
  };
  const next = nextGraphState(estate, digests, options.previous);
  const created_at = next.unchanged && options.previous?.created_at ? options.previous.created_at : options.createdAt;
  const header: BundleHeader = { created_at, profile: options.profile, graph_state: next.graph_state, ...digests };

  // Tools: a contract unchanged since the previous compile keeps its digest and entries.
  const toolPieces = new Map<string, ToolPieces>();
  const contractKeys = new Map<string, string>();
  const tools = exposedTools(estate, (server, tool) => {
    const key = JSON.stringify([server, tool]);
    const toolKey = toolKeyOf(server, tool.name);
    contractKeys.set(toolKey, key);
    const kept = prev?.tools.get(toolKey);
    return kept !== undefined && kept.contract_key === key ? kept.tool_contract_digest : toolContractDigest(server, tool);
  });
  for (const t of tools) {
    const key = contractKeys.get(t.tool_key)!;
    const kept = prev?.tools.get(t.tool_key);
    if (kept !== undefined && kept.contract_key === key) {
      toolPieces.set(t.tool_key, kept);
      continue;
    }
    const contract = toolContracts(estate, [t])[t.tool_key];
    toolPieces.set(t.tool_key, {
      contract_key: key,
      tool_contract_digest: t.tool_contract_digest,
      bundle_entry: canonicalString(bundleToolEntry(t), OPTIONS),
      document: canonicalString(toolDocument(estate, t), OPTIONS),
      contract: canonicalString(contract, OPTIONS),
    });
  }

  // Agents: recompute an agent's decisions when its own inputs or any granted tool's changed. What
  // the decisions read is compared with a previous state or kept for a later one; a one-shot compile
  // leaves it to be computed only if its state is ever asked for it.
  const eager = prev !== undefined || options.keepState === true;
  let decisionInputs = eager ? toolDecisionInputs(estate) : undefined;
  const agentInputs = agentDecisionInputs(estate);
  const agentPieces = new Map<string, AgentPieces>();
  const recomputed: string[] = [];
  const changedTools = new Set<string>();
  if (prev !== undefined) for (const [k, text] of decisionInputs!) if (prev.decision_inputs.get(k) !== text) changedTools.add(k);
  for (const agent of [...estate.agents.keys()].sort()) {
    const keys = grantedKeys(estate, agent);
    const inputs = eager ? agentInputs(agent, keys) : undefined;
    const kept = prev?.agents.get(agent);
    if (kept !== undefined && kept.inputs === inputs && !keys.some((k) => changedTools.has(k))) {
      agentPieces.set(agent, kept);
      continue;
    }
    const decisions: AgentDecisions = { agent, decisions: keys.map((k) => decide(estate, agent, k, options.profile)) };
    const bundle = bundleAgentText(decisions).text;
    const data = dataAgentText(decisions).text;
    agentPieces.set(agent, inputs !== undefined ? { inputs, bundle, data } : lazyAgentPieces(() => agentInputs(agent, keys), bundle, data));
    recomputed.push(agent);
  }

  const edgeList = options.connectome?.edges ?? [];
  const edges = prev !== undefined && prev.connectome_digest !== null && prev.connectome_digest === digests.connectome_digest ? prev.edges : canonicalString(edgeList, OPTIONS);

  const pieceObject = (entries: Iterable<readonly [string, string]>) => new CanonicalText(canonicalString(Object.fromEntries([...entries].map(([k, text]) => [k, new CanonicalText(text)]))));
  const agentList = [...agentPieces];
  const bundle =
    options.format === 'toolgraph-v1'
      ? compileToolgraphV1(estate, options.agent ?? '', options.profile, header, tools)
      : compilePolicyBundle(
          header,
          new CanonicalText(`[${tools.map((t) => toolPieces.get(t.tool_key)!.bundle_entry).join(',')}]`),
          agentsObjectText(agentList.map(([a, p]) => [a, new CanonicalText(p.bundle)] as const)),
        );
  const dataDoc = compileDataDocument(estate, header, tools, edgeList, {
    agents: agentsObjectText(agentList.map(([a, p]) => [a, new CanonicalText(p.data)] as const)),
    tools: pieceObject(tools.map((t) => [t.tool_key, toolPieces.get(t.tool_key)!.document] as const)),
    contracts: pieceObject(tools.map((t) => [t.tool_key, toolPieces.get(t.tool_key)!.contract] as const)),
    edges: new CanonicalText(edges),
  });
  // The tarball's toolgate/data.json is the document's inner object; encode it once and wrap it.
  const innerText = canonicalString(dataDoc[DATA_ROOT], OPTIONS);
  const innerDataBytes = encoder.encode(`${innerText}\n`);
  const dataBytes = wrappedBytes(canonicalString({ [DATA_ROOT]: new CanonicalText('') }), innerDataBytes);

  const content = [{ name: `${DATA_ROOT}/data.json`, bytes: innerDataBytes }, ...options.regoModules.map((m) => ({ name: m.path, bytes: encoder.encode(m.text) }))];
  const revision = digestHex(canonicalBytes(Object.fromEntries(content.map((c) => [c.name, digestHex(c.bytes)]))));
  const manifest = {
    revision,
    roots: [DATA_ROOT],
    rego_version: 1,
    metadata: { toolgate: { profile: options.profile, graph_state: next.graph_state, ...digests } },
  };
  const tarFiles = [{ name: '.manifest', bytes: jsonFileBytes(manifest) }, ...content];
  if (options.signBundle) tarFiles.push({ name: '.signatures.json', bytes: await options.signBundle(tarFiles) });
  const finish = (tarball: { readonly bytes: Uint8Array; readonly chunks: readonly TarballChunk[] }): FinishedCompile => {
    const files: CompiledArtifact[] = [
      { name: 'policy-bundle.json', bytes: jsonFileBytes(bundle) },
      { name: 'data.json', bytes: dataBytes },
      { name: 'bundle.tar.gz', bytes: tarball.bytes },
      ...(options.connectome?.files ?? []),
    ];
    const sha256ByName = new Map(files.map((f) => [f.name, digestHex(f.bytes)]));
    const state: CompileState = {
      version: COMPILE_STATE_VERSION,
      profile: options.profile,
      graph_state: next.graph_state,
      ...digests,
      tools: toolPieces,
      get decision_inputs() {
        return (decisionInputs ??= toolDecisionInputs(estate));
      },
      agents: agentPieces,
      edges,
      connectome_declared_only: options.connectome?.declaredOnly === true,
      artifacts: {
        format: options.format ?? 'toolgate',
        created_at,
        policy_bundle_sha256: sha256ByName.get('policy-bundle.json')!,
        tarball_sha256: sha256ByName.get('bundle.tar.gz')!,
      },
      tarball_chunks: tarball.chunks,
      manifest_pieces: (estate.manifest.pieces ?? []).flatMap((p) => (p.json !== undefined ? [{ digest: p.digest, json: p.json }] : [])),
      ...(manifestDigest.memo ? { manifest_memo: manifestDigest.memo } : {}),
      ...(catalogDigest.memo ? { catalog_memo: catalogDigest.memo } : {}),
    };
    if (options.keepState) {
      const kept = stateFiles(state);
      files.push({ name: STATE_INDEX_FILE, bytes: kept.index }, { name: STATE_PIECES_FILE, bytes: kept.pieces });
      sha256ByName.set(STATE_PIECES_FILE, kept.piecesSha256);
    }
    const summary = changeSummary(prev, state, { recomputedAgents: recomputed, ...(refusal !== undefined ? { fullBecause: refusal } : {}) });
    return { files, sha256: sha256ByName, result: { graph_state: next.graph_state, created_at, digests }, state, summary };
  };
  return { tarball: { files: tarFiles, previousChunks: prev?.tarball_chunks ?? [] }, finish };
}
