/**
 * Crafted bundle tarballs through the real OPA (`opa run --server --skip-verify --bundle B`: an exit
 * is a refusal, otherwise GET /v1/data and /v1/policies say what was loaded) and through toolgate
 * (readTarball + loadBundle). Both must refuse, or both load the same data document and the same
 * set of modules. OPA's answer is taken at test time, never written down here. Cases marked
 * `deliberate` are the documented differences (read-tarball.ts, load.ts): OPA must load them and
 * toolgate must refuse them.
 */
import { it, expect } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync, deflateRawSync } from 'node:zlib';
import { describeWithOpa, startOpaServer } from '../../helpers/opa.ts';
import { runCli } from '../../helpers/cli.ts';
import { readTarball } from '../../../src/bundle/read-tarball.ts';
import { loadBundle, type LoadedBundle } from '../../../src/bundle/load.ts';
import { loadPolicy } from '../../../src/engines/engine.ts';
import { ToolgateError } from '../../../src/errors.ts';

// ---- hand-assembled tar ------------------------------------------------------------------------

interface HeaderOptions {
  type?: string | number;
  size?: number;
  linkname?: string;
  prefix?: string;
  badChecksum?: boolean;
  /** Raw text written over the size and mode fields (12 and 8 bytes), instead of the octal Go writes. */
  sizeField?: string;
  modeField?: string;
}

function header(name: string, o: HeaderOptions = {}): Buffer {
  const b = Buffer.alloc(512);
  b.write(name, 0, 100, 'utf8');
  b.write('0000644\0', 100);
  b.write('0000000\0', 108);
  b.write('0000000\0', 116);
  b.write((o.size ?? 0).toString(8).padStart(11, '0') + '\0', 124);
  b.write('00000000000\0', 136);
  b.write('        ', 148);
  const t = o.type ?? '0';
  b[156] = typeof t === 'number' ? t : t.charCodeAt(0);
  b.write(o.linkname ?? '', 157, 100);
  b.write('ustar\u000000', 257, 8, 'latin1');
  b.write(o.prefix ?? '', 345, 155);
  if (o.sizeField !== undefined) b.write(o.sizeField.padEnd(12, '\0'), 124, 12, 'latin1');
  if (o.modeField !== undefined) b.write(o.modeField.padEnd(8, '\0'), 100, 8, 'latin1');
  let sum = 0;
  for (const c of b) sum += c;
  if (o.badChecksum) sum += 1;
  b.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return b;
}

function pad(n: number): Buffer {
  return Buffer.alloc((512 - (n % 512)) % 512);
}

/** One tar entry: header, body, padding. */
function ent(name: string, body: string | Buffer = '', o: HeaderOptions = {}): Buffer {
  const data = typeof body === 'string' ? Buffer.from(body) : body;
  return Buffer.concat([header(name, { size: data.length, ...o }), data, pad(data.length)]);
}

function paxRecords(recs: Record<string, string>): Buffer {
  let s = '';
  for (const [k, v] of Object.entries(recs)) {
    const rest = ` ${k}=${v}\n`;
    let n = Buffer.byteLength(rest) + 1;
    while (String(n).length + Buffer.byteLength(rest) !== n) n++;
    s += `${n}${rest}`;
  }
  return Buffer.from(s);
}

const END = Buffer.alloc(1024);
const gz = (...parts: Buffer[]) => gzipSync(Buffer.concat(parts));
const P = (pkg: string) => `package ${pkg}\n\nx := 1\n`;

// ---- the cases ------------------------------------------------------------------------------------

interface Case {
  readonly name: string;
  readonly bytes: Buffer;
  /** A documented difference: OPA loads it, toolgate refuses it. */
  readonly deliberate?: true;
}

