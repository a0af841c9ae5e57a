/**
 * `toolgate policy compile --agent A --profile P --output FILE`: the peer toolgraph's command of
 * that name. It writes the one file that command writes, the single-agent `toolgraph.policy-bundle`
 * v1 (the bytes `compile --format toolgraph-v1` puts in policy-bundle.json), privately and
 * atomically, continuing the graph_state of the bundle already at FILE.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { digestHex } from '../../canonical/digest.ts';
import { jsonFileBytes } from '../../compile/json-file.ts';
import { exposedTools } from '../../compile/policy-bundle.ts';
import { compileToolgraphV1 } from '../../compile/toolgraph-v1.ts';
import { parseJsonInput } from '../../canonical/strict-json.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import { createdAtFromEnv, createdAtPinned } from '../clock.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { readTextFile, writeFilesAtomic } from '../fs-io.ts';
import { printJson } from '../output.ts';
import { runState } from '../run-state.ts';
import { profileOption } from '../selector-args.ts';

const usage = `usage: toolgate policy compile --agent A --output FILE [--profile strict|review|explore] [estate]
Writes the peer toolgraph's single-agent policy bundle (toolgraph.policy-bundle v1): one decision
for every exposed tool, the tool-contract digests, graph_state, the governance and catalog digests.
The same bytes as policy-bundle.json of 'compile --format toolgraph-v1 --agent A'.
  --agent A        the agent the bundle is for (required)
  --output FILE    where to write it (required; private, atomic; --out is the same). A bundle already
                   there gives the graph_state to continue: the generation rises only when inputs changed,
                   and unchanged inputs keep its created_at unless SOURCE_DATE_EPOCH is set
  --profile P      the profile the decisions are made under (default strict)
Exit 0 when the bundle is written; 1 on an unknown agent (AGENT_NOT_FOUND, nothing written), refused
input or a failed write; 2 on bad usage.
${ESTATE_USAGE}`;

/** The created_at of the bundle at `path`, if it is one. */
function previousCreatedAt(path: string): { created_at: string; graph_state: unknown } | undefined {
  if (!existsSync(path)) return undefined;
  try {
    // The earlier bundle this run replaces, not an input.
    const v = parseJsonInput(readTextFile(path, { input: false }), path) as { created_at?: unknown; graph_state?: unknown };
    return typeof v.created_at === 'string' ? { created_at: v.created_at, graph_state: v.graph_state } : undefined;
  } catch {
    return undefined;
  }
}

export const policyCompileCommand: Command = {
  name: 'policy compile',
  summary: "the peer toolgraph's single-agent policy bundle (toolgraph.policy-bundle v1) for one agent and profile",
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, { ...ESTATE_OPTIONS, agent: { type: 'string' }, profile: { type: 'string' }, output: { type: 'string' }, out: { type: 'string' } }, usage);
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    if (values.agent === undefined || values.agent === '') usageError('--agent A is required', usage);
    if (values.output !== undefined && values.out !== undefined) usageError('--output and --out name the same file; give one', usage);
    const output = values.output ?? values.out;
    if (output === undefined) usageError('--output FILE is required', usage);
    const profile = profileOption(values.profile, usage);
    const createdAt = createdAtFromEnv(io.env);
    const estate = estateFromArgs(values, io);
    const path = resolve(io.cwd, output);
    const { graph_state, digests } = runState(estate, io, { out: path });
    const previous = previousCreatedAt(path);
    const unchanged = previous !== undefined && JSON.stringify(previous.graph_state) === JSON.stringify(graph_state);
    const header = {
      created_at: unchanged && !createdAtPinned(io.env) ? previous.created_at : createdAt,
      profile,
      graph_state,
      governance_digest: digests.governance_digest,
      catalog_digest: digests.catalog_digest,
      connectome_digest: null,
    };
    const bundle = compileToolgraphV1(estate, values.agent, profile, header, exposedTools(estate));
    const bytes = jsonFileBytes(bundle);
    writeFilesAtomic([{ path, bytes, flag: values.output !== undefined ? '--output' : '--out' }]);
    // What the peer prints on success: the path, the exact byte digest, the graph state and the counts; not the bundle.
    const decisions = (bundle.tools as { decision: string }[]).map((t) => t.decision);
    const count = (d: string) => decisions.filter((x) => x === d).length;
    printJson(io, { out: path, artifact_digest: `sha256:${digestHex(bytes)}`, bytes: bytes.length, agent: values.agent, profile, graph_state, eligible: count('eligible'), rejected: count('rejected') });
    return EXIT.OK;
  },
};
