/**
 * The package as a user gets it: `npm pack` (which runs `prepare`, the build), installed from the
 * tarball into an empty project, then used from plain Node (no loader) through the `exports` map,
 * type-checked as a TypeScript consumer with tsc, and run through its installed bin. Results are
 * compared with the same calls on src/, so the compiled library cannot drift from the sources.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../../helpers/processes.ts';
import { buildEstate, bundleDecider, checkAccess, compileEstate, compileModules, enforcementRego, parseCatalog, parseManifest, regoValueFromJSON, regoValueToJSON } from '../../../src/index.ts';

const CREATED_AT = '2026-01-01T00:00:00Z';
const POLICY = { name: 'x.rego', text: 'package x\n\nallow if input.n > 1\n' };

// The consumer's script: plain ESM importing the package by name, printing what it found as JSON.
const CONSUMER_JS = `
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as toolgate from 'toolgate';
const example = new URL('./node_modules/toolgate/examples/quickstart/', import.meta.url);
const read = (name) => readFileSync(new URL(name, example), 'utf8');
const estate = toolgate.buildEstate(toolgate.parseManifest('governance.yaml', read('governance.yaml')), toolgate.parseCatalog('catalog.json', read('catalog.json')));
const compiled = await toolgate.compileEstate(estate, { profile: 'strict', createdAt: ${JSON.stringify(CREATED_AT)}, regoModules: toolgate.enforcementRego() });
const tarball = compiled.files.find((f) => f.name === 'bundle.tar.gz').bytes;
const decider = await toolgate.bundleDecider(tarball);
const policy = toolgate.compileModules([${JSON.stringify(POLICY)}]);
let internal;
try { await import('toolgate/dist/cli/main.js'); internal = 'importable'; } catch (e) { internal = e.code; }
console.log(JSON.stringify({
  verdict: toolgate.checkAccess(estate, 'ci-bot', 'git::git_show').verdict,
  files: compiled.files.map((f) => f.name),
  bundleSha256: createHash('sha256').update(tarball).digest('hex'),
  decision: decider.decide('ci-bot', 'git::git_show'),
  rego: toolgate.regoValueToJSON(policy.evalRule('data.x.allow', { input: toolgate.regoValueFromJSON({ n: 2 }) })),
  internal,
}));
`;

// A TypeScript consumer: correct use must type-check, and misuse must not (so the types are not `any`).
const CONSUMER_TS = `
import { checkAccess, type CheckAccessResult, type Estate, ToolgateError } from 'toolgate';
export function verdictOf(estate: Estate): CheckAccessResult['verdict'] {
  const r: CheckAccessResult = checkAccess(estate, 'ci-bot', 'git::git_show');
  return r.verdict;
}
export const code: string = new ToolgateError('USAGE', 'x').code;
// @ts-expect-error a verdict is a string union, not a number
export const wrong: number = verdictOf({} as Estate);
// @ts-expect-error internals are not exported
import { COMMANDS } from 'toolgate/dist/cli/registry.js';
`;

function run(cmd: string, args: readonly string[], cwd: string, timeout = 240_000, env: Record<string, string> = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env } });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the packed package', () => {
  let dir: string;
  let project: string;
  let tarball: string;
  let packed: string[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-pack-'));
    project = join(dir, 'consumer');
    const pack = run('npm', ['pack', '--json', '--pack-destination', dir], REPO);
    expect(pack.code, pack.stderr).toBe(0);
    const info = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    tarball = join(dir, info[0]!.filename);
    packed = info[0]!.files.map((f) => f.path);
    run('mkdir', ['-p', project], dir);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // Install scripts off: the package runs none, and the test must not depend on a native build.
    // Registry metadata comes from the local cache when it has it.
    const install = run('npm', ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball], project);
    expect(install.code, install.stderr).toBe(0);
  }, 300_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ships the compiled library, its types, the bin and run-time assets, and no tests, benches or sources', () => {
    for (const f of ['dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'dist/rego/builtins/opa-capabilities.json', 'dist/parse/schema-validators.cjs', 'bin/toolgate.cjs', 'rego/toolgate/authz.rego', 'schemas/governance.schema.json', 'examples/quickstart/governance.yaml', 'package.json']) {
      expect(packed).toContain(f);
    }
    const unwanted = packed.filter((p) => /^(src|test|bench|scripts|\.ci|node_modules)\//.test(p) || p.endsWith('_test.rego') || p.endsWith('.tgz') || p.startsWith('tsconfig'));
    expect(unwanted).toEqual([]);
  });

  it('imports and runs from plain Node, with the same results as the sources', async () => {
    writeFileSync(join(project, 'consumer.mjs'), CONSUMER_JS);
    const r = run(process.execPath, ['consumer.mjs'], project, 60_000);
    expect(r.code, r.stderr).toBe(0);
    const got = JSON.parse(r.stdout) as Record<string, unknown>;

    const example = join(REPO, 'examples/quickstart');
    const estate = buildEstate(parseManifest('governance.yaml', readFileSync(join(example, 'governance.yaml'), 'utf8')), parseCatalog('catalog.json', readFileSync(join(example, 'catalog.json'), 'utf8')));
    const compiled = await compileEstate(estate, { profile: 'strict', createdAt: CREATED_AT, regoModules: enforcementRego() });
    const bytes = compiled.files.find((f) => f.name === 'bundle.tar.gz')!.bytes;
    expect(got).toEqual({
      verdict: checkAccess(estate, 'ci-bot', 'git::git_show').verdict,
      files: compiled.files.map((f) => f.name),
      bundleSha256: createHash('sha256').update(bytes).digest('hex'),
      decision: JSON.parse(JSON.stringify((await bundleDecider(bytes)).decide('ci-bot', 'git::git_show'))),
      rego: regoValueToJSON(compileModules([POLICY]).evalRule('data.x.allow', { input: regoValueFromJSON({ n: 2 }) })!),
      internal: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
    });
    expect(got.verdict).toBe('DENY');
  });

  it("runs the README's library example as written", () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('\n## As a library\n'));
    const example = /```js\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example, 'README.md has a js block under "## As a library"').toBeDefined();
    for (const f of ['governance.yaml', 'catalog.json']) copyFileSync(join(REPO, 'examples/quickstart', f), join(project, f));
    writeFileSync(join(project, 'readme-example.mjs'), example!);
    const r = run(process.execPath, ['readme-example.mjs'], project, 60_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('DENY\nfalse\n');
  });

  it('type-checks a TypeScript consumer against the shipped declarations', () => {
    writeFileSync(join(project, 'consumer.ts'), CONSUMER_TS);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'], typeRoots: [join(REPO, 'node_modules/@types')] },
        files: ['consumer.ts'],
      }),
    );
    const r = run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', '.'], project, 120_000);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('runs its installed bin as compiled JS: --version and the README query', () => {
    const bin = join(project, 'node_modules/.bin/toolgate');
    const version = run(bin, ['--version'], project, 30_000);
    expect(version.stdout).toBe(`${JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version}\n`);
    const access = run(bin, ['check-access', 'ci-bot', 'git::git_show', '--example', 'quickstart'], project, 30_000);
    expect(access.code, access.stderr).toBe(0);
    expect(JSON.parse(access.stdout).verdict).toBe('DENY');
    expect(readFileSync(join(project, 'node_modules/toolgate/bin/toolgate.cjs'), 'utf8')).not.toContain('tsx');
  });

  it('decides through its installed bin on a bundle it compiled, cold and then from its cache, as the sources do', async () => {
    const bin = join(project, 'node_modules/.bin/toolgate');
    const out = join(dir, 'quickstart');
    const compiled = run(bin, ['compile', '--example', 'quickstart', '--out', out], project, 120_000, { SOURCE_DATE_EPOCH: '0' });
    expect(compiled.code, compiled.stderr).toBe(0);
    const cache = join(dir, 'cache');
    mkdirSync(cache, { mode: 0o700 });
    const expected = await bundleDecider(readFileSync(join(out, 'bundle.tar.gz')));
    for (const [agent, tool] of [['ci-bot', 'git::git_log'], ['ci-bot', 'git::git_show'], ['ci-bot', 'git::git_status'], ['nobody', 'git::git_show']] as const) {
      const want = expected.decide(agent, tool);
      for (const pass of ['cold', 'warm']) {
        const r = run(bin, ['decide', agent, tool, '--bundle', join(out, 'bundle.tar.gz')], project, 30_000, { TOOLGATE_CACHE_DIR: cache });
        expect(r.code, `${pass} ${agent} ${tool}: ${r.stderr}`).toBe(0);
        expect(JSON.parse(r.stdout).decision, `${pass} ${agent} ${tool}`).toEqual(want);
        // the package ships the certificate of the Rego its compile writes: even the first decide writes none
        expect(readdirSync(cache), `${pass} ${agent} ${tool}: the shipped certificate was used`).not.toContain('policy');
      }
    }
    expect(readdirSync(join(project, 'node_modules/toolgate/dist/policy-certificates')).length, 'the package ships a certificate').toBe(1);
  });
});
