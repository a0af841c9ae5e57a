/**
 * Values a reader cannot hold or a key a document lacks must be refused by name: a bundle number
 * past the double range (OPA keeps 1e400 as a json.Number; toolgate's engine holds doubles) was an
 * internal error from deep inside the engine, or silently became null in `bundle inspect`; a
 * missing schema_version read "undefined" and a fraction "JsonFloat(1.5)".
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { emitTarGz } from '../../../src/emit/opa-tarball.ts';
import { runCli } from '../../helpers/cli.ts';

const BASE = resolve(import.meta.dirname, '../../fixtures/malformed/base');
let dir: string;

/** A bundle tarball of these entries, written by the project's own (deterministic) tarball writer. */
async function tarGz(entries: Record<string, string>): Promise<Uint8Array> {
  return emitTarGz(Object.entries(entries).map(([name, text]) => ({ name, bytes: new TextEncoder().encode(text) })));
}

async function bundle(name: string, entries: Record<string, string>): Promise<string> {
  const f = join(dir, name);
  writeFileSync(f, await tarGz(entries));
  return f;
}

function file(name: string, text: string): string {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

const REGO = 'package toolgate.authz\n\ndecision := {"allow": false}\n';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-hostile-numbers-'));
});

describe('a bundle number a double cannot hold', () => {
  it.each([
    ['decide', (f: string) => ['decide', 'bot', 'git::show', '--bundle', f, '--no-cache']],
    ['visible-tools', (f: string) => ['visible-tools', 'bot', '--bundle', f]],
  ])('%s: data.json holding 1e400 is BUNDLE_INVALID naming the entry, not an internal error', async (_name, argv) => {
    for (const data of ['{"toolgate": {"n": 1e400}}', '{"toolgate": {"n": -1e999}}', `{"toolgate": [${'9'.repeat(400)}]}`]) {
      const f = await bundle('huge-data.tar.gz', { 'toolgate/authz.rego': REGO, 'data.json': data });
      const r = await runCli(argv(f));
      const lit = /(-?1e\d+|9{400})/.exec(data)![1]!;
      expect(r.stderr).toBe(`toolgate: error BUNDLE_INVALID at ${f} (data.json): ${f}: data.json: not valid JSON: the number ${lit} is out of range (toolgate holds numbers as doubles)\n`);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
    }
  });

  it('bundle inspect: .manifest metadata holding 1e400 is refused, not printed as null', async () => {
    const f = await bundle('huge-meta.tar.gz', { '.manifest': '{"revision": "r", "metadata": {"n": 1e400}}', 'toolgate/authz.rego': REGO });
    const r = await runCli(['bundle', 'inspect', f]);
    expect(r.stderr).toBe(`toolgate: error BUNDLE_INVALID at ${f} (.manifest): ${f}: .manifest: the number 1e400 is out of range (toolgate holds numbers as doubles)\n`);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
  });

  it('a number within range, however written, still reads', async () => {
    const f = await bundle('fine.tar.gz', { '.manifest': '{"revision": "r", "metadata": {"n": 1e300}}', 'toolgate/authz.rego': REGO, 'data.json': '{"toolgate": {"n": 1.5e308, "m": 1e-400}}' });
    const r = await runCli(['bundle', 'inspect', f]);
    expect(r.code).toBe(0);
    expect(r.json().manifest.metadata).toEqual({ n: 1e300 });
  });
});

describe('a key the document lacks, or a fraction, named as the file holds it', () => {
  const graphReaders: [string, (f: string) => string[]][] = [
    ['digest', (f) => ['digest', f]],
    ['graph export', (f) => ['graph', 'export', '--graph', f, '--format', 'dot']],
    ['diff --declared', (f) => ['diff', '--declared', f, '--observed', join(BASE, 'observed.json'), '--window', join(BASE, 'window.json')]],
  ];

  it.each(graphReaders)('%s: a graph with no schema_version says it is missing', async (_name, argv) => {
    const f = file('no-version.json', '{"nodes": [], "edges": []}');
    const r = await runCli(argv(f));
    expect(r.stderr).toContain(`at ${f} (schema_version): `);
    expect(r.stderr).toContain('schema_version (missing) cannot be read: toolgate reads versions 3 and 4');
    expect(r.stderr).not.toMatch(/undefined|\[object Object\]/);
    expect(r.code).toBe(1);
  });

  it('verify: a missing or non-scalar schema_version or algorithm is quoted as written', async () => {
    const cases: [string, string, string][] = [
      ['{}', 'GRAPH_INVALID', 'schema_version (missing) is not one a verifier reads'],
      ['{"schema_version": {"v": 3}}', 'GRAPH_INVALID', 'schema_version {"v":3} is not one a verifier reads'],
      ['{"schema_version": 1.5}', 'GRAPH_INVALID', 'schema_version 1.5 is not one a verifier reads'],
      ['{"schema_version": 4}', 'DIGEST_ALGORITHM_UNSUPPORTED', 'algorithm (missing) is not sha256, sha384 or sha512; the record is refused'],
      ['{"schema_version": 4, "algorithm": ["sha256"]}', 'DIGEST_ALGORITHM_UNSUPPORTED', 'algorithm ["sha256"] is not sha256, sha384 or sha512; the record is refused'],
    ];
    for (const [text, code, message] of cases) {
      const f = file('record.json', text);
      const r = await runCli(['verify', f, '--digest', '00']);
      expect(r.stderr).toMatch(new RegExp(`^toolgate: error ${code} at ${f} \\((schema_version|algorithm)\\): ${f}: `));
      expect(r.stderr.trimEnd().endsWith(message), r.stderr).toBe(true);
      expect(r.code).toBe(1);
    }
  });

  it('observe: an event without a server says the server is missing', async () => {
    const f = file('events.jsonl', '{"kind": "invoke", "target": "t"}\n');
    const r = await runCli(['observe', '--events', f, '--window-start', '2026-01-01T00:00:00Z', '--window-end', '2026-01-02T00:00:00Z']);
    expect(r.stderr).toContain(`${f}:1: server must be a non-empty string, got (missing)`);
    expect(r.code).toBe(1);
  });
});
