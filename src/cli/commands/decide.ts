/** `toolgate decide AGENT TOOL --bundle bundle.tar.gz`: the bundle's own Rego, in-process, against its own data. */
import { resolve } from 'node:path';
import { bundleDecider, DECISION_ENTRYPOINT } from '../../bundle/decider.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import { wallClockNs } from '../clock.ts';
import { limitsFromOptions, LIMIT_OPTIONS, LIMIT_USAGE } from '../limit-options.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readBytesFile } from '../fs-io.ts';
import { printJson } from '../output.ts';
import { policyCache } from '../policy-cache.ts';

const usage = `usage: toolgate decide AGENT TOOL --bundle bundle.tar.gz [--no-cache] [--deadline-ms N] [--max-steps N]

Reads the OPA bundle (refusing unsafe tarballs), loads its Rego with the builtin engine and its data
files at their folders, and prints ${DECISION_ENTRYPOINT} for input {agent: AGENT, tool: TOOL},
as OPA serving the bundle would answer it. Advisory: exits 0 whatever the decision.

The first run on a set of Rego modules compiles them all, as OPA does, and records that they
compile in the cache folder (TOOLGATE_CACHE_DIR, else $XDG_CACHE_HOME/toolgate, else
~/.cache/toolgate); later runs on the same modules, whatever the data, compile only the rules the
decision reaches. The package ships that record for the Rego \`toolgate compile\` writes (without
--signs), so even a first run on such a bundle compiles only what it reaches. From the second run
on one bundle (the same bytes), the cache folder also holds a view of it, the part of it the
decision needs, read instead of the tarball. --no-cache neither reads nor writes the cache folder,
nor reads the shipped record.
${LIMIT_USAGE}`;

export const decideCommand: Command = {
  name: 'decide',
  summary: "evaluate an OPA bundle's own enforcement Rego for AGENT and TOOL, in-process",
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { bundle: { type: 'string' }, 'no-cache': { type: 'boolean' }, ...LIMIT_OPTIONS }, usage);
    if (positionals.length !== 2) usageError('expected AGENT and TOOL', usage);
    if (values.bundle === undefined) usageError('--bundle FILE is required', usage);
    const limits = limitsFromOptions(values, usage);
    const cache = values['no-cache'] ? undefined : policyCache(io.env);
    const decider = await bundleDecider(readBytesFile(resolve(io.cwd, values.bundle)), values.bundle, undefined, cache);
    const decision = decider.decide(positionals[0]!, positionals[1]!, limits(), wallClockNs());
    printJson(io, { agent: positionals[0], tool: positionals[1], revision: decider.revision, decision });
    return EXIT.OK;
  },
};
