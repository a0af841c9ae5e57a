/**
 * The malformed-input corpus (test/fixtures/malformed/): every input the CLI reads, broken in the
 * ways files break, each run through the CLI in-process. A case is `<input>/<name>.<CODE>.<ext>`
 * (CODE the ToolgateError code it must be refused with), `args.json` lists bad command lines, and
 * a generated part (fast-check, fixed seed) adds truncations, repeated keys, integers a double
 * cannot hold, wrong types, unknown keys and oversized files. Every case must give:
 * - the documented exit code (1 for a refused input, 2 for bad usage);
 * - a first stderr line `toolgate: error CODE at FILE[:line:col | (pointer)]: ...` naming the file
 *   the user gave, with a line:col or a JSON pointer unless the fault is the file as a whole;
 * - no stack trace and no "internal error";
 * - nothing on stdout, and the --out target (and its folder) exactly as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { copyFileSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../../helpers/cli.ts';

const CORPUS = resolve(import.meta.dirname, '../../fixtures/malformed');
const WINDOW = ['--window-start', '2026-01-01T00:00:00Z', '--window-end', '2026-01-02T00:00:00Z'];

interface Work {
  readonly dir: string;
  readonly base: (f: string) => string;
  /** The compile output folder (a link to its generation folder), made once before any case. */
  readonly outDir: string;
  /** A file that holds earlier output, for commands writing one file. */
  readonly outFile: string;
}

/** How each input is fed to the CLI: the argv that reads `file` (and the cwd, for toolgate.yaml). */
const SLOTS: Record<string, (file: string, w: Work) => { argv: string[]; cwd?: string; names: string }> = {
  manifest: (f, w) => ({ argv: ['compile', '--manifest', f, '--catalog', w.base('catalog.json'), '--out', w.outDir], names: f }),
  catalog: (f, w) => ({ argv: ['compile', '--manifest', w.base('governance.yaml'), '--catalog', f, '--out', w.outDir], names: f }),
  'host-graph': (f, w) => ({ argv: ['compile', '--manifest', w.base('governance.yaml'), '--catalog', w.base('catalog.json'), '--host-graph', f, '--out', w.outDir], names: f }),
  // crawl replaces only a catalog it wrote: its --out is a new file, which must not appear.
  servers: (f, w) => ({ argv: ['crawl', '--servers', f, '--out', join(w.outFile, '..', 'crawled.json')], names: f }),
  connectome: (f, w) => ({ argv: ['diff', '--declared', f, '--observed', w.base('observed.json'), '--window', w.base('window.json'), '--out', w.outFile], names: f }),
  window: (f, w) => ({ argv: ['diff', '--declared', w.base('declared.json'), '--observed', w.base('observed.json'), '--window', f, '--out', w.outFile], names: f }),
  groups: (f, w) => ({ argv: ['graph', 'collapse', '--graph', w.base('declared.json'), '--level', 'server', '--groups', f, '--out', w.outFile], names: f }),
  events: (f, w) => ({ argv: ['observe', '--events', f, ...WINDOW, '--out', w.outFile], names: f }),
  'decision-logs': (f, w) => ({ argv: ['observe', '--opa-decision-logs', f, '--out', w.outFile], names: f }),
  'sign-policy': (f, w) => ({ argv: ['sign', '--graph', w.base('declared.json'), '--policy', f, '--data', w.base('data.json'), '--out', w.outFile], names: f }),
  config: (f, w) => {
    const cwd = mkdtempSync(join(w.dir, 'config-'));
    copyFileSync(w.base('governance.yaml'), join(cwd, 'governance.yaml'));
    copyFileSync(w.base('catalog.json'), join(cwd, 'catalog.json'));
    copyFileSync(f, join(cwd, 'toolgate.yaml'));
    return { argv: ['compile', '--out', w.outDir], cwd, names: join(cwd, 'toolgate.yaml') };
  },
};

/** Faults about the file as a whole, where no line or pointer can be given. */
const WHOLE_FILE = /not-utf8|utf16|symlink|self-loop|dangling|folder|too-large|nul-byte/;

interface Case {
  readonly id: string;
  readonly slot: string;
  readonly file: string;
  readonly code: string;
}

