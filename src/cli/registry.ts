/** Every CLI command, in the order `toolgate --help` lists them. Add one import and one entry per command. */
import type { Command } from './command.ts';
import { crawlCommand } from './commands/crawl.ts';

export const COMMANDS: readonly Command[] = [
  crawlCommand,
];
