/** Every CLI command, in the order `toolgate --help` lists them. Add one import and one entry per command. */
import type { Command } from './command.ts';
import { regoCapabilitiesCommand } from './commands/rego-capabilities.ts';
import { regoConformanceCommand } from './commands/rego-conformance.ts';
import { regoEvalCommand } from './commands/rego-eval.ts';
import { regoTestCommand } from './commands/rego-test.ts';
import { blastRadiusCommand } from './commands/blast-radius.ts';
import { checkAccessCommand } from './commands/check-access.ts';
import { compileCommand } from './commands/compile.ts';
import { crawlCommand } from './commands/crawl.ts';
import { initCommand } from './commands/init.ts';
import { serveCommand } from './commands/serve.ts';
import { unsafeToolsCommand } from './commands/unsafe-tools.ts';
import { graphBuildCommand } from './commands/graph-build.ts';
import { graphCollapseCommand } from './commands/graph-collapse.ts';
import { graphExportCommand } from './commands/graph-export.ts';
import { digestCommand } from './commands/digest.ts';
import { verifyCommand } from './commands/verify.ts';
import { observeCommand } from './commands/observe.ts';
import { diffCommand } from './commands/diff.ts';
import { signCommand } from './commands/sign.ts';
import { decideCommand } from './commands/decide.ts';
import { bundleInspectCommand, bundleVerifyCommand } from './commands/bundle.ts';
import { bundleServeCommand } from './commands/bundle-serve.ts';
import { publishCommand } from './commands/publish.ts';
import { unmappedToolsCommand } from './commands/unmapped-tools.ts';
import { orphanPoliciesCommand } from './commands/orphan-policies.ts';
import { unbackedEdgesCommand } from './commands/unbacked-edges.ts';
import { driftCommand } from './commands/drift.ts';
import { destructiveUnsafeguardedCommand } from './commands/destructive-unsafeguarded.ts';
import { annotationContradictionsCommand } from './commands/annotation-contradictions.ts';
import { rankFeaturesCommand } from './commands/rank-features.ts';
import { eligibleToolsCommand } from './commands/eligible-tools.ts';
import { selectionExplainCommand } from './commands/selection-explain.ts';
import { preflightCommand } from './commands/preflight.ts';
import { auditReportCommand } from './commands/audit-report.ts';
import { visibleToolsCommand } from './commands/visible-tools.ts';
import { controlPreflightCommand } from './commands/control-preflight.ts';
import { reviewCandidatesListCommand, reviewCandidatesAnnotateCommand } from './commands/review-candidates.ts';
import { policyReviewPlanCommand } from './commands/policy-review-plan.ts';
import { policyProposeCommand } from './commands/policy-propose.ts';

export const COMMANDS: readonly Command[] = [
  compileCommand,
  checkAccessCommand,
  unsafeToolsCommand,
  blastRadiusCommand,
  unmappedToolsCommand,
  orphanPoliciesCommand,
  unbackedEdgesCommand,
  driftCommand,
  destructiveUnsafeguardedCommand,
  annotationContradictionsCommand,
  auditReportCommand,
  rankFeaturesCommand,
  eligibleToolsCommand,
  selectionExplainCommand,
  preflightCommand,
  controlPreflightCommand,
  reviewCandidatesListCommand,
  reviewCandidatesAnnotateCommand,
  policyReviewPlanCommand,
  policyProposeCommand,
  initCommand,
  crawlCommand,
  serveCommand,
  graphBuildCommand,
  graphCollapseCommand,
  graphExportCommand,
  digestCommand,
  verifyCommand,
  observeCommand,
  diffCommand,
  signCommand,
  decideCommand,
  visibleToolsCommand,
  bundleVerifyCommand,
  bundleInspectCommand,
  bundleServeCommand,
  publishCommand,
  regoEvalCommand,
  regoTestCommand,
  regoConformanceCommand,
  regoCapabilitiesCommand,
];
