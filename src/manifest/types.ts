/** The governance manifest, normalised: every list present, governed_by items as objects. */
import type { SourceAt } from '../errors.ts';
import type { PiecePlan, YamlPiece } from '../parse/yaml-pieces.ts';

export type ProvenanceSource = 'crawled' | 'operator_asserted' | 'inferred';
export type Confidence = 'high' | 'medium' | 'low';

export interface Provenance {
  readonly source?: ProvenanceSource;
  readonly confidence?: Confidence;
  readonly evidence?: string;
}

export interface Agent {
  readonly id: string;
  readonly description?: string;
}

export type PolicyEffect = 'ALLOW' | 'DENY';

export interface Policy {
  readonly id: string;
  readonly effect: PolicyEffect;
  readonly scope?: string;
  readonly description?: string;
}

export interface Grant {
  readonly agent: string;
  readonly tool: string;
  readonly granted_by?: string;
  readonly provenance?: Provenance;
}

export type AccessMode = 'READS' | 'WRITES';

export interface DataAccess {
  readonly tool: string;
  readonly resource: string;
  readonly mode: AccessMode;
  readonly provenance?: Provenance;
}

export interface GovernedBy {
  /** A resource URI or a tool reference, as written. */
  readonly target: string;
  readonly policy: string;
  readonly provenance?: Provenance;
}

export interface ExpectedException {
  readonly agent: string;
  readonly tool: string;
  readonly resource?: string;
  readonly policy?: string;
  readonly reason: string;
}

export interface Manifest {
  readonly file: string;
  readonly instance_id?: string;
  readonly agents: readonly Agent[];
  readonly policies: readonly Policy[];
  readonly grants: readonly Grant[];
  readonly data_access: readonly DataAccess[];
  readonly governed_by: readonly GovernedBy[];
  readonly expected_exceptions: readonly ExpectedException[];
  /** The manifest as authored (for its digest). */
  readonly raw: unknown;
  /** The pieces the YAML was read in, when it was read in pieces (src/parse/yaml-pieces.ts). */
  readonly pieces?: readonly YamlPiece[];
  /** How its text was cut into those pieces, for reading the file's next version (a watch's next save). */
  readonly piecePlan?: PiecePlan;
  /** Where a value sits in the manifest file, e.g. `locate(['grants', 3, 'tool'])`. */
  locate(path: readonly (string | number)[]): SourceAt;
}
