/**
 * Start-up cost: a run loads only what its command uses. Each case runs the CLI (from src/, the dev
 * entry) in a child process with every module it loads recorded (test/helpers/module-trace.mjs).
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, TOOLGATE } from '../../helpers/processes.ts';
import { runCli } from '../../helpers/cli.ts';

const TRACE = pathToFileURL(join(REPO, 'test/helpers/module-trace.mjs')).href;

/** Repo-relative paths (`src/...`, `node_modules/<package>`) of the modules `toolgate ARGS` loads. */
function modulesLoaded(args: readonly string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-trace-'));
  try {
    const out = join(dir, 'trace');
    const r = spawnSync(process.execPath, ['--import', TRACE, TOOLGATE, ...args], {
      cwd: REPO,
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TOOLGATE_MODULE_TRACE: out },
    });
    expect(r.status, r.stderr).toBe(0);
    const root = pathToFileURL(REPO).href;
    const urls = readFileSync(out, 'utf8').split('\n').filter((u) => u.startsWith(root));
    return [...new Set(urls.map((u) => u.slice(root.length).replace(/^node_modules\/((@[^/]+\/)?[^/]+)\/.*$/, 'node_modules/$1')))].sort();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const commandFiles = (mods: readonly string[]) => mods.filter((m) => m.startsWith('src/cli/commands/'));

/** Packages and source folders that cost tens to hundreds of ms to load, and which commands need them. */
const HEAVY = ['node_modules/@modelcontextprotocol/sdk', 'node_modules/@viz-js/viz', 'node_modules/playwright-core', 'node_modules/@open-policy-agent/opa-wasm', 'node_modules/jose', 'node_modules/yaml', 'node_modules/graphql', 'src/audit/', 'src/crawl/', 'src/serve/', 'src/connectome/'];
const heavyIn = (mods: readonly string[], allowed: readonly string[] = []) => mods.filter((m) => HEAVY.some((h) => m.startsWith(h)) && !allowed.some((a) => m.startsWith(a)));

describe('lazy command loading', () => {
  it('toolgate --help loads no command module', () => {
    const mods = modulesLoaded(['--help']);
    expect(commandFiles(mods)).toEqual([]);
    expect(heavyIn(mods)).toEqual([]);
  });

  for (const [name, file] of [
    ['check-access', 'check-access.ts'],
    ['audit-report', 'audit-report.ts'],
    ['rego eval', 'rego-eval.ts'],
    ['graph build', 'graph-build.ts'],
  ] as const) {
    it(`${name} --help loads that command's module and no other`, () => {
      expect(commandFiles(modulesLoaded([...name.split(' '), '--help']))).toEqual([`src/cli/commands/${file}`]);
    });
  }

  it('check-access loads neither the Rego engine nor the MCP SDK, Graphviz, jose or the yaml package', () => {
    const mods = modulesLoaded(['check-access', 'ci-bot', 'git::git_show', '--example', 'quickstart']);
    expect(heavyIn(mods)).toEqual([]);
    expect(mods.filter((m) => m.startsWith('src/rego/') && m !== 'src/rego/errors.ts')).toEqual([]);
    expect(commandFiles(mods)).toEqual(['src/cli/commands/check-access.ts']);
  });

  it('decide loads the Rego engine and the bundle reader, and nothing else heavy (no ajv either)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-decide-'));
    try {
      expect((await runCli(['compile', '--example', 'quickstart', '--out', dir], { env: { SOURCE_DATE_EPOCH: '1767225600' } })).code).toBe(0);
      const mods = modulesLoaded(['decide', 'ci-bot', 'git::git_show', '--bundle', join(dir, 'bundle.tar.gz')]);
      expect(heavyIn(mods)).toEqual([]);
      expect(mods).toContain('src/rego/eval.ts');
      expect(mods.filter((m) => m.startsWith('node_modules/ajv'))).toEqual([]);
      expect(commandFiles(mods)).toEqual(['src/cli/commands/decide.ts']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
