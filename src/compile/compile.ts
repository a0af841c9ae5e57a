/**
 * One compile run, pure: estate in, artifact bytes out. Nothing is written here; the CLI writes
 * the returned files atomically, all or none.
 *
 *   decisions (per agent, per granted tool, one profile)
 *     -> policy-bundle.json   (toolgate.policy-bundle, or toolgraph.policy-bundle v1 for one agent)
 *     -> data.json            ({"toolgate": ...}, the OPA data document)
 *     -> bundle.tar.gz        (.manifest, toolgate/data.json, the enforcement Rego)
 *     -> SHA256SUMS
 */
import { canonicalBytes, canonicalString, quoteString } from '../canonical/json.ts';
import { digestHex } from '../canonical/digest.ts';
import type { Estate } from '../governance/estate.ts';
import type { GraphState, Profile } from '../governance/types.ts';
import { emitTarGz } from '../emit/opa-tarball.ts';
import { decideAll } from './decisions.ts';
import { compileDataDocument, DATA_ROOT, type DataEdge } from './data-document.ts';
import { catalogDigest, governanceDigest } from './digests.ts';
import { nextGraphState, type PreviousState } from './graph-state.ts';
import { compilePolicyBundle, exposedTools, type BundleHeader } from './policy-bundle.ts';
import { compileToolgraphV1 } from './toolgraph-v1.ts';

export interface RegoModuleFile {
  /** Path inside the bundle, e.g. `toolgate/authz.rego`. */
  readonly path: string;
  readonly text: string;
}

export interface CompileOptions {
  readonly profile: Profile;
  /** RFC 3339 time written as created_at; used only when the inputs changed (see `keepCreatedAt`). */
  readonly createdAt: string;
  /** The previous artifact's state in the output folder, if any. */
  readonly previous?: PreviousState;
  /** `toolgraph-v1` writes the peer's single-agent bundle as policy-bundle.json. */
  readonly format?: 'toolgate' | 'toolgraph-v1';
  readonly agent?: string;
  /** The enforcement Rego (tests excluded) and any consumer Rego to ship in the tarball. */
  readonly regoModules: readonly RegoModuleFile[];
  /** Connectome digest and edges with signs, when the connectome is compiled too. */
  readonly connectome?: { readonly digest: string; readonly edges: readonly DataEdge[]; readonly files?: readonly { name: string; bytes: Uint8Array }[] };
  /** Signs the tarball's files (names without `/`), returning the bytes of `.signatures.json` (src/bundle/signatures.ts). */
  readonly signBundle?: (files: readonly { name: string; bytes: Uint8Array }[]) => Promise<Uint8Array>;
}

export interface CompiledArtifact {
  readonly name: string;
  readonly bytes: Uint8Array;
}

export interface CompileResult {
  readonly files: readonly CompiledArtifact[];
  readonly graph_state: GraphState;
  readonly created_at: string;
  readonly digests: { readonly governance_digest: string; readonly catalog_digest: string; readonly connectome_digest: string | null };
}

const LF = 10;
const encoder = new TextEncoder();

/** Canonical JSON bytes plus a trailing LF: the file form of every JSON artifact. */
export function jsonFileBytes(value: unknown): Uint8Array {
  const body = canonicalBytes(value, { allowFloats: true });
  const out = new Uint8Array(body.length + 1);
  out.set(body);
  out[body.length] = LF;
  return out;
}

export async function compileEstate(estate: Estate, options: CompileOptions): Promise<CompileResult> {
  const digests = {
    governance_digest: governanceDigest(estate.manifest.raw),
    catalog_digest: catalogDigest(estate.catalog),
    connectome_digest: options.connectome?.digest ?? null,
  };
  const next = nextGraphState(estate, digests, options.previous);
  const created_at = next.unchanged && options.previous?.created_at ? options.previous.created_at : options.createdAt;
  const header: BundleHeader = { created_at, profile: options.profile, graph_state: next.graph_state, ...digests };
  const tools = exposedTools(estate);
  const decisions = decideAll(estate, options.profile);

  const bundle =
    options.format === 'toolgraph-v1'
      ? compileToolgraphV1(estate, options.agent ?? '', options.profile, header, tools)
      : compilePolicyBundle(header, tools, decisions);
  const dataDoc = compileDataDocument(estate, header, tools, decisions, options.connectome?.edges ?? []);
  // The tarball's toolgate/data.json is the document's inner object; encode it once and wrap it.
  const innerText = canonicalString(dataDoc[DATA_ROOT], { allowFloats: true });
  const innerDataBytes = encoder.encode(`${innerText}\n`);
  const dataBytes = encoder.encode(`{${quoteString(DATA_ROOT)}:${innerText}}\n`);

  const content = [
    { name: `${DATA_ROOT}/data.json`, bytes: innerDataBytes },
    ...options.regoModules.map((m) => ({ name: m.path, bytes: new TextEncoder().encode(m.text) })),
  ];
  const revision = digestHex(canonicalBytes(Object.fromEntries(content.map((c) => [c.name, digestHex(c.bytes)]))));
  const manifest = {
    revision,
    roots: [DATA_ROOT],
    rego_version: 1,
    metadata: { toolgate: { profile: options.profile, graph_state: next.graph_state, ...digests } },
  };
  const tarFiles = [{ name: '.manifest', bytes: jsonFileBytes(manifest) }, ...content];
  if (options.signBundle) tarFiles.push({ name: '.signatures.json', bytes: await options.signBundle(tarFiles) });
  const tarball = await emitTarGz(tarFiles);

  const files: CompiledArtifact[] = [
    { name: 'policy-bundle.json', bytes: jsonFileBytes(bundle) },
    { name: 'data.json', bytes: dataBytes },
    { name: 'bundle.tar.gz', bytes: tarball },
    ...(options.connectome?.files ?? []),
  ];
  const sums = files
    .map((f) => `${digestHex(f.bytes)}  ${f.name}\n`)
    .sort((a, b) => (a.slice(66) < b.slice(66) ? -1 : 1))
    .join('');
  files.push({ name: 'SHA256SUMS', bytes: new TextEncoder().encode(sums) });
  return { files, graph_state: next.graph_state, created_at, digests };
}
