/** `toolgate rego capabilities`: the builtin engine's coverage of the pinned OPA's builtins. */
import { resolve } from 'node:path';
import { builtinCoverage, engineCapabilities } from '../../rego/builtins/capabilities.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { writeFileAtomic } from '../fs-io.ts';
import { printJson } from '../output.ts';

const usage = `usage: toolgate rego capabilities [--format text|json] [--opa-capabilities-out FILE]

Lists every builtin of the pinned OPA (its \`opa capabilities --current\`, vendored) as implemented by
the builtin engine, refused (network builtins: http.send and net.lookup_ip_addr stop evaluation with
an error unless mocked with \`with\`) or missing, with the counts and the engine's builtins OPA lacks.
  --format json               the same as one JSON document {opa_version, counts, builtins, extra}
  --opa-capabilities-out FILE also write an OPA capabilities JSON of this engine (the pinned OPA's
                              features and keywords, its builtins less the missing ones):
                              \`opa check --capabilities FILE\` then refuses a policy this engine cannot run`;

export const regoCapabilitiesCommand: Command = {
  name: 'rego capabilities',
  summary: "which builtins of the pinned OPA the builtin engine implements, refuses or lacks",
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { format: { type: 'string' }, 'opa-capabilities-out': { type: 'string' } }, usage);
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    const format = values.format ?? 'text';
    if (format !== 'text' && format !== 'json') usageError(`--format must be text or json, got ${JSON.stringify(format)}`, usage);
    const cov = builtinCoverage();
    const out = values['opa-capabilities-out'];
    if (out !== undefined) writeFileAtomic({ path: resolve(io.cwd, out), flag: '--out' }, `${JSON.stringify(engineCapabilities(), null, 2)}\n`, 0o644);
    if (format === 'json') {
      printJson(io, cov);
      return EXIT.OK;
    }
    const c = cov.counts;
    const lines = [`OPA ${cov.opa_version}: ${c.total} builtins; ${c.implemented} implemented, ${c.refused} refused, ${c.missing} missing`];
    for (const status of ['missing', 'refused', 'implemented'] as const) {
      const xs = cov.builtins.filter((b) => b.status === status);
      if (xs.length === 0) continue;
      lines.push('', `${status} (${xs.length}):`);
      for (const b of xs) lines.push(`  ${b.name}${b.note ? `  (${b.note})` : ''}`);
    }
    if (cov.extra.length > 0) lines.push('', `not in OPA ${cov.opa_version} (${cov.extra.length}): ${cov.extra.join(', ')}`);
    if (out !== undefined) lines.push('', `wrote ${out}`);
    io.stdout(`${lines.join('\n')}\n`);
    return EXIT.OK;
  },
};
