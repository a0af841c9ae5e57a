/**
 * Every CLI command, in the order `toolgate --help` lists them: its name and summary, and a loader.
 * Commands load on demand so that start-up pays only for the one that runs (a command's imports can
 * pull in the Rego engine, the MCP SDK or Graphviz). A test checks each loaded command agrees with
 * its entry here.
 */
import type { CommandEntry } from './command.ts';

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'compile', summary: 'compile the estate into policy-bundle.json, data.json, bundle.tar.gz and SHA256SUMS', load: async () => (await import('./commands/compile.ts')).compileCommand },
  { name: 'check-access', summary: 'is AGENT allowed TOOL? verdict with the DENY paths as evidence, and the gateway decision under the profile', load: async () => (await import('./commands/check-access.ts')).checkAccessCommand },
  { name: 'unsafe-tools', summary: "the DENY policies AGENT's grants reach (violations; --all adds authorized ones), with the gateway decision", load: async () => (await import('./commands/unsafe-tools.ts')).unsafeToolsCommand },
  { name: 'blast-radius', summary: 'which tools and agents a change to a resource or policy affects', load: async () => (await import('./commands/blast-radius.ts')).blastRadiusCommand },
  { name: 'unmapped-tools', summary: 'granted tools with no READS/WRITES edge yet', load: async () => (await import('./commands/unmapped-tools.ts')).unmappedToolsCommand },
  { name: 'orphan-policies', summary: 'policies no agent reaches, with where the chain breaks', load: async () => (await import('./commands/orphan-policies.ts')).orphanPoliciesCommand },
  { name: 'unbacked-edges', summary: 'authored edges with no evidence (--include-grants adds CAN_CALL)', load: async () => (await import('./commands/unbacked-edges.ts')).unbackedEdgesCommand },
  { name: 'drift', summary: 'governance references to tools no server in the catalog exposes', load: async () => (await import('./commands/drift.ts')).driftCommand },
  { name: 'destructive-unsafeguarded', summary: 'tools claiming destructiveHint with no GOVERNED_BY path (direct or via a resource)', load: async () => (await import('./commands/destructive-unsafeguarded.ts')).destructiveUnsafeguardedCommand },
  { name: 'annotation-contradictions', summary: 'authored WRITES edges on tools claiming readOnlyHint, citing both provenances', load: async () => (await import('./commands/annotation-contradictions.ts')).annotationContradictionsCommand },
  { name: 'audit-report', summary: 'the whole-estate audit (json, markdown, or self-contained html with graph pictures)', load: async () => (await import('./commands/audit-report.ts')).auditReportCommand },
  { name: 'rank-features', summary: 'per-candidate selector facts for AGENT (verdict, DENY paths, drift, mapping, claims, risk_score)', load: async () => (await import('./commands/rank-features.ts')).rankFeaturesCommand },
  { name: 'eligible-tools', summary: 'filter candidate tools for AGENT under a profile, with reject reasons and evidence', load: async () => (await import('./commands/eligible-tools.ts')).eligibleToolsCommand },
  { name: 'selection-explain', summary: 'why TOOL is or is not selectable for AGENT, in short human reasons', load: async () => (await import('./commands/selection-explain.ts')).selectionExplainCommand },
  { name: 'preflight', summary: 'advisory preflight artifact for a run: AGENT x candidates under a profile, stamped with graph_state', load: async () => (await import('./commands/preflight.ts')).preflightCommand },
  { name: 'control-preflight', summary: 'advisory check of a control plan: topology, bounds, every principal x candidate in one graph state', load: async () => (await import('./commands/control-preflight.ts')).controlPreflightCommand },
  { name: 'review-candidates list', summary: 'the candidates of a Tracegraph review report, with their review dispositions', load: async () => (await import('./commands/review-candidates.ts')).reviewCandidatesListCommand },
  { name: 'review-candidates annotate', summary: 'append a disposition (open, accepted, dismissed) for one candidate to the review sidecar', load: async () => (await import('./commands/review-candidates.ts')).reviewCandidatesAnnotateCommand },
  { name: 'policy compile', summary: "the peer toolgraph's single-agent policy bundle (toolgraph.policy-bundle v1) for one agent and profile", load: async () => (await import('./commands/policy-compile.ts')).policyCompileCommand },
  { name: 'policy review-plan', summary: 'accepted review candidates evaluated for one agent and profile: a human-required work plan', load: async () => (await import('./commands/policy-review-plan.ts')).policyReviewPlanCommand },
  { name: 'policy propose', summary: 'proposed grants and removals from observed use, as a reviewable manifest patch (never applied)', load: async () => (await import('./commands/policy-propose.ts')).policyProposeCommand },
  { name: 'init', summary: 'write toolgate.yaml naming the manifest and catalog for the other commands', load: async () => (await import('./commands/init.ts')).initCommand },
  { name: 'crawl', summary: 'crawl MCP servers (stdio or streamable HTTP) into a deterministic catalog', load: async () => (await import('./commands/crawl.ts')).crawlCommand },
  { name: 'serve', summary: 'serve the queries as an MCP server (stdio, or streamable HTTP on loopback with --http)', load: async () => (await import('./commands/serve.ts')).serveCommand },
  { name: 'graph build', summary: 'build the declared connectome from a catalog and an optional host graph', load: async () => (await import('./commands/graph-build.ts')).graphBuildCommand },
  { name: 'graph collapse', summary: 'collapse a connectome to a coarser level (a view; the input is untouched)', load: async () => (await import('./commands/graph-collapse.ts')).graphCollapseCommand },
  { name: 'graph export', summary: 'render a connectome as canonical JSON, DOT, GraphML or the weights sidecar', load: async () => (await import('./commands/graph-export.ts')).graphExportCommand },
  { name: 'digest', summary: 'print the digest of a connectome re-encoded canonically', load: async () => (await import('./commands/digest.ts')).digestCommand },
  { name: 'verify', summary: 'check a connectome or diff record against a digest (exit 1 on mismatch)', load: async () => (await import('./commands/verify.ts')).verifyCommand },
  { name: 'observe', summary: 'build the observed connectome from dispatch events or OTLP/JSON spans', load: async () => (await import('./commands/observe.ts')).observeCommand },
  { name: 'diff', summary: 'diff a declared connectome against an observed one over a window', load: async () => (await import('./commands/diff.ts')).diffCommand },
  { name: 'sign', summary: "fill a connectome's sign slots from a consumer's Rego or OPA-compiled wasm policy", load: async () => (await import('./commands/sign.ts')).signCommand },
  { name: 'decide', summary: "evaluate an OPA bundle's own enforcement Rego for AGENT and TOOL, in-process", load: async () => (await import('./commands/decide.ts')).decideCommand },
  { name: 'visible-tools', summary: 'the tools AGENT may see in tools/list: exactly those the bundle decision allows', load: async () => (await import('./commands/visible-tools.ts')).visibleToolsCommand },
  { name: 'bundle verify', summary: "verify an OPA bundle's .signatures.json against a public key, as OPA does", load: async () => (await import('./commands/bundle.ts')).bundleVerifyCommand },
  { name: 'bundle inspect', summary: 'list an OPA bundle: entries, manifest, roots and digests', load: async () => (await import('./commands/bundle.ts')).bundleInspectCommand },
  { name: 'bundle serve', summary: "serve compile outputs over OPA's bundle service API (ETag, long polling, deltas, status and decision-log receivers)", load: async () => (await import('./commands/bundle-serve.ts')).bundleServeCommand },
  { name: 'publish', summary: 'push a compiled OPA bundle to an OCI registry (one layer, empty config), tag and digest as JSON', load: async () => (await import('./commands/publish.ts')).publishCommand },
  { name: 'rego eval', summary: 'evaluate a Rego query with the builtin engine (like opa eval)', load: async () => (await import('./commands/rego-eval.ts')).regoEvalCommand },
  { name: 'rego test', summary: 'run the test_* rules of Rego *_test.rego modules with the builtin engine (like opa test)', load: async () => (await import('./commands/rego-test.ts')).regoTestCommand },
  { name: 'rego conformance', summary: 'run the Rego conformance corpus (OPA or regorus YAML cases) on the builtin engine', load: async () => (await import('./commands/rego-conformance.ts')).regoConformanceCommand },
  { name: 'rego capabilities', summary: 'which builtins of the pinned OPA the builtin engine implements, refuses or lacks', load: async () => (await import('./commands/rego-capabilities.ts')).regoCapabilitiesCommand },
];
