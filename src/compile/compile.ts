/**
 * What one compile run takes and gives: its options and its artifact set. The run is planned in
 * incremental/recompile.ts and made into bytes by emit/compile-run.ts (`compileEstate`).
 */
import type { GraphState, Profile } from '../governance/types.ts';
import type { DataEdge } from './data-document.ts';
import type { PreviousState } from './graph-state.ts';

export interface RegoModuleFile {
  /** Path inside the bundle, e.g. `toolgate/authz.rego`. */
  readonly path: string;
  readonly text: string;
}

export interface EstateCompileOptions {
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
  readonly connectome?: {
    readonly digest: string;
    readonly edges: readonly DataEdge[];
    readonly files?: readonly { name: string; bytes: Uint8Array }[];
    /** The catalog's declared graph alone (no host graph, signs or signature): a later compile of the same catalog may reuse its files. */
    readonly declaredOnly?: boolean;
  };
  /** Also write the compile state (compile-state.json and .pieces, listed in SHA256SUMS) for a later recompile. */
  readonly keepState?: boolean;
  /**
   * A recompile follows in this process (a watch, which keeps its state in memory): what the next
   * compile compares is computed now, as for keepState, without writing the state files.
   */
  readonly recompiles?: boolean;
  /** Memory for the policy bundle's and data document's bytes (a watch's incremental/artifact-buffers.ts); fresh memory when absent. */
  readonly allocateArtifact?: (n: number) => Buffer;
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

export { jsonFileBytes } from './json-file.ts';
