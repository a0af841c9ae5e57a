/**
 * The CLI's help surface: every command's --help, the group words (graph, bundle, rego, ...),
 * --version, and the messages for a command or option that does not exist.
 */
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';
import { COMMANDS } from '../../../src/cli/registry.ts';

const REPO = join(import.meta.dirname, '../../..');
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const GROUPS = [...new Set(COMMANDS.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]!))];

describe('toolgate COMMAND --help', () => {
  for (const entry of COMMANDS) {
    it(`${entry.name}: exits 0 and prints its own usage line`, async () => {
      for (const flag of ['--help', '-h']) {
        const r = await runCli([...entry.name.split(' '), flag]);
        expect(r.code).toBe(0);
        expect(r.stdout.split('\n')[0]).toMatch(new RegExp(`^usage: toolgate ${entry.name.replace(/[-]/g, '\\-')}( |$)`));
        expect(r.stderr).toBe('');
      }
    });
  }

  it('each loaded command has the name and summary the registry lists for it', async () => {
    for (const entry of COMMANDS) {
      const command = await entry.load();
      expect({ name: command.name, summary: command.summary }).toEqual({ name: entry.name, summary: entry.summary });
    }
  });
});

describe('toolgate --help', () => {
  it('lists every command with its summary, and exits 0', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const entry of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${entry.name} +${entry.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  });

  it('toolgate help COMMAND is COMMAND --help', async () => {
    const same = async (a: string[], b: string[]) => {
      const [x, y] = [await runCli(a), await runCli(b)];
      expect({ code: x.code, stdout: x.stdout, stderr: x.stderr }).toEqual({ code: y.code, stdout: y.stdout, stderr: y.stderr });
      expect(x.code).toBe(0);
    };
    await same(['help', 'graph', 'build'], ['graph', 'build', '--help']);
    await same(['help', 'rego'], ['rego', '--help']);
  });

  it('bare toolgate prints the same help and exits 2', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe((await runCli(['--help'])).stdout);
  });
});

describe('toolgate --version', () => {
  for (const flag of ['--version', '-V']) {
    it(`${flag} prints the package version`, async () => {
      const r = await runCli([flag]);
      expect(r).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    });
  }
});

describe('group words', () => {
  it('graph, bundle and rego are groups', () => {
    expect(GROUPS).toEqual(expect.arrayContaining(['graph', 'bundle', 'rego']));
  });

  for (const group of GROUPS) {
    const members = COMMANDS.filter((c) => c.name.startsWith(`${group} `));
    it(`${group} --help lists exactly its subcommands and exits 0; bare ${group} exits 2`, async () => {
      const help = await runCli([group, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout.split('\n')[0]).toBe(`usage: toolgate ${group} SUBCOMMAND [options]`);
      const listed = help.stdout.split('\n').filter((l) => l.startsWith(`  ${group} `)).map((l) => l.trim().split(/\s{2,}/)[0]);
      expect(listed).toEqual(members.map((c) => c.name));
      const bare = await runCli([group]);
      expect(bare.code).toBe(2);
      expect(bare.stdout).toBe(help.stdout);
    });
  }
});

describe('unknown commands', () => {
  it('names only the word that does not match, and suggests the closest command', async () => {
    const r = await runCli(['chek-access', 'ci-bot', 'git::git_show', '--example', 'quickstart']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('toolgate: unknown command "chek-access"; did you mean "check-access"?');
    expect(r.stdout).toBe('');
  });

  it('does not take a following flag or argument for part of the command', async () => {
    const r = await runCli(['frobnicate', '--example', 'quickstart']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('toolgate: unknown command "frobnicate"');
  });

  it('names the group and the subcommand typed, and suggests within the group', async () => {
    const r = await runCli(['graph', 'bild', '--catalog', 'x.json']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('toolgate: unknown command "graph bild"; did you mean "graph build"?');
  });

  it('a group word followed by a flag asks for a subcommand and lists them', async () => {
    const r = await runCli(['rego', '--json']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('toolgate: "rego" needs a subcommand');
    expect(r.stderr).toContain('  rego eval');
  });
});

describe('unknown options', () => {
  it('names the option and suggests the closest one the command takes', async () => {
    const r = await runCli(['check-access', 'ci-bot', 'git::git_show', '--exmaple', 'quickstart']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('toolgate: error USAGE: unknown option --exmaple; did you mean "--example"?');
    expect(r.stderr).toContain('usage: toolgate check-access');
  });

  it('suggests nothing when no option is close', async () => {
    const r = await runCli(['check-access', 'ci-bot', 'git::git_show', '--zzzzzzzz']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('toolgate: error USAGE: unknown option --zzzzzzzz');
  });

  it('an unknown short flag is named as typed', async () => {
    const r = await runCli(['check-access', 'ci-bot', 'git::git_show', '-q']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('toolgate: error USAGE: unknown option -q');
  });
});
