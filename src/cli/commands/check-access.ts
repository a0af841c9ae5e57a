/** `toolgate check-access AGENT TOOL`: the graph verdict with DENY evidence, beside the gateway's decision; `--fail-on-deny` gates on the latter. */
import { checkAccessWithGateway } from '../../compile/gateway-decision.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, loadEstate, locateEstate } from '../estate-input.ts';
import { printJson } from '../output.ts';
import { profileOption } from '../selector-args.ts';

const usage = `usage: toolgate check-access AGENT TOOL [estate] [--profile strict|review|explore] [--fail-on-deny]
Prints the graph verdict (ALLOW, DENY with its paths, NOT_GRANTED, ...) and, as "gateway", what the
bundle \`toolgate compile --profile P\` writes answers at data.toolgate.authz.decision: {allow, reason}.
  --profile        the profile the gateway enforces (default: profile in toolgate.yaml, else strict, as compile)
  --fail-on-deny   exit 1 when the gateway decision is not allow; exit 2 on AGENT_NOT_FOUND, TOOL_NOT_FOUND, AMBIGUOUS_TOOL
TOOL may be a bare name exposed by exactly one server: it is resolved here, but a gateway does not send
it that way. data.toolgate.authz.decision takes the qualified server::tool key ("gateway".input.tool
is the key the answer is for); a bare name there is NOT_GRANTED (see docs/gateways.md).
${ESTATE_USAGE}`;

export const checkAccessCommand: Command = {
  name: 'check-access',
  summary: 'is AGENT allowed TOOL? verdict with the DENY paths as evidence, and the gateway decision under the profile',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, { ...ESTATE_OPTIONS, profile: { type: 'string' }, 'fail-on-deny': { type: 'boolean' } }, usage);
    if (positionals.length !== 2) usageError('expected AGENT and TOOL', usage);
    const source = locateEstate(values, io);
    const profile = profileOption(values.profile ?? (source.config?.profile as string | undefined), usage);
    const estate = loadEstate(source, io, { strictDrift: values['strict-drift'] ?? false });
    const [agent, tool] = [positionals[0]!, positionals[1]!];
    const result = checkAccessWithGateway(estate, agent, tool, profile);
    printJson(io, result);
    if (!values['fail-on-deny']) return EXIT.OK;
    if (result.verdict === 'AGENT_NOT_FOUND' || result.verdict === 'TOOL_NOT_FOUND' || result.verdict === 'AMBIGUOUS_TOOL') {
      io.stderr(`toolgate: ${result.verdict}: ${result.verdict === 'AGENT_NOT_FOUND' ? result.agent : result.tool}\n`);
      return EXIT.USAGE;
    }
    return result.gateway.allow ? EXIT.OK : EXIT.FAILED;
  },
};
