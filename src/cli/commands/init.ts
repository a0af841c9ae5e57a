/** `toolgate init`: writes a toolgate.yaml naming the estate's files, so queries need no flags. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ToolgateError } from '../../errors.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { CONFIG_FILE } from '../estate-input.ts';
import { writeFileAtomic } from '../fs-io.ts';

const usage = `usage: toolgate init [--manifest governance.yaml] [--catalog catalog.json] [--servers servers.yaml] [--out DIR] [--force]
Writes ${CONFIG_FILE} in the working directory (paths relative to it). Refuses to overwrite without --force.`;

export const initCommand: Command = {
  name: 'init',
  summary: `write ${CONFIG_FILE} naming the manifest and catalog for the other commands`,
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(
      args,
      { manifest: { type: 'string' }, catalog: { type: 'string' }, servers: { type: 'string' }, out: { type: 'string' }, force: { type: 'boolean' } },
      usage,
    );
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    const path = join(io.cwd, CONFIG_FILE);
    if (existsSync(path) && !values.force) throw new ToolgateError('USAGE', `${path} exists; pass --force to overwrite`);
    const lines = [
      '# toolgate project file: the estate every toolgate command reads when given no --manifest/--catalog.',
      `manifest: ${JSON.stringify(values.manifest ?? 'governance.yaml')}`,
      `catalog: ${JSON.stringify(values.catalog ?? 'catalog.json')}`,
      `servers: ${JSON.stringify(values.servers ?? 'servers.yaml')}`,
      `out: ${JSON.stringify(values.out ?? 'out')}`,
      '',
    ];
    writeFileAtomic({ path, flag: 'the project file' }, lines.join('\n'), 0o644);
    io.stderr(`toolgate: wrote ${path}\n`);
    return EXIT.OK;
  },
};
