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
import { generateKeyPairSync } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { readTarball } from '../../../src/bundle/read-tarball.ts';
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
  'review-report': (f) => ({ argv: ['review-candidates', 'list', f], names: f }),
  export: (f, w) => ({ argv: ['graph', 'export', '--graph', f, '--format', 'graphml', '--out', w.outFile], names: f }),
  groups: (f, w) => ({ argv: ['graph', 'collapse', '--graph', w.base('declared.json'), '--level', 'server', '--groups', f, '--out', w.outFile], names: f }),
  events: (f, w) => ({ argv: ['observe', '--events', f, ...WINDOW, '--out', w.outFile], names: f }),
  'decision-logs': (f, w) => ({ argv: ['observe', '--opa-decision-logs', f, '--out', w.outFile], names: f }),
  'sign-policy': (f, w) => ({ argv: ['sign', '--graph', w.base('declared.json'), '--policy', f, '--data', w.base('data.json'), '--out', w.outFile], names: f }),
  'sign-data': (f, w) => ({ argv: ['sign', '--graph', w.base('declared.json'), '--policy', w.base('signs.rego'), '--data', f, '--out', w.outFile], names: f }),
  bundle: (f) => ({ argv: ['decide', 'bot', 'git::show', '--bundle', f], names: f }),
  signatures: (f, w) => ({ argv: ['bundle', 'verify', f, '--verification-key', w.base('key.pub.pem')], names: f }),
  config: (f, w) => {
    const cwd = mkdtempSync(join(w.dir, 'config-'));
    copyFileSync(w.base('governance.yaml'), join(cwd, 'governance.yaml'));
    copyFileSync(w.base('catalog.json'), join(cwd, 'catalog.json'));
    copyFileSync(f, join(cwd, 'toolgate.yaml'));
    return { argv: ['compile', '--out', w.outDir], cwd, names: join(cwd, 'toolgate.yaml') };
  },
};

/** Faults about the file as a whole, where no line or pointer can be given. */
const WHOLE_FILE = /not-utf8|utf16|symlink|self-loop|dangling|folder|too-large|nul-byte|whole:/;

interface Case {
  readonly id: string;
  readonly slot: string;
  readonly file: string;
  readonly code: string;
}

/** Inputs made only by the test (tarballs are built from the compiled bundle). */
const GENERATED_ONLY = new Set(['bundle', 'signatures']);

