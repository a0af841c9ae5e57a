/**
 * Key files that hold no key: a verification key that cannot be parsed was reported against the
 * bundle (and, for an unsigned bundle, not at all: "not signed" hid it); a signing key that is no
 * private key was SIGNER_FAILED naming no file.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';

let dir: string;
let signed: string;
let unsigned: string;
let publicPem: string;

const NOT_KEYS: Record<string, string> = { empty: '', json: '{"kty": "RSA"}\n', text: 'not a key\n', 'truncated PEM': '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-hostile-keys-'));
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const priv = join(dir, 'key.pem');
  writeFileSync(priv, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  publicPem = join(dir, 'key.pub.pem');
  writeFileSync(publicPem, publicKey.export({ type: 'spki', format: 'pem' }));
  expect((await runCli(['compile', '--example', 'quickstart', '--signing-key', priv, '--out', join(dir, 'signed')])).code).toBe(0);
  expect((await runCli(['compile', '--example', 'quickstart', '--out', join(dir, 'unsigned')])).code).toBe(0);
  signed = join(dir, 'signed', 'bundle.tar.gz');
  unsigned = join(dir, 'unsigned', 'bundle.tar.gz');
});

describe('bundle verify --verification-key FILE that holds no key', () => {
  it.each(Object.keys(NOT_KEYS))('%s: refused naming the key file, for a signed and an unsigned bundle alike', async (name) => {
    const key = join(dir, `${name.replace(/ /g, '-')}.pem`);
    writeFileSync(key, NOT_KEYS[name]!);
    for (const bundle of [signed, unsigned]) {
      const r = await runCli(['bundle', 'verify', bundle, '--verification-key', key]);
      expect(r.stderr).toMatch(new RegExp(`^toolgate: error BUNDLE_VERIFY_FAILED at ${key}: ${key}: the verification key is not a usable PEM key for RS256 \\(ERR_[A-Z_]+\\)\\n$`));
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
    }
  });

  it('the right key still verifies', async () => {
    const r = await runCli(['bundle', 'verify', signed, '--verification-key', publicPem]);
    expect(r.code).toBe(0);
    expect(r.json().verified).toBe(true);
  });
});

describe('compile --signing-key FILE that holds no private key', () => {
  it.each([...Object.keys(NOT_KEYS), 'a public key'])('%s: SIGNER_FAILED naming the file, never its text, and nothing written', async (name) => {
    const key = name === 'a public key' ? publicPem : join(dir, `signing-${name.replace(/ /g, '-')}.pem`);
    if (name !== 'a public key') writeFileSync(key, NOT_KEYS[name]!);
    const out = join(dir, `out-${name.replace(/ /g, '-')}`);
    const r = await runCli(['compile', '--example', 'quickstart', '--signing-key', key, '--out', out]);
    expect(r.stderr).toMatch(new RegExp(`^toolgate: error SIGNER_FAILED at ${key}: ${key}: not a usable PEM private key for RS256 \\(ERR_[A-Z_]+\\)\\n$`));
    expect(r.stderr).not.toContain('MIIB');
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
  });
});