function writtenCases(): Case[] {
  const cases: Case[] = [];
  for (const slot of Object.keys(SLOTS)) {
    for (const name of readdirSync(join(CORPUS, slot)).sort()) {
      const m = /^(.+)\.([A-Z_]+)\.[a-z]+$/.exec(name);
      if (!m) throw new Error(`corpus file ${slot}/${name} is not named <name>.<CODE>.<ext>`);
      cases.push({ id: `${slot}/${name}`, slot, file: join(CORPUS, slot, name), code: m[2]! });
    }
  }
  return cases;
}

// ---------- the generated part ----------

const JSON_BASES: Record<string, string> = { catalog: 'catalog.json', 'host-graph': 'host-graph.json', connectome: 'declared.json', window: 'window.json', manifest: 'governance.json' };

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** JSON text with one key of the object at `path` written twice (the second with another value). */
function withRepeatedKey(v: Json, pick: number): string | undefined {
  const objects: { [k: string]: Json }[] = [];
  const walk = (x: Json) => {
    if (Array.isArray(x)) x.forEach(walk);
    else if (x !== null && typeof x === 'object') {
      if (Object.keys(x).length > 0) objects.push(x);
      Object.values(x).forEach(walk);
    }
  };
  walk(v);
  if (objects.length === 0) return undefined;
  const target = objects[pick % objects.length]!;
  const key = Object.keys(target)[pick % Object.keys(target).length]!;
  const write = (x: Json, indent: string): string => {
    if (Array.isArray(x)) return `[${x.map((c) => write(c, `${indent} `)).join(', ')}]`;
    if (x !== null && typeof x === 'object') {
      const members = Object.entries(x).map(([k, c]) => `\n${indent} ${JSON.stringify(k)}: ${write(c, `${indent} `)}`);
      if (x === target) members.push(`\n${indent} ${JSON.stringify(key)}: "again"`);
      return `{${members.join(',')}\n${indent}}`;
    }
    return JSON.stringify(x);
  };
  return write(v, '');
}