const cases: Case[] = [
  { name: 'data and a module', bytes: gz(ent('/data.json', '{"a":{"b":1}}'), ent('/p/x.rego', P('p')), END) },
  { name: 'entries after the end-of-archive marker are not read', bytes: gz(ent('/data.json', '{"a":1}'), END, ent('/b/data.json', '{"z":1}'), END) },
  { name: 'garbage after the gzip member', bytes: Buffer.concat([gz(ent('/data.json', '{"a":1}'), END), Buffer.from('garbage after the member')]) },
  { name: 'a second gzip member after the marker', bytes: Buffer.concat([gz(ent('/data.json', '{"a":1}'), END), gz(ent('/b/data.json', '{"z":1}'), END)]) },
  { name: 'the tar continues into a second gzip member', bytes: Buffer.concat([gz(ent('/data.json', '{"a":1}')), gz(ent('/b/data.json', '{"z":1}'), END)]) },
  { name: 'no end-of-archive marker', bytes: gz(ent('/data.json', '{"a":1}')) },
  { name: 'one zero block at the end', bytes: gz(ent('/data.json', '{"a":1}'), Buffer.alloc(512)) },
  { name: 'a zero block then another entry', bytes: gz(ent('/data.json', '{"a":1}'), Buffer.alloc(512), ent('/b/data.json', '{"z":1}'), END) },
  {
    name: 'bad CRC on the member that ends with the marker',
    bytes: (() => {
      const b = gz(ent('/data.json', '{"a":1}'), END);
      b[b.length - 6]! ^= 0xff;
      return b;
    })(),
  },
  {
    name: 'bad CRC on a member the tar continues past',
    bytes: (() => {
      const first = gz(ent('/data.json', '{"a":1}'));
      first[first.length - 6]! ^= 0xff;
      return Buffer.concat([first, gz(ent('/b/data.json', '{"z":1}'), END)]);
    })(),
  },
  {
    name: 'corrupt deflate data',
    bytes: (() => {
      const b = gz(ent('/data.json', '{"a":1}'), ent('/p/x.rego', P('p')), END);
      for (let i = 12; i < 40; i++) b[i] = 0xff;
      return b;
    })(),
  },
  { name: 'a plain (uncompressed) tar', bytes: Buffer.concat([ent('/data.json', '{"a":1}'), END]) },
  { name: 'a raw deflate stream without gzip framing', bytes: deflateRawSync(Buffer.concat([ent('/data.json', '{"a":1}'), END])) },
  { name: 'file data cut short', bytes: gz(ent('/data.json', '{"a":1}'), header('/b/data.json', { size: 4000 }), Buffer.from('{"z":')) },
  { name: 'a size field padded with spaces and NULs around its digits', bytes: gz(ent('/data.json', '{"a":1}', { sizeField: '  7 \0 ' }), END) },
  { name: 'a size field cut at a NUL inside it', bytes: gz(ent('/data.json', '{"a":1}', { sizeField: '7\0 99' }), END) },
  { name: 'a size field with a digit that is not octal', bytes: gz(ent('/data.json', '{"a":1}', { sizeField: '00000000008' }), END) },
  { name: 'a mode field of spaces only', bytes: gz(ent('/data.json', '{"a":1}', { modeField: '        ' }), END) },
  { name: 'a mode field with a sign', bytes: gz(ent('/data.json', '{"a":1}', { modeField: '+644' }), END) },
  { name: 'a header with a bad checksum', bytes: gz(ent('/data.json', '{"a":1}'), ent('/b/data.json', '{"z":1}', { badChecksum: true }), END) },
  { name: 'symbolic and hard links are skipped', bytes: gz(ent('/l', '', { type: '2', linkname: '/etc/passwd' }), ent('/h', '', { type: '1', linkname: '/data.json' }), ent('/data.json', '{"a":1}'), END) },
  { name: 'a symlink header claiming a size carries no data', bytes: gz(header('/l', { type: '2', size: 600 }), ent('/data.json', '{"a":1}'), END) },
  { name: 'devices, FIFOs and directories are skipped', bytes: gz(ent('/c', '', { type: '3' }), ent('/b', '', { type: '4' }), ent('/f', '', { type: '6' }), ent('/d/', '', { type: '5' }), ent('/d/data.json', '{"a":1}'), END) },
  { name: 'a contiguous file (type 7) is not a regular file', bytes: gz(ent('/data.json', '{"a":1}', { type: '7' }), ent('/p/x.rego', P('p')), END) },
  { name: 'the legacy NUL type is a regular file', bytes: gz(ent('/data.json', '{"a":1}', { type: 0 }), END) },
  { name: 'an unknown type flag is skipped', bytes: gz(ent('/data.json', '{"a":1}', { type: 'Z' }), ent('/b/data.json', '{"z":1}'), END) },
  { name: 'a PAX path record renames the next entry', bytes: gz(ent('/PaxHeaders/x', paxRecords({ path: '/renamed/data.json' }), { type: 'x' }), ent('/other/data.json', '{"a":1}'), END) },
  { name: 'a PAX global header is skipped', bytes: gz(ent('/pax_global_header', paxRecords({ comment: 'hi' }), { type: 'g' }), ent('/data.json', '{"a":1}'), END) },
  { name: 'a GNU long name', bytes: gz(ent('././@LongLink', `/${'d'.repeat(120)}/data.json\0`, { type: 'L' }), ent('/short', '{"a":1}'), END) },
  { name: 'a ustar prefix field', bytes: gz(ent('data.json', '{"a":1}', { prefix: 'pre/fix' }), END) },
  { name: 'names with "./" and without a leading slash', bytes: gz(ent('./data.json', '{"a":1}'), ent('./p/x.rego', P('p')), ent('q/y.rego', P('q')), END) },
  { name: 'a ".." name', bytes: gz(ent('../q/data.json', '{"a":1}'), END), deliberate: true },
  { name: 'a backslash in a name', bytes: gz(ent('/a\\b/data.json', '{"a":1}'), END), deliberate: true },
  { name: 'two data.json entries with one name', bytes: gz(ent('/data.json', '{"a":1}'), ent('/data.json', '{"b":1}'), END), deliberate: true },
  { name: 'a hidden folder: data mounts without the dot, modules load', bytes: gz(ent('/.h/data.json', '{"a":1}'), ent('/.h/x.rego', P('h')), END) },
  { name: 'files OPA ignores', bytes: gz(ent('/x.data.json', '{"a":1}'), ent('/data.JSON', '{"b":1}'), ent('/README', 'hi'), ent('/plan.json', 'not json'), ent('/data.json', '{"c":1}'), END) },
  { name: 'YAML data files', bytes: gz(ent('/a/data.yml', 'x: yes\ny: 012\nz: 0x1F\nw: 2001-12-14\nl: [1, two]\n'), ent('/b/data.yaml', 'base: &b {k: 1}\nm:\n  <<: *b\n  j: 2\n'), END) },
  { name: 'a BOM in data.json', bytes: gz(ent('/data.json', '\ufeff{"a":1}'), END) },
  { name: 'a BOM in data.yaml', bytes: gz(ent('/a/data.yaml', '\ufeffk: v\n'), END) },
  { name: 'content after the value in data.json', bytes: gz(ent('/data.json', '{"a":1} {"b":2}'), END) },
  { name: 'a root data.json that is an array', bytes: gz(ent('/data.json', '[1]'), END) },
  { name: 'colliding data files', bytes: gz(ent('/data.json', '{"a":{"b":1}}'), ent('/a/b/data.json', '{"c":1}'), END) },
  { name: 'data files that merge', bytes: gz(ent('/data.json', '{"a":{"b":{"k":1}}}'), ent('/a/b/c/data.json', '{"d":2}'), ent('/a/data.json', '{"e":3}'), END) },
  { name: 'invalid UTF-8 and a lone surrogate in data strings', bytes: gz(ent('/data.json', Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xf0, 0x9f, 0x98, 0xff]), Buffer.from('","b":"\\ud800x","c":"\\ud83d\\ude00"}')])), END) },
  { name: 'data outside the manifest roots', bytes: gz(ent('/.manifest', '{"roots":["a"]}'), ent('/b/data.json', '{"z":1}'), END) },
  { name: 'a package outside the manifest roots', bytes: gz(ent('/.manifest', '{"roots":["a"]}'), ent('/b/x.rego', P('b')), END) },
  { name: 'overlapping roots', bytes: gz(ent('/.manifest', '{"roots":["a","a/b"]}'), END) },
  { name: 'roots with slashes around them', bytes: gz(ent('/.manifest', '{"roots":["/a/b/","c"]}'), ent('/a/b/data.json', '{"z":1}'), ent('/x.rego', P('c.d')), END) },
  { name: 'an empty object outside the roots passes and is dropped', bytes: gz(ent('/.manifest', '{"roots":["a/b"]}'), ent('/a/c/data.json', '{}'), END) },
  { name: 'content after the manifest object', bytes: gz(ent('/.manifest', '{"roots":["a"]} trailing'), ent('/a/data.json', '{"z":1}'), END) },
  { name: 'manifest keys match case-insensitively', bytes: gz(ent('/.manifest', '{"ROOTS":["a"]}'), ent('/b/data.json', '{"z":1}'), END) },
  { name: 'two manifests', bytes: gz(ent('/.manifest', '{"roots":["a"]}'), ent('/z/.manifest', '{}'), END) },
  { name: 'an empty manifest', bytes: gz(ent('/.manifest', ''), ent('/data.json', '{"a":1}'), END) },
  { name: 'a manifest revision that is a number', bytes: gz(ent('/.manifest', '{"revision":1}'), END) },
  { name: 'rego_version 0 with a v0 module', bytes: gz(ent('/.manifest', '{"rego_version":0}'), ent('/x.rego', 'package p\n\nallow { true }\n'), END) },
  { name: 'rego_version 2 with a module', bytes: gz(ent('/.manifest', '{"rego_version":2}'), ent('/x.rego', P('p')), END), deliberate: true },
  { name: 'rego_version 3 with a module', bytes: gz(ent('/.manifest', '{"rego_version":3}'), ent('/x.rego', P('p')), END) },
  { name: 'overlapping file_rego_versions globs: the first in sorted order wins', bytes: gz(ent('/.manifest', '{"file_rego_versions":{"/b/*":1,"/*":0}}'), ent('/b/x.rego', 'package b\n\nallow { true }\n'), END) },
  { name: 'rego_version 2 without modules', bytes: gz(ent('/.manifest', '{"rego_version":2}'), ent('/data.json', '{"a":1}'), END) },
  { name: 'rego_version as a string', bytes: gz(ent('/.manifest', '{"rego_version":"1"}'), END) },
  { name: 'file_rego_versions makes one module v0', bytes: gz(ent('/.manifest', '{"rego_version":1,"file_rego_versions":{"/old/*.rego":0}}'), ent('/old/x.rego', 'package old\n\nallow { true }\n'), ent('/y.rego', P('y')), END) },
  { name: 'a module with a BOM', bytes: gz(ent('/x.rego', '\ufeff' + P('p')), END) },
  { name: 'a module with invalid UTF-8', bytes: gz(ent('/x.rego', Buffer.concat([Buffer.from('package p\n\nx := "'), Buffer.from([0xff]), Buffer.from('"\n')])), END) },
  { name: 'a module that does not parse', bytes: gz(ent('/x.rego', 'package p\n\nx := \n'), END) },
  { name: 'a manifest naming a wasm module that is absent', bytes: gz(ent('/.manifest', '{"wasm":[{"entrypoint":"p/x","module":"/policy.wasm"}]}'), END) },
  { name: 'an unreadable .signatures.json (verification skipped)', bytes: gz(ent('/.signatures.json', 'not json'), ent('/data.json', '{"a":1}'), END) },
  { name: 'a delta bundle', bytes: gz(ent('/patch.json', '{"data":[{"op":"upsert","path":"/a","value":1}]}'), ent('/.manifest', '{"roots":["a"]}'), END), deliberate: true },
];

