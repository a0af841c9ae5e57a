/** Every CLI command, in the order `toolgate --help` lists them. Add one import and one entry per command. */
import type { Command } from './command.ts';
import { blastRadiusCommand } from './commands/blast-radius.ts';
import { checkAccessCommand } from './commands/check-access.ts';
import { compileCommand } from './commands/compile.ts';
import { crawlCommand } from './commands/crawl.ts';
import { initCommand } from './commands/init.ts';
import { serveCommand } from './commands/serve.ts';
import { unsafeToolsCommand } from './commands/unsafe-tools.ts';

export const COMMANDS: readonly Command[] = [
  compileCommand,
  checkAccessCommand,
  unsafeToolsCommand,
  blastRadiusCommand,
  initCommand,
  crawlCommand,
  serveCommand,
];