/** JSON text with a member holding an integer beyond 2^53 that a double cannot hold, added to the root. */
function withHugeInteger(text: string, digits: bigint): string {
  const n = String(2n ** 53n + 1n + digits * 2n);
  return text.replace(/^\s*\{/, `{"x_number": ${n},`);
}

/** `diff` reports a fault in any of its files as DIFF_REFUSED, naming the side. */
function wrapped(slot: string, code: string): string {
  return slot === 'connectome' || slot === 'window' ? 'DIFF_REFUSED' : code;
}

function generatedCases(dir: string, w: Work): Case[] {
  const out: Case[] = [];
  const write = (name: string, bytes: string | Buffer) => {
    const f = join(dir, name);
    writeFileSync(f, bytes);
    return f;
  };
  const seed = 20261201;
  for (const [slot, baseName] of Object.entries(JSON_BASES)) {
    const text = readFileSync(w.base(baseName), 'utf8');
    const value = JSON.parse(text) as Json;
    const ext = slot === 'manifest' ? 'json' : 'json';
    const body = text.trimEnd();
    fc.sample(fc.integer({ min: 1, max: Math.max(1, body.length - 1) }), { seed, numRuns: 8 }).forEach((cut, i) => {
      out.push({ id: `generated ${slot} truncated at ${cut} (#${i})`, slot, file: write(`${slot}-cut-${i}.${ext}`, body.slice(0, cut)), code: wrapped(slot, 'PARSE_ERROR') });
    });
    fc.sample(fc.nat(), { seed: seed + 1, numRuns: 6 }).forEach((pick, i) => {
      const t = withRepeatedKey(value, pick);
      if (t !== undefined) out.push({ id: `generated ${slot} repeated key (#${i}, pick ${pick})`, slot, file: write(`${slot}-dup-${i}.${ext}`, t), code: wrapped(slot, 'PARSE_ERROR') });
    });
    // Connectome inputs keep such an integer exactly, so the unknown member it sits in is refused.
    const bigCode = { catalog: 'PARSE_ERROR', manifest: 'PARSE_ERROR', 'host-graph': 'GRAPH_INVALID', connectome: 'DIFF_REFUSED' }[slot] ?? '';
    // A window is carried verbatim, an exact big integer included.
    if (slot !== 'window') fc.sample(fc.bigInt({ min: 0n, max: 2n ** 70n }), { seed: seed + 2, numRuns: 4 }).forEach((d, i) => {
      out.push({ id: `generated ${slot} integer past 2^53 (#${i})`, slot, file: write(`${slot}-big-${i}.${ext}`, withHugeInteger(text, d)), code: bigCode });
    });
  }
  // Manifest YAML: wrong types and unknown keys at the top level, repeated top-level keys.
  const manifest = readFileSync(w.base('governance.yaml'), 'utf8');
  const wrongValue = fc.oneof(fc.integer(), fc.boolean(), fc.constant('{a: 1}'), fc.constant('"text"'), fc.constant('null'));
  fc.sample(fc.tuple(fc.constantFrom('agents', 'policies', 'grants', 'data_access', 'governed_by'), wrongValue), { seed: seed + 3, numRuns: 12 }).forEach(([key, v], i) => {
    const t = manifest.replace(new RegExp(`^${key}:[^\\n]*(\\n  [^\\n]*)*`, 'm'), `${key}: ${String(v)}`);
    out.push({ id: `generated manifest ${key} of a wrong type (${String(v)})`, slot: 'manifest', file: write(`m-type-${i}.yaml`, t), code: 'MANIFEST_INVALID' });
  });
  fc.sample(fc.stringMatching(/^[a-z][a-z_]{2,10}$/).filter((k) => !['agents', 'policies', 'grants', 'data_access', 'governed_by', 'expected_exceptions', 'identity', 'gateways', 'schema_version', 'kind', 'version', 'resources', 'tool_groups'].includes(k)), { seed: seed + 4, numRuns: 8 }).forEach((key, i) => {
    out.push({ id: `generated manifest unknown top-level key ${key}`, slot: 'manifest', file: write(`m-unknown-${i}.yaml`, `${manifest}${key}: 1\n`), code: 'MANIFEST_INVALID' });
  });
  fc.sample(fc.constantFrom('agents', 'policies', 'grants', 'data_access', 'governed_by'), { seed: seed + 5, numRuns: 5 }).forEach((key, i) => {
    out.push({ id: `generated manifest ${key} written twice (#${i})`, slot: 'manifest', file: write(`m-twice-${i}.yaml`, `${manifest}${key}: []\n`), code: 'PARSE_ERROR' });
  });
  // Events: a valid line, then one broken line at a random place.
  const goodLine = '{"server":"git","kind":"invoke","target":"show"}';
  fc.sample(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: goodLine.length - 1 })), { seed: seed + 6, numRuns: 8 }).forEach(([before, cut], i) => {
    const lines = [...Array<string>(before).fill(goodLine), goodLine.slice(0, cut), goodLine];
    out.push({ id: `generated events line ${before + 1} truncated at ${cut}`, slot: 'events', file: write(`e-cut-${i}.jsonl`, `${lines.join('\n')}\n`), code: 'OBSERVATION_INVALID' });
  });
  // Files over the input size limit (sparse: nothing is written to disk).
  for (const slot of ['manifest', 'catalog', 'servers', 'host-graph', 'events', 'connectome']) {
    const f = write(`${slot}-too-large.${slot === 'manifest' || slot === 'servers' ? 'yaml' : slot === 'events' ? 'jsonl' : 'json'}`, '');
    truncateSync(f, 300 * 1024 * 1024);
    out.push({ id: `generated ${slot} too-large (300 MB)`, slot, file: f, code: 'INPUT_TOO_LARGE' });
  }
  return out;
}

// ---------- the checks ----------

