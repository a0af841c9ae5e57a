/** `toolgate` entry: dispatch to a command, map errors to exit codes, never print a stack trace. */
import { isToolgateError, formatAt } from '../errors.ts';
import type { CliIo, Command } from './command.ts';
import { EXIT, exitCodeFor } from './exit-codes.ts';
import { COMMANDS } from './registry.ts';

function defaultIo(): CliIo {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
    stdin: async () => {
      if (process.stdin.isTTY) return '';
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `usage: toolgate COMMAND [options]\n\ncommands:\n${lines.join('\n')}\n\nRun 'toolgate COMMAND --help' for a command's options.\n`;
}

/** Finds the longest command name matching the leading words of argv. */
function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  let best: { command: Command; rest: string[] } | undefined;
  for (const command of COMMANDS) {
    const words = command.name.split(' ');
    if (words.every((w, i) => argv[i] === w) && (!best || words.length > best.command.name.split(' ').length)) {
      best = { command, rest: argv.slice(words.length) };
    }
  }
  return best;
}

export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.stdout(helpText());
    return argv.length === 0 ? EXIT.USAGE : EXIT.OK;
  }
  const found = findCommand(argv);
  if (!found) {
    io.stderr(`toolgate: unknown command ${JSON.stringify(argv.slice(0, 2).join(' '))}\n${helpText()}`);
    return EXIT.USAGE;
  }
  if (found.rest.includes('--help') || found.rest.includes('-h')) {
    io.stdout(found.command.usage.endsWith('\n') ? found.command.usage : `${found.command.usage}\n`);
    return EXIT.OK;
  }
  try {
    return await found.command.run(found.rest, io);
  } catch (e) {
    return reportError(e, io);
  }
}

export function reportError(e: unknown, io: CliIo): number {
  if (isToolgateError(e)) {
    const where = e.at.length > 0 ? ` at ${e.at.map(formatAt).join(', ')}` : '';
    io.stderr(`toolgate: error ${e.code}${where}: ${e.message}\n`);
    for (const d of e.details) io.stderr(`  ${d}\n`);
    return exitCodeFor(e.code);
  }
  const msg = e instanceof Error ? e.message : String(e);
  io.stderr(`toolgate: internal error: ${msg}\n`);
  if (process.env.TOOLGATE_DEBUG && e instanceof Error && e.stack) io.stderr(`${e.stack}\n`);
  return EXIT.INTERNAL;
}
