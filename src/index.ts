/**
 * toolgate as a library: load an MCP tool estate, ask the governance queries and audits, run the
 * selector, compile policy bundles and OPA bundles, build connectomes, read and verify OPA
 * bundles, and evaluate Rego in-process. Re-exports only; every name lives in its own module.
 *
 * @example
 * import { readFileSync } from 'node:fs';
 * import { buildEstate, checkAccess, parseCatalog, parseManifest } from 'toolgate';
 * const estate = buildEstate(parseManifest('governance.yaml', readFileSync('governance.yaml', 'utf8')), parseCatalog('catalog.json', readFileSync('catalog.json', 'utf8')));
 * checkAccess(estate, 'ci-bot', 'git::git_show').verdict; // 'DENY'
 */

// Errors
export { ToolgateError, isToolgateError, formatAt } from './errors.ts';
export type { ToolgateErrorCode, SourceAt } from './errors.ts';

// Estate loading: text in, typed values out
export { parseManifest } from './manifest/parse.ts';
export type { Manifest, Agent, Policy, PolicyEffect, Grant, DataAccess, AccessMode, GovernedBy, ExpectedException, Provenance, ProvenanceSource, Confidence } from './manifest/types.ts';
export { parseCatalog } from './catalog/parse.ts';
export { toolKey, CATALOG_KIND, CATALOG_SCHEMA_VERSION } from './catalog/types.ts';
export type { Catalog, CatalogServer, CatalogTool, CatalogResource, CatalogResourceTemplate, CatalogPrompt, ToolAnnotations } from './catalog/types.ts';
export { buildEstate } from './governance/estate.ts';
export type { Estate, BuildEstateOptions, ToolNode, Notice } from './governance/estate.ts';
export { strictFindings } from './governance/strict-rules.ts';
export type { StrictFinding, StrictRule } from './governance/strict-rules.ts';
export { PROFILES } from './governance/types.ts';
export type { Profile } from './governance/types.ts';

// Queries
export { checkAccess } from './governance/check-access.ts';
export type { CheckAccessResult } from './governance/check-access.ts';
export { unsafeTools } from './governance/unsafe-tools.ts';
export type { UnsafeToolsResult } from './governance/unsafe-tools.ts';
export { blastRadius } from './governance/blast-radius.ts';
export type { BlastRadiusResult, AffectedTool } from './governance/blast-radius.ts';

// Audits: findings are data
export { unmappedTools } from './audit/unmapped-tools.ts';
export type { UnmappedToolRow } from './audit/unmapped-tools.ts';
export { orphanPolicies } from './audit/orphan-policies.ts';
export type { OrphanPolicyRow, OrphanReason } from './audit/orphan-policies.ts';
export { unbackedEdges } from './audit/unbacked-edges.ts';
export type { UnbackedEdgeRow, UnbackedEdgesResult, AuthoredEdge } from './audit/unbacked-edges.ts';
export { drift } from './audit/drift.ts';
export type { DriftRow, DriftReference } from './audit/drift.ts';
export { destructiveUnsafeguarded } from './audit/destructive-unsafeguarded.ts';
export type { DestructiveUnsafeguardedRow } from './audit/destructive-unsafeguarded.ts';
export { annotationContradictions } from './audit/annotation-contradictions.ts';
export type { AnnotationContradictionRow } from './audit/annotation-contradictions.ts';
export { auditReport, AUDIT_REPORT_KIND } from './audit/report.ts';
export type { AuditReport, AuditReportOptions, AgentExposure, ExposurePath } from './audit/report.ts';
export { AUDIT_NAMES } from './audit/types.ts';
export type { AuditResult, AuditName } from './audit/types.ts';

// Selector
export { eligibleTools } from './selector/eligible-tools.ts';
export type { EligibleToolsResult, EligibleRow, RejectedRow } from './selector/eligible-tools.ts';
export { rankFeatures } from './selector/rank-features.ts';
export type { RankFeaturesResult, FeatureRow, DenyFeature } from './selector/rank-features.ts';
export { selectionExplain } from './selector/selection-explain.ts';
export type { SelectionExplanation } from './selector/selection-explain.ts';
export { buildPreflight, PREFLIGHT_KIND, PREFLIGHT_SCHEMA_VERSION } from './preflight/preflight.ts';
export type { Preflight, PreflightOptions, PreflightDecision } from './preflight/preflight.ts';

// Compile: the estate into policy-bundle.json, data.json and bundle.tar.gz (bytes, no files written)
export { compileEstate } from './emit/compile-run.ts';
export type { EstateCompileOptions as CompileOptions, CompileResult, CompiledArtifact, RegoModuleFile } from './compile/compile.ts';
export { enforcementRego } from './cli/enforcement-rego.ts';

// Connectome
export {
  buildDeclaredConnectome,
  buildGraph,
  checkGraph,
  isGraph,
  Graph,
  nodeId,
  collapse,
  encodeGraph,
  encodeGraphText,
  graphDigest,
  graphDigestHex,
  decodeGraph,
  graphFromJSON,
  toDot,
  toGraphML,
  observeFromText,
  observeFromRecords,
  diffConnectomes,
  encodeDiff,
  diffDigestHex,
  reachable,
  allPaths,
  digestEnvelope,
  NODE_KINDS,
  EDGE_KINDS,
  SIGNS,
  LEVELS,
} from './connectome/index.ts';
export type {
  ConnectomeNode,
  ConnectomeEdge,
  GraphInput,
  NodeKind,
  EdgeKind,
  Sign,
  Level,
  Identity,
  CollapseOptions,
  EncodeOptions,
  DecodedGraph,
  ObservationWindow,
  ObserveResult,
  DiffRecord,
  DiffOptions,
  DigestEnvelope,
  ConnectomeProvenance,
} from './connectome/index.ts';

// OPA bundles: read, inspect, sign, verify, decide
export { readTarball, loadBundle, inspectBundle, bundleDecider, signBundle, verifyBundle, DECISION_ENTRYPOINT, SIGNING_ALGORITHMS } from './bundle/index.ts';
export type { TarballFile, TarballLimits, LoadedBundle, BundleManifest, BundleInspection, BundleDecider, SignBundleOptions, VerifyOptions, VerifiedBundle, SigningAlgorithm, JwsSigner } from './bundle/index.ts';

// The Rego engine (toolgate's own interpreter, OPA v1.22 semantics) and the engine adapters
export { compileModules, parseModule, bindPolicy, RegoError, RegoLimitError, UNTRUSTED_LIMITS, fromJSON as regoValueFromJSON, toJSON as regoValueToJSON } from './rego/index.ts';
export type { ModuleSource, RegoPolicy, RegoCompileOptions, PreparedQuery, QueryResult, EvalOptions, RegoVersion, RegoLimits, RegoErrorCode, Value as RegoValue, BoundPolicy } from './rego/index.ts';
export { loadPolicy, ENGINES } from './engines/engine.ts';
export type { EngineName, PolicySource, LoadedPolicy, LoadOptions, Evaluation } from './engines/engine.ts';

// Canonical bytes and digests
export { canonicalBytes, canonicalString } from './canonical/json.ts';
export { digestOf, digestHex, DIGEST_ALGORITHMS } from './canonical/digest.ts';
export type { DigestAlgorithm } from './canonical/digest.ts';
