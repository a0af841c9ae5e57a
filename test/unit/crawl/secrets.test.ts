/**
 * No secret reaches catalog.json, stderr or stdout: random secrets are planted in every place a
 * servers file can hold one (an env value from the environment, a literal env value, a header
 * from the environment, a URL's username and password, a query value, a token in the path), real
 * servers (a stdio child and a loopback HTTP server) repeat them back as given and re-encoded, and
 * every output is searched for each secret in each form.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../../src/cli/main.ts';
import { parseCatalog } from '../../../src/catalog/parse.ts';
import { REDACTED, credentialsFromUrl, redact, urlSecrets } from '../../../src/crawl/redact.ts';
import { startEchoHttpFixture, type EchoHttpFixture } from '../../fixtures/mcp/echo-secrets-http.ts';
import { FIXTURES, NODE } from './helpers.ts';

interface Outputs {
  readonly code: number;
  readonly texts: readonly string[];
  readonly catalogText: string | undefined;
}

async function crawlJson(servers: unknown, env: Record<string, string>, args: string[] = []): Promise<Outputs> {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-secrets-'));
  writeFileSync(join(dir, 'servers.json'), JSON.stringify(servers));
  let stdout = '';
  let stderr = '';
  const code = await main(['crawl', '--servers', 'servers.json', '--out', 'catalog.json', '--timeout-ms', '15000', ...args], {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    cwd: dir,
    env: { SOURCE_DATE_EPOCH: '0', ...env },
    stdin: async () => '',
  });
  let catalogText: string | undefined;
  try {
    catalogText = readFileSync(join(dir, 'catalog.json'), 'utf8');
  } catch {
    catalogText = undefined;
  }
  return { code, texts: [stdout, stderr, catalogText ?? ''], catalogText };
}

/** The forms each secret must never appear in: what the fixtures print, computed independently. */
function leakedForms(secret: string): string[] {
  if (secret.length < 4) return [`<<${secret}>>`];
  return [secret, Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('base64url'), encodeURIComponent(secret), JSON.stringify(secret)];
}

/**
 * A secret that is also a word toolgate or the server write anyway ("name", "failed") cannot be
 * told apart from them in the output: such draws are skipped (fc.pre), judged against the outputs
 * of the same crawl with placeholder secrets.
 */
function distinguishable(baseline: readonly string[], secrets: readonly string[]): boolean {
  return secrets.every((s) => s.length < 4 || leakedForms(s).every((f) => baseline.every((t) => !t.includes(f))));
}

function expectNoLeak(out: Outputs, secrets: readonly string[]): void {
  for (const s of secrets) for (const form of leakedForms(s)) for (const text of out.texts) expect(text, `secret form ${JSON.stringify(form)} leaked`).not.toContain(form);
}

// Printable ASCII but for the brackets the fixtures and the mask use as frames.
const secretChar = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;=?@^_{|}~ \'"\\é€'.split(''));
const secret = fc.string({ unit: secretChar, minLength: 1, maxLength: 20 }).filter((s) => !REDACTED.includes(s) && s.trim() === s && s !== '');
const longSecret = fc.string({ unit: secretChar, minLength: 4, maxLength: 20 }).filter((s) => !REDACTED.includes(s) && s.trim() === s);
const pathToken = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split('')), minLength: 16, maxLength: 32 });