function writtenCases(): Case[] {
  const cases: Case[] = [];
  for (const slot of Object.keys(SLOTS).filter((s) => !GENERATED_ONLY.has(s))) {
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

// ---------- bundle tarballs and their signatures ----------

interface Entry {
  readonly name: string;
  readonly body: string | Uint8Array;
}

async function tarGz(entries: readonly Entry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c: unknown) => chunks.push(c as Buffer));
  const done = new Promise<void>((res) => pack.on('end', () => res()));
  for (const e of entries) {
    await new Promise<void>((res, rej) => pack.entry({ name: e.name, mode: 0o644, mtime: new Date(0) }, Buffer.from(e.body), (err) => (err ? rej(err) : res())));
  }
  pack.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

const b64url = (s: string) => Buffer.from(s).toString('base64url');

async function bundleCases(dir: string, w: Work): Promise<Case[]> {
  const good = (await readTarball(readFileSync(join(w.outDir, 'bundle.tar.gz')), 'bundle.tar.gz')).map((f) => ({ name: f.name, body: f.bytes }) as Entry);
  const replace = (name: string, body: string) => good.map((e) => (e.name === name ? { name, body } : e));
  const out: Case[] = [];
  const add = async (slot: 'bundle' | 'signatures', id: string, code: string, bytes: Buffer | Promise<Buffer>) => {
    const f = join(dir, `${slot}-${out.length}.tar.gz`);
    writeFileSync(f, await bytes);
    out.push({ id: `${slot} ${id}`, slot, file: f, code });
  };
  const gz = readFileSync(join(w.outDir, 'bundle.tar.gz'));
  await add('bundle', 'whole: empty file', 'BUNDLE_INVALID', Buffer.alloc(0));
  await add('bundle', 'whole: not gzip', 'BUNDLE_INVALID', Buffer.from('this is not a tarball\n'));
  await add('bundle', 'whole: gzip cut in half', 'BUNDLE_INVALID', gz.subarray(0, gz.length >> 1));
  await add('bundle', 'whole: gzip of text, not tar', 'BUNDLE_INVALID', gzipSync(Buffer.from('plain text, no tar headers at all'.repeat(40))));
  await add('bundle', 'entry climbing out with ..', 'BUNDLE_INVALID', tarGz([...good, { name: '../escape.rego', body: 'package x' }]));
  await add('bundle', 'absolute entry path', 'BUNDLE_INVALID', tarGz([...good, { name: '/etc/toolgate.rego', body: 'package x' }]));
  // (A symlink entry is not here: OPA's loader skips entries that are not regular files, and so does toolgate's.)
  await add('bundle', 'an entry twice', 'BUNDLE_INVALID', tarGz([...good, good.find((e) => e.name === 'toolgate/data.json')!]));
  // (A repeated key in data.json is not here: OPA's loader, Go's JSON, takes the last, and so does toolgate's.)
  await add('bundle', 'data.json truncated', 'BUNDLE_INVALID', tarGz(replace('toolgate/data.json', '{"toolgate": {"agents": ')));
  await add('bundle', '.manifest not JSON', 'BUNDLE_INVALID', tarGz(replace('.manifest', '{revision: 1}')));
  await add('bundle', '.manifest roots a string', 'BUNDLE_INVALID', tarGz(replace('.manifest', '{"revision": "r", "roots": "toolgate"}')));
  await add('bundle', 'a Rego module that does not parse', 'BUNDLE_INVALID', tarGz([...good, { name: 'toolgate/broken.rego', body: 'package toolgate.broken\n\nallow if {\n' }]));
  const signed = (sigs: string) => tarGz([...good, { name: '.signatures.json', body: sigs }]);
  await add('signatures', 'whole: no .signatures.json', 'BUNDLE_VERIFY_FAILED', tarGz(good));
  await add('signatures', '.signatures.json not JSON', 'BUNDLE_VERIFY_FAILED', signed('{signatures: [}'));
  await add('signatures', '.signatures.json with a repeated key', 'BUNDLE_VERIFY_FAILED', signed('{"signatures": [], "signatures": ["x"]}'));
  await add('signatures', 'signatures null', 'BUNDLE_VERIFY_FAILED', signed('{"signatures": null}'));
  await add('signatures', 'signatures empty', 'BUNDLE_VERIFY_FAILED', signed('{"signatures": []}'));
  await add('signatures', 'a token that is not a JWT', 'BUNDLE_VERIFY_FAILED', signed('{"signatures": ["not-a-jwt"]}'));
  await add('signatures', 'a JWT whose payload is null', 'BUNDLE_VERIFY_FAILED', signed(JSON.stringify({ signatures: [`${b64url('{"alg":"RS256"}')}.${b64url('null')}.${b64url('sig')}`] })));
  await add('signatures', 'a JWT whose header is not JSON', 'BUNDLE_VERIFY_FAILED', signed(JSON.stringify({ signatures: [`${b64url('{alg')}.${b64url('{}')}.${b64url('sig')}`] })));
  await add('signatures', 'a JWT with a forged signature', 'BUNDLE_VERIFY_FAILED', signed(JSON.stringify({ signatures: [`${b64url('{"alg":"RS256"}')}.${b64url('{"files":[]}')}.${b64url('forged')}`] })));
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
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(join(baseDir, 'key.pub.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
    generated = [...generatedCases(genDir, work), ...(await bundleCases(genDir, work))];
  });
  afterAll(() => {
    if (work) rmSync(work.dir, { recursive: true, force: true });
  });

  it('holds at least 300 cases across every input', () => {
    expect(written.length + generated.length + args.length).toBeGreaterThanOrEqual(300);
    for (const slot of Object.keys(SLOTS)) expect([...written, ...generated].some((c) => c.slot === slot), slot).toBe(true);
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
    // Every case is run and every failure reported, not only the first.
    const failures: string[] = [];
    for (const c of generated) {
      try {
        await check(c);
      } catch (e) {
        failures.push((e as Error).message.split('\n').slice(0, 3).join(' | '));
      }
    }
    expect(failures).toEqual([]);
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
