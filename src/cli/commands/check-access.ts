/** `toolgate check-access AGENT TOOL`: verdict with DENY evidence; `--fail-on-deny` gates. */
import { checkAccess } from '../../governance/check-access.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { printJson } from '../output.ts';

const usage = `usage: toolgate check-access AGENT TOOL [estate] [--fail-on-deny]
  --fail-on-deny   exit 1 on DENY with all_authorized false; exit 2 on AGENT_NOT_FOUND, TOOL_NOT_FOUND, AMBIGUOUS_TOOL
${ESTATE_USAGE}`;

export const checkAccessCommand: Command = {
  name: 'check-access',
  summary: 'is AGENT allowed TOOL? verdict with the DENY paths as evidence',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, { ...ESTATE_OPTIONS, 'fail-on-deny': { type: 'boolean' } }, usage);
    if (positionals.length !== 2) usageError('expected AGENT and TOOL', usage);
    const estate = estateFromArgs(values, io);
    const result = checkAccess(estate, positionals[0]!, positionals[1]!);
    printJson(io, result);
    if (!values['fail-on-deny']) return EXIT.OK;
    if (result.verdict === 'AGENT_NOT_FOUND' || result.verdict === 'TOOL_NOT_FOUND' || result.verdict === 'AMBIGUOUS_TOOL') {
      io.stderr(`toolgate: ${result.verdict}: ${result.verdict === 'AGENT_NOT_FOUND' ? result.agent : result.tool}\n`);
      return EXIT.USAGE;
    }
    return result.verdict === 'DENY' && result.all_authorized === false ? EXIT.FAILED : EXIT.OK;
  },
};