let http: EchoHttpFixture;
let stdioBaseline: string[] = [];
let httpBaseline: string[] = [];
const stdioServers = (fails: boolean, literal: string) => ({
  servers: [{ name: 'echo', command: NODE, args: [join(FIXTURES, 'echo-secrets.mjs'), ...(fails ? ['fail'] : [])], env: { ECHO_VARS: 'A,B', A: { env: 'PLANTED' }, B: literal } }],
});
const httpServers = (user: string, password: string, token: string, query: string) => ({
  servers: [{ name: 'remote', url: `http://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${http.origin}/mcp/${token}?key=${encodeURIComponent(query)}`, headers: { 'X-Api-Key': { env: 'HEADER_SECRET' } } }],
});
beforeAll(async () => {
  http = await startEchoHttpFixture();
  // What the crawls write with placeholder secrets, failing and not, stderr quoted.
  for (const fails of [false, true]) stdioBaseline.push(...(await crawlJson(stdioServers(fails, 'Qx7#placeholder'), { PLANTED: 'Qx8#placeholder' }, ['--server-stderr'])).texts);
  for (const refuse of [false, true]) {
    http.refuse = refuse;
    httpBaseline.push(...(await crawlJson(httpServers('Qx1#u', 'Qx2#p', 'Zq9Zq9Zq9Zq9Zq9Zq9', 'Qx3#q'), { HEADER_SECRET: 'Qx4#h' })).texts);
  }
  stdioBaseline = stdioBaseline.map((t) => t.replace(/Qx\d#\w+|Zq9\w+/g, ''));
  httpBaseline = httpBaseline.map((t) => t.replace(/Qx\d#\w+|Zq9\w+/g, ''));
}, 60_000);
afterAll(async () => {
  await http.close();
});

describe('toolgate crawl keeps secrets out of every output', () => {
  it('a stdio server repeating its env values (from the environment and literal) in five encodings', async () => {
    await fc.assert(
      fc.asyncProperty(secret, secret, fc.boolean(), fc.boolean(), async (fromEnv, literal, fails, quoteStderr) => {
        fc.pre(distinguishable(stdioBaseline, [fromEnv, literal]));
        const out = await crawlJson(stdioServers(fails, literal), { PLANTED: fromEnv }, quoteStderr ? ['--server-stderr'] : []);
        // A secret that is also a word of the catalog ("name") masks it and fails the entry: still no leak.
        if (fails) expect(out.code).toBe(1);
        // ECHO_VARS itself is a literal env value: a secret too, so "A,B" is masked where it stands.
        expectNoLeak(out, [fromEnv, literal]);
      }),
      { numRuns: 12, examples: [['sk-live-7Hq2', 'ab', false, true], ['x', 'Zz9!', true, true]] },
    );
  }, 120_000);

  it('an HTTP server repeating the Authorization header, path and query it was sent', async () => {
    await fc.assert(
      fc.asyncProperty(longSecret, secret, secret, secret, pathToken, fc.boolean(), async (header, user, password, query, token, refuse) => {
        fc.pre(distinguishable(httpBaseline, [header, user, password, query, token]));
        http.refuse = refuse;
        const out = await crawlJson(httpServers(user, password, token, query), { HEADER_SECRET: header });
        if (refuse) expect(out.code).toBe(1);
        expectNoLeak(out, [header, user, password, query, token]);
      }),
      { numRuns: 12, examples: [['aaaa', '^', 'aa', 'name', 'aaaaaaaaaaaaaaaa', false]] },
    );
  }, 120_000);

  it('crawls a url with userinfo, sending it as Authorization: Basic and not in the URL', async () => {
    http.refuse = false;
    http.authorizations.length = 0;
    const out = await crawlJson({ servers: [{ name: 'remote', url: `http://tok3n-user:p%40ss@${http.origin}/mcp` }] }, {});
    expect(out.code).toBe(0);
    const [remote] = parseCatalog('catalog.json', out.catalogText!).servers;
    expect(remote).toMatchObject({ name: 'remote', status: 'ok', tools: [{ name: 'echo' }] });
    expect(http.authorizations).toContain(`Basic ${Buffer.from('tok3n-user:p@ss').toString('base64')}`);
    expectNoLeak(out, ['tok3n-user', 'p@ss']);
  });

  it("drops a failed child's stderr unless --server-stderr asks for it", async () => {
    const servers = { servers: [{ name: 'echo', command: NODE, args: [join(FIXTURES, 'echo-secrets.mjs'), 'fail'], env: { ECHO_VARS: '' } }] };
    const quiet = await crawlJson(servers, {});
    expect(quiet.texts.join('')).not.toContain('starting with');
    const asked = await crawlJson(servers, {}, ['--server-stderr']);
    expect(asked.catalogText).toContain('server stderr: starting with');
  });
});

describe('the redactor', () => {
  it('masks a known secret in each encoding, at any base64 alignment', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 4, maxLength: 24 }).filter((s) => !REDACTED.includes(s)), fc.string({ maxLength: 5 }), (s, prefix) => {
        const b = Buffer.from(s);
        const text = [s, encodeURIComponent(s), JSON.stringify(s), b.toString('hex'), Buffer.from(prefix + s).toString('base64'), Buffer.from(prefix + s).toString('base64url')].join(' | ');
        const masked = redact(text, [s]);
        expect(masked).not.toContain(s);
        expect(masked).not.toContain(Buffer.from(prefix + s).toString('base64'));
        expect(masked).not.toContain(b.toString('hex'));
      }),
      { numRuns: 400 },
    );
  });

  it('takes userinfo, query values and token-like path segments of a URL as secrets, not routes', () => {
    const u = new URL('https://me:pa%24s@api.example.com/mcp/v1/sk4f9a0b2c7d/servers/github?api_key=zz9&x=1');
    expect(urlSecrets(u)).toEqual(expect.arrayContaining(['me', 'pa%24s', 'pa$s', 'zz9', '1', 'sk4f9a0b2c7d']));
    for (const route of ['mcp', 'v1', 'servers', 'github']) expect(urlSecrets(u)).not.toContain(route);
    const { url, authorization } = credentialsFromUrl(u);
    expect(url.href).toBe('https://api.example.com/mcp/v1/sk4f9a0b2c7d/servers/github?api_key=zz9&x=1');
    expect(authorization).toBe(`Basic ${Buffer.from('me:pa$s').toString('base64')}`);
  });
});