// ---- running both ---------------------------------------------------------------------------------

type Outcome = { ok: false; why: string } | { ok: true; data: unknown; modules: string[] };

async function viaOpa(path: string): Promise<Outcome> {
  let server;
  try {
    server = await startOpaServer(['--skip-verify', '--bundle', path]);
  } catch (e) {
    return { ok: false, why: (e as Error).message };
  }
  try {
    const data = ((await (await fetch(`${server.url}/v1/data`)).json()) as { result: unknown }).result;
    const ids = ((await (await fetch(`${server.url}/v1/policies`)).json()) as { result: { id: string }[] }).result.map((p) => p.id);
    return { ok: true, data, modules: ids.map((id) => (id.startsWith(`${path}/`) ? id.slice(path.length + 1) : id)).sort() };
  } finally {
    await server.stop();
  }
}

/** Deep-merges objects (the test's packages per rego version are disjoint). */
function merged(a: unknown, b: unknown): unknown {
  if (typeof a !== 'object' || a === null || Array.isArray(a) || typeof b !== 'object' || b === null || Array.isArray(b)) return b;
  const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
  for (const [k, v] of Object.entries(b)) out[k] = k in out ? merged(out[k], v) : v;
  return out;
}

/**
 * OPA's GET /v1/data answers with base and virtual documents together, so toolgate's side is the
 * loaded data evaluated with the loaded modules (builtin engine, one load per rego version).
 */
