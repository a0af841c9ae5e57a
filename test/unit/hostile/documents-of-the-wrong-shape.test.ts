/**
 * Files that parse but are not what the option takes, which were taken anyway: an array or scalar
 * as a data document (OPA: "document must be of type object"), a .manifest OPA would refuse pushed
 * to a registry, and a --connectome audit-report never read outside --format html (so a missing
 * file passed unnoticed).
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { emitTarGz } from '../../../src/emit/opa-tarball.ts';
import { runCli } from '../../helpers/cli.ts';
import { spawnSync } from 'node:child_process';
import { describeWithOpa, opaPath } from '../../helpers/opa.ts';

const BASE = resolve(import.meta.dirname, '../../fixtures/malformed/base');
let dir: string;

function file(name: string, text: string): string {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

/** A bundle tarball of these entries, written by the project's own (deterministic) tarball writer. */
async function tarGz(entries: Record<string, string>): Promise<Uint8Array> {
  return emitTarGz(Object.entries(entries).map(([name, text]) => ({ name, bytes: new TextEncoder().encode(text) })));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-hostile-shape-'));
});

const NOT_OBJECTS = ['[]', '[1, 2]', '42', '"text"', 'null', 'true'];

describeWithOpa('a data document that is not an object', () => {
  it('rego eval -d FILE.json, --data FILE.json and data.json in a -d folder refuse it as opa eval does', async () => {
    for (const [i, text] of NOT_OBJECTS.entries()) {
      const f = file(`data-${i}.json`, text);
      const folder = join(dir, `folder-${i}`);
      mkdirSync(folder);
      const inFolder = join(folder, 'data.json');
      writeFileSync(inFolder, text);
      for (const [argv, named] of [[['-d', f], f], [['--data', f], f], [['-d', folder], inFolder]] as const) {
        const r = await runCli(['rego', 'eval', ...argv, 'data']);
        expect(r.stderr).toBe(`toolgate: error SCHEMA_INVALID at ${named}: ${named}: document must be of type object\n`);
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
      }
      // The real OPA refuses the same file with the same words.
      const opa = spawnSync(opaPath(), ['eval', '-d', f, 'data'], { encoding: 'utf8' });
      expect(opa.status).toBe(2);
      expect(opa.stdout).toContain('document must be of type object');
    }
  });

  it('an object is still read', async () => {
    const r = await runCli(['rego', 'eval', '--data', file('ok.json', '{"a": [1]}'), 'data.a']);
    expect(r.code).toBe(0);
    expect(r.json().result[0].expressions[0].value).toEqual([1]);
  });

  it('sign --data refuses it and writes nothing', async () => {
    const out = join(dir, 'sign-out');
    mkdirSync(out);
    for (const [i, text] of NOT_OBJECTS.entries()) {
      const f = file(`sign-data-${i}.json`, text);
      const r = await runCli(['sign', '--graph', join(BASE, 'declared.json'), '--policy', join(BASE, 'signs.rego'), '--data', f, '--out', join(out, 'signed.json')]);
      expect(r.stderr).toBe(`toolgate: error SCHEMA_INVALID at ${f}: ${f}: the data document must be a JSON object\n`);
      expect(r.code).toBe(1);
    }
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('publish refuses a bundle OPA would not load, before any registry is asked', () => {
  it.each([
    ['revision a number', '{"revision": 5}', '.manifest: cannot decode revision: a JSON num does not fit'],
    ['manifest an array', '[]', '.manifest: cannot decode the manifest: a JSON arr does not fit'],
    ['roots a string', '{"revision": "r", "roots": "toolgate"}', '.manifest: cannot decode roots: a JSON str does not fit'],
  ])('%s', async (_name, manifest, fault) => {
    const f = join(dir, 'bad-manifest.tar.gz');
    writeFileSync(f, await tarGz({ '.manifest': manifest, 'x/p.rego': 'package x\n\np := 1\n' }));
    // Port 1 on loopback: were the bundle pushed, the answer would be REGISTRY_FAILED instead.
    const r = await runCli(['publish', f, '--oci', '127.0.0.1:1/toolgate/bundle:v1', '--plain-http', '--timeout', '500']);
    expect(r.stderr).toBe(`toolgate: error BUNDLE_INVALID at ${f} (.manifest): ${f}: ${fault}\n`);
    expect(r.code).toBe(1);
  });
});

describe('audit-report options that only the html report reads', () => {
  it('--connectome with json or markdown is bad usage, not a file silently left unread', async () => {
    for (const format of ['json', 'markdown']) {
      const r = await runCli(['audit-report', '--example', 'quickstart', '--format', format, '--connectome', join(dir, 'missing.json')]);
      expect(r.stderr.split('\n')[0]).toBe('toolgate: error USAGE: --connectome applies only to --format html');
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
    }
    const html = await runCli(['audit-report', '--example', 'quickstart', '--format', 'html', '--connectome', join(dir, 'missing.json')]);
    expect(html.stderr).toBe(`toolgate: error FILE_UNREADABLE at ${join(dir, 'missing.json')}: ${join(dir, 'missing.json')}: cannot read: ENOENT\n`);
    expect(html.code).toBe(1);
  });
});
