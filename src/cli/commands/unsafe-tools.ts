/** `toolgate unsafe-tools AGENT [--all] [--fail-on-violation]`: the agent's DENY reaches, each beside the gateway's decision for its tool. */
import { unsafeToolsWithGateway } from '../../compile/gateway-decision.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, loadEstate, locateEstate } from '../estate-input.ts';
import { printJson } from '../output.ts';
import { agentExit, profileOption } from '../selector-args.ts';

const usage = `usage: toolgate unsafe-tools AGENT [estate] [--profile strict|review|explore] [--all] [--fail-on-violation]
Each row carries "gateway": {allow, reason}, what the bundle \`toolgate compile --profile P\` writes
answers at data.toolgate.authz.decision for AGENT and the row's server::tool key.
  --profile             the profile the gateway enforces (default: profile in toolgate.yaml, else strict, as compile)
  --all                 include rows an expected exception authorizes (authorized_but_governed)
  --fail-on-violation   exit 1 when any violation row is printed
Unknown AGENT: AGENT_NOT_FOUND on stderr, nothing on stdout, exit 1.
${ESTATE_USAGE}`;

export const unsafeToolsCommand: Command = {
  name: 'unsafe-tools',
  summary: "the DENY policies AGENT's grants reach (violations; --all adds authorized ones), with the gateway decision",
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, { ...ESTATE_OPTIONS, profile: { type: 'string' }, all: { type: 'boolean' }, 'fail-on-violation': { type: 'boolean' } }, usage);
    if (positionals.length !== 1) usageError('expected AGENT', usage);
    const source = locateEstate(values, io);
    const profile = profileOption(values.profile ?? (source.config?.profile as string | undefined), usage);
    const estate = loadEstate(source, io, { strictDrift: values['strict-drift'] ?? false });
    const result = unsafeToolsWithGateway(estate, positionals[0]!, values.all ?? false, profile);
    if (!result.agent_found) return agentExit(io, result.agent, false);
    printJson(io, result);
    return values['fail-on-violation'] && result.violations > 0 ? EXIT.FAILED : EXIT.OK;
  },
};