async function dataWithRules(loaded: LoadedBundle): Promise<unknown> {
  let out: unknown = JSON.parse(JSON.stringify(loaded.data));
  for (const v of ['v0', 'v1'] as const) {
    const mods = loaded.modules.filter((m) => m.regoVersion === v);
    if (mods.length === 0) continue;
    const policy = await loadPolicy({ kind: 'rego', modules: mods.map((m) => ({ name: m.id, text: m.text })), regoVersion: v }, { engine: 'builtin' });
    policy.setData(loaded.data);
    const ev = policy.evaluate(null, 'data');
    out = merged(out, ev.defined && ev.type !== 'multiple' ? ev.value : {});
  }
  return out;
}

async function viaToolgate(bytes: Buffer, path: string): Promise<Outcome> {
  try {
    const loaded = loadBundle(await readTarball(bytes, path), path);
    return { ok: true, data: await dataWithRules(loaded), modules: loaded.modules.map((m) => m.id).sort() };
  } catch (e) {
    if (e instanceof ToolgateError && e.code === 'BUNDLE_INVALID') {
      expect(e.message).toContain(path);
      return { ok: false, why: e.message };
    }
    throw e;
  }
}

describeWithOpa('crafted tarballs: toolgate loads what OPA loads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-tar-opa-'));
  const pathOf = (i: number) => join(dir, `case-${i}.tar.gz`);
  cases.forEach((c, i) => writeFileSync(pathOf(i), c.bytes));

  it('has at least 25 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
  });

  it.concurrent.each(cases.map((c, i) => [c.name, i] as const))('%s', async (_name, i) => {
    const c = cases[i]!;
    const [opa, ours] = await Promise.all([viaOpa(pathOf(i)), viaToolgate(c.bytes, pathOf(i))]);
    if (c.deliberate) {
      expect(opa.ok, 'OPA loads this one; toolgate refuses it on purpose').toBe(true);
      expect(ours.ok, JSON.stringify(ours)).toBe(false);
      return;
    }
    if (!opa.ok) {
      expect(ours, `OPA refused: ${opa.why}`).toMatchObject({ ok: false });
      return;
    }
    expect(ours, 'OPA loaded it').toMatchObject({ ok: true });
    expect(ours).toEqual(opa);
  });

  it('bundle inspect refuses what OPA refuses and lists the modules it loads', async () => {
    const refusedAt = cases.findIndex((c) => c.name === 'data outside the manifest roots');
    const r = await runCli(['bundle', 'inspect', pathOf(refusedAt)]);
    expect(r.code).not.toBe(0);
    const okAt = cases.findIndex((c) => c.name === 'names with "./" and without a leading slash');
    const i = await runCli(['bundle', 'inspect', pathOf(okAt)]);
    expect(i.code, i.stderr).toBe(0);
    expect(i.json().modules.map((m: { id: string }) => m.id).sort()).toEqual((await viaOpa(pathOf(okAt)) as { modules: string[] }).modules);
  });
});