/** Everything under `p` (following the output link), with bytes, plus the folder around it. */
function snapshot(p: string): string {
  const parts: string[] = [];
  const folder = resolve(p, '..');
  for (const name of readdirSync(folder).sort()) {
    const full = join(folder, name);
    const st = lstatSync(full);
    parts.push(`${name}:${st.isSymbolicLink() ? `link ${readlinkSync(full)}` : st.isDirectory() ? 'dir' : st.size}`);
  }
  const walk = (q: string) => {
    const st = statSync(q);
    if (st.isDirectory()) for (const n of readdirSync(q).sort()) walk(join(q, n));
    else parts.push(`${q}=${readFileSync(q).toString('base64')}`);
  };
  walk(p);
  return parts.join('\n');
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('the malformed-input corpus', () => {
  let work: Work;
  let generated: Case[] = [];
  const written = writtenCases();
  const args = JSON.parse(readFileSync(join(CORPUS, 'args.json'), 'utf8')) as { argv: string[]; why: string }[];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-corpus-'));
    const baseDir = join(dir, 'base');
    mkdirSync(baseDir);
    for (const f of readdirSync(join(CORPUS, 'base'))) copyFileSync(join(CORPUS, 'base', f), join(baseDir, f));
    // The JSON form of the base manifest, for the generated JSON-manifest cases.
    const yamlManifest = (await import('js-yaml')).load(readFileSync(join(baseDir, 'governance.yaml'), 'utf8'));
    writeFileSync(join(baseDir, 'governance.json'), JSON.stringify(yamlManifest, null, 2));
    const outDir = join(dir, 'out', 'compiled');
    mkdirSync(join(dir, 'out'));
    const r = await runCli(['compile', '--manifest', join(baseDir, 'governance.yaml'), '--catalog', join(baseDir, 'catalog.json'), '--out', outDir], { env: { SOURCE_DATE_EPOCH: '0' } });
    expect(r.code, r.stderr).toBe(0);
    copyFileSync(join(outDir, 'data.json'), join(baseDir, 'data.json'));
    const outFile = join(dir, 'single', 'previous.json');
    mkdirSync(join(dir, 'single'));
    writeFileSync(outFile, '{"previous": true}\n');
    work = { dir, base: (f) => join(baseDir, f), outDir, outFile };
    const genDir = join(dir, 'generated');
    mkdirSync(genDir);
    generated = generatedCases(genDir, work);
  });
  afterAll(() => {
    if (work) rmSync(work.dir, { recursive: true, force: true });
  });

  it('holds at least 300 cases across every input', () => {
    expect(written.length + generated.length + args.length).toBeGreaterThanOrEqual(300);
    for (const slot of Object.keys(SLOTS)) expect(written.some((c) => c.slot === slot), slot).toBe(true);
  });

  const check = async (c: Case) => {
    const { argv, cwd, names } = SLOTS[c.slot]!(c.file, work);
    const before = [snapshot(work.outDir), snapshot(work.outFile)];
    const r = await runCli(argv, { env: { SOURCE_DATE_EPOCH: '0' }, ...(cwd ? { cwd } : {}) });
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    const first = lines[0] ?? '';
    const context = `${c.id}\n${r.stderr}`;
    expect(r.code, context).toBe(c.code === 'USAGE' ? 2 : 1);
    expect(first, context).toMatch(new RegExp(`^toolgate: error ${c.code} at `));
    // The file as given, then a line:col or a pointer (unless the fault is the whole file).
    const located = new RegExp(`at ${escapeRe(names)}(:\\d+(:\\d+)?| \\([^)]+\\))`);
    if (WHOLE_FILE.test(c.id) || c.code === 'FILE_UNREADABLE') expect(first, context).toContain(`at ${names}`);
    else expect(first, context).toMatch(located);
    for (const l of lines.slice(1)) expect(l, context).toMatch(/^ {2}\S/); // only indented detail lines follow
    expect(r.stderr, context).not.toMatch(/internal error|\n\s+at .+:\d+:\d+\)?\n|<value>|<graph>|<json>/);
    expect(r.stdout, context).toBe('');
    expect([snapshot(work.outDir), snapshot(work.outFile)], context).toEqual(before);
  };

  it.each(written.map((c) => [c.id, c] as const))('written: %s', async (_id, c) => check(c));

  it('generated: truncations, repeated keys, huge integers, wrong types, unknown keys, oversized files', async () => {
    expect(generated.length).toBeGreaterThan(100);
    for (const c of generated) await check(c);
  }, 120_000);

  it.each(args.map((a) => [a.why, a] as const))('command line: %s', async (_why, a) => {
    const cwd = mkdtempSync(join(work.dir, 'args-'));
    const r = await runCli(a.argv, { cwd, env: {} });
    const first = r.stderr.split('\n')[0] ?? '';
    expect(r.code, r.stderr).toBe(2);
    expect(first, r.stderr).toMatch(/^toolgate: (error USAGE|unknown command)/);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at .+:\d+:\d+\)?\n/);
    expect(readdirSync(cwd)).toEqual([]);
  });
});
