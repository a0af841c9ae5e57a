/**
 * `toolgate visible-tools AGENT [estate] [--profile P] | --bundle bundle.tar.gz`: the tools a
 * gateway that filters tools/list may show AGENT, as data.toolgate.authz.visible_tools answers
 * it: the shipped enforcement Rego, evaluated in-process (builtin engine) against the data
 * document of this estate compiled under the profile, or against a bundle's own Rego and data.
 * The list equals the tools data.toolgate.authz.decision allows AGENT (test/unit/gateways).
 */
import { resolve } from 'node:path';
import { compileEstate } from '../../compile/compile.ts';
import { DATA_ROOT } from '../../compile/data-document.ts';
import { loadBundle, readTarball } from '../../bundle/index.ts';
import { compileModules, fromJSON, toJSON } from '../../rego/index.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { Command } from '../command.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { readBytesFile } from '../fs-io.ts';
import { printJson } from '../output.ts';
import { agentExit, profileOption } from '../selector-args.ts';
import { enforcementRego } from './compile.ts';

const usage = `usage: toolgate visible-tools AGENT [estate] [--profile strict|review|explore]
       toolgate visible-tools AGENT --bundle bundle.tar.gz

Prints {agent, found, profile, visible_tools}: the sorted tool keys data.toolgate.authz.decision
allows AGENT (what a gateway filtering tools/list should show). Unknown AGENT: AGENT_NOT_FOUND on
stderr, exit 1.
${ESTATE_USAGE}`;

const VISIBLE = 'data.toolgate.authz.visible_tools';

export const visibleToolsCommand: Command = {
  name: 'visible-tools',
  summary: 'the tools AGENT may see in tools/list: exactly those the bundle decision allows',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, { ...ESTATE_OPTIONS, profile: { type: 'string' }, bundle: { type: 'string' } }, usage);
    if (positionals.length !== 1) usageError('expected AGENT', usage);
    const agent = positionals[0]!;
    let modules: { name: string; text: string }[];
    let data: Record<string, unknown>;
    if (values.bundle !== undefined) {
      if (values.profile !== undefined) usageError('--profile is fixed by the bundle', usage);
      const loaded = loadBundle(await readTarball(readBytesFile(resolve(io.cwd, values.bundle)), values.bundle), values.bundle);
      modules = loaded.modules.map((m) => ({ name: m.id, text: m.text }));
      data = loaded.data as Record<string, unknown>;
    } else {
      const estate = estateFromArgs(values, io);
      const compiled = await compileEstate(estate, { profile: profileOption(values.profile, usage), createdAt: '1970-01-01T00:00:00Z', regoModules: [] });
      const file = compiled.files.find((f) => f.name === 'data.json')!;
      data = JSON.parse(new TextDecoder().decode(file.bytes)) as Record<string, unknown>;
      modules = enforcementRego().map((m) => ({ name: m.path, text: m.text }));
    }
    const policy = compileModules(modules);
    const inner = data[DATA_ROOT] as { profile?: unknown; agents?: Record<string, unknown> } | undefined;
    const found = inner?.agents !== undefined && Object.hasOwn(inner.agents, agent);
    const value = policy.evalRule(VISIBLE, { input: fromJSON({ agent }), data: fromJSON(data) });
    const visible = value === undefined ? [] : (toJSON(value) as string[]);
    printJson(io, { agent, found, profile: inner?.profile ?? null, visible_tools: visible });
    return agentExit(io, agent, found);
  },
};
