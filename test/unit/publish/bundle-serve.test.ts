/**
 * `toolgate bundle serve` against the real OPA: an `opa run --server -c config.yaml` pulls the
 * quickstart bundle over the bundle service API with long polling and a bearer token, reports the
 * revision toolgate compiled (status POSTs to our receiver, and its own system data), picks up a
 * recompile that changes one grant, and ships its decision logs back. Plus the HTTP contract on its
 * own: ETag/304, long poll, refusals (traversal, other names, no token, bad reports).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { request } from 'node:http';
import { describeWithOpa, startOpaServer, type OpaServer } from '../../helpers/opa.ts';
import { REPO, startBundleServe, stopAll, toolgate, waitFor, type BundleServer } from '../../helpers/processes.ts';

// These suites start real processes (toolgate, OPA, the registry); on a loaded 2-core CI machine a
// compile alone can take tens of seconds.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const TOKEN = 'test-token-5b1f';

function estateCopy(root: string): { manifest: string; catalog: string } {
  const dir = join(root, 'estate');
  cpSync(join(REPO, 'examples/quickstart'), dir, { recursive: true });
  return { manifest: join(dir, 'governance.yaml'), catalog: join(dir, 'catalog.json') };
}

/** Removes the ci-bot -> git::git_log grant: that pair goes from allow to NOT_GRANTED. */
function dropGitLogGrant(manifest: string): void {
  const text = readFileSync(manifest, 'utf8');
  const grant = /  - agent: ci-bot\n    tool: "git::git_log"\n(    .*\n)*?(?=  - )/;
  if (!grant.test(text)) throw new Error('the quickstart manifest changed shape');
  writeFileSync(manifest, text.replace(grant, ''));
}

function compile(estate: { manifest: string; catalog: string }, out: string, extra: string[] = []) {
  const r = toolgate(['compile', '--manifest', estate.manifest, '--catalog', estate.catalog, '--out', out, ...extra], { env: { SOURCE_DATE_EPOCH: '1767225600' } });
  if (r.code !== 0) throw new Error(`compile failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { files: string[] };
}

function manifestRevision(out: string): string {
  const r = toolgate(['bundle', 'inspect', join(out, 'bundle.tar.gz')]);
  return (JSON.parse(r.stdout) as { revision: string }).revision;
}

/** A raw GET whose path is sent exactly as written (fetch would normalise `..`). */
function rawGet(url: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('bundle serve: the HTTP contract', () => {
  let root: string;
  let server: BundleServer;
  let out: string;
  const auth = { authorization: `Bearer ${TOKEN}` };
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'tg-serve-'));
    out = join(root, 'quickstart');
    compile(estateCopy(root), out);
    server = await startBundleServe([out, '--receive', join(root, 'received'), '--max-wait', '5'], { TOOLGATE_BUNDLE_TOKEN: TOKEN });
  }, 180_000);
  afterAll(async () => {
    await stopAll();
    rmSync(root, { recursive: true, force: true });
  });

  it('serves the bundle bytes with a quoted sha256 ETag and the long-polling content type', async () => {
    const r = await fetch(`${server.url}/bundles/quickstart`, { headers: auth });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/vnd.openpolicyagent.bundles');
    const bytes = new Uint8Array(await r.arrayBuffer());
    expect(Buffer.from(bytes).equals(readFileSync(join(out, 'bundle.tar.gz')))).toBe(true);
    expect(r.headers.get('etag')).toBe(`"${server.info.bundles[0]!.etag}"`);
    expect(server.info.bundles[0]!.revision).toBe(manifestRevision(out));
  });

  it('answers 304 to If-None-Match with the current ETag, and holds a long poll until its wait ends', async () => {
    const etag = `"${server.info.bundles[0]!.etag}"`;
    const r = await fetch(`${server.url}/bundles/quickstart`, { headers: { ...auth, 'if-none-match': etag } });
    expect(r.status).toBe(304);
    const t0 = Date.now();
    const held = await fetch(`${server.url}/bundles/quickstart`, { headers: { ...auth, 'if-none-match': etag, prefer: 'modes=snapshot,delta;wait=1' } });
    expect(held.status).toBe(304);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });

  it('refuses requests without the bearer token, other names, traversal and listing', async () => {
    expect((await fetch(`${server.url}/bundles/quickstart`)).status).toBe(401);
    expect((await fetch(`${server.url}/bundles/quickstart`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    for (const path of ['/bundles/other', '/bundles/', '/bundles', '/', '/bundles/quickstart/', '/bundles/../quickstart/bundle.tar.gz', '/bundles/..%2Fquickstart%2Fbundle.tar.gz', '/bundles/quickstart/../../etc/passwd', '/quickstart/bundle.tar.gz', '/bundles/%2e%2e']) {
      const r = await rawGet(server.url, path, auth);
      expect([400, 404], path).toContain(r.status);
      expect(r.body).not.toContain('toolgate/authz.rego');
    }
    expect((await fetch(`${server.url}/bundles/quickstart`, { method: 'DELETE', headers: auth })).status).toBe(405);
  });

  it('refuses a foreign Host name (DNS rebinding)', async () => {
    const r = await rawGet(server.url, '/bundles/quickstart', { ...auth, host: 'evil.example:80' });
    expect(r.status).toBe(403);
  });

  it('validates, bounds and appends status and decision-log POSTs; a refused one leaves the files as they were', async () => {
    const logs = server.info.receive!.logs;
    const event = { decision_id: 'd1', timestamp: '2026-12-01T10:00:00Z', labels: { id: 'opa-1' }, path: 'toolgate/authz/decision', input: { agent: 'ci-bot', tool: 'git::git_log' } };
    const post = (path: string, body: Uint8Array | string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', ...headers }, body });
    expect((await post('/logs', gzipSync(JSON.stringify([event])), { 'content-encoding': 'gzip' })).status).toBe(204);
    expect((await post('/status', JSON.stringify({ labels: { id: 'opa-1' }, bundles: { quickstart: { active_revision: 'x' } } }))).status).toBe(204);
    const before = readFileSync(logs, 'utf8');
    expect(before.trim().split('\n').map((l) => JSON.parse(l).decision_id)).toEqual(['d1']);
    // malformed, wrong shape, not gzip, a gzip bomb, oversized
    expect((await post('/logs', '{not json')).status).toBe(400);
    expect((await post('/logs', JSON.stringify({ decision_id: 'x' }))).status).toBe(400);
    expect((await post('/logs', JSON.stringify([{ decision_id: 'x' }]))).status).toBe(400);
    expect((await post('/logs', 'plain', { 'content-encoding': 'gzip' })).status).toBe(400);
    expect((await post('/logs', gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)), { 'content-encoding': 'gzip' })).status).toBe(400);
    expect((await post('/logs', Buffer.alloc(2 * 1024 * 1024, 0x20)).catch(() => ({ status: 413 }))).status).toBe(413);
    expect((await post('/status', JSON.stringify({ bundles: {} }))).status).toBe(400);
    expect(readFileSync(logs, 'utf8')).toBe(before);
  });
});

describe('bundle serve: bad folders and a full disk', () => {
  it('keeps serving the previous revision when the folder holds a half-written or foreign bundle', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tg-serve-bad-'));
    const out = join(root, 'quickstart');
    compile(estateCopy(root), out);
    const server = await startBundleServe([out]);
    try {
      const etag = `"${server.info.bundles[0]!.etag}"`;
      const good = readFileSync(join(out, 'bundle.tar.gz'));
      writeFileSync(join(out, 'bundle.tar.gz'), good.subarray(0, Math.floor(good.length / 2)));
      await new Promise((r) => setTimeout(r, 1_000));
      const r = await fetch(`${server.url}/bundles/quickstart`);
      expect(r.headers.get('etag')).toBe(etag);
      expect(Buffer.from(await r.arrayBuffer()).equals(good)).toBe(true);
      expect(server.log()).toContain('keeping revision');
    } finally {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    }
  }, 180_000);

  it('answers 507 when the log file cannot be written (a full disk), so OPA keeps the events and retries', async () => {
    const { createBundleHandler } = await import('../../../src/bundle-service/handler.ts');
    const { fileReportSink } = await import('../../../src/cli/bundle-folder.ts');
    const { createServer } = await import('node:http');
    const { symlinkSync } = await import('node:fs');
    const dir = mkdtempSync(join(tmpdir(), 'tg-serve-full-'));
    symlinkSync('/dev/full', join(dir, 'decision-logs.jsonl'));
    const handler = createBundleHandler({ source: { get: () => undefined, subscribe: () => () => {} }, sink: fileReportSink(dir) });
    const http = createServer(handler);
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (http.address() as { port: number }).port;
      const body = gzipSync(JSON.stringify([{ decision_id: 'd', timestamp: '2026-12-01T10:00:00Z', labels: { id: 'x' } }]));
      const r = await fetch(`http://127.0.0.1:${port}/logs`, { method: 'POST', headers: { 'content-encoding': 'gzip' }, body });
      expect(r.status).toBe(507);
    } finally {
      http.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeWithOpa('bundle serve: a real OPA pulls from it', () => {
  let root: string;
  let estate: { manifest: string; catalog: string };
  let out: string;
  let server: BundleServer;
  let opa: OpaServer;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'tg-serve-opa-'));
    estate = estateCopy(root);
    out = join(root, 'quickstart');
    compile(estate, out);
    server = await startBundleServe([out, '--receive', join(root, 'received'), '--verbose'], { TOOLGATE_BUNDLE_TOKEN: TOKEN });
    const config = join(root, 'opa.yaml');
    writeFileSync(
      config,
      [
        'services:',
        '  toolgate:',
        `    url: ${server.url}`,
        '    credentials:',
        '      bearer:',
        `        token: ${TOKEN}`,
        'bundles:',
        '  quickstart:',
        '    service: toolgate',
        '    resource: bundles/quickstart',
        '    polling:',
        '      min_delay_seconds: 1',
        '      max_delay_seconds: 2',
        '      long_polling_timeout_seconds: 20',
        'status:',
        '  service: toolgate',
        'decision_logs:',
        '  service: toolgate',
        '  reporting:',
        '    min_delay_seconds: 1',
        '    max_delay_seconds: 1',
        'labels:',
        '  member: opa-serve-test',
        '',
      ].join('\n'),
    );
    opa = await startOpaServer(['-c', config], { timeoutMs: 30_000 });
  }, 180_000);
  afterAll(async () => {
    await opa?.stop();
    await stopAll();
    rmSync(root, { recursive: true, force: true });
  });

  const activeRevision = async () => (await opa.query('system/bundles/quickstart/manifest/revision', {})).result as string | undefined;
  const reportedRevisions = () => {
    const f = server.info.receive!.status;
    if (!existsSync(f)) return [];
    return readFileSync(f, 'utf8').trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { bundles?: Record<string, { active_revision?: string }> }).bundles?.quickstart?.active_revision);
  };

  it('activates the revision toolgate compiled and reports it on POST /status', async () => {
    const rev = manifestRevision(out);
    expect(await activeRevision()).toBe(rev);
    await waitFor('a status report naming the revision', 15_000, () => (reportedRevisions().includes(rev) ? true : undefined));
    const d = await opa.query('toolgate/authz/decision', { agent: 'ci-bot', tool: 'git::git_log' });
    expect((d.result as { allow: boolean }).allow).toBe(true);
  });

  it('picks up a recompile with one grant removed within the long poll, not the polling delay', async () => {
    const before = manifestRevision(out);
    dropGitLogGrant(estate.manifest);
    const t0 = Date.now();
    compile(estate, out);
    const after = manifestRevision(out);
    expect(after).not.toBe(before);
    const { ms } = await waitFor('the new revision active in OPA', 15_000, async () => ((await activeRevision()) === after ? true : undefined), 20);
    const d = await opa.query('toolgate/authz/decision', { agent: 'ci-bot', tool: 'git::git_log' });
    expect(d.result).toMatchObject({ allow: false, reason: 'NOT_GRANTED' });
    // Long polling: the held request is answered as the compile commits, well inside the polling delay.
    expect(ms).toBeLessThan(1_000);
    await waitFor('a status report naming the new revision', 15_000, () => (reportedRevisions().includes(after) ? true : undefined));
    console.log(`bundle serve: compile + activation ${Date.now() - t0} ms, of which activation after the compile returned ${ms} ms`);
  }, 180_000);

  it('receives the decision logs of the calls made', async () => {
    await opa.query('toolgate/authz/decision', { agent: 'ops-agent', tool: 'filesystem::read_file' });
    const logs = server.info.receive!.logs;
    const { value } = await waitFor('decision logs at POST /logs', 20_000, () => {
      if (!existsSync(logs)) return undefined;
      const events = readFileSync(logs, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { input?: { agent?: string; tool?: string }; labels: { member?: string } });
      return events.some((e) => e.input?.agent === 'ops-agent') ? events : undefined;
    }, 200);
    expect(value.every((e) => e.labels.member === 'opa-serve-test')).toBe(true);
    expect(value.some((e) => e.input?.agent === 'ci-bot' && e.input.tool === 'git::git_log')).toBe(true);
  }, 180_000);

  it('turns the received decision logs into the observed connectome and per-agent activity', () => {
    const obs = join(root, 'observed.json');
    const r = toolgate(['observe', '--opa-decision-logs', server.info.receive!.logs, '--manifest', estate.manifest, '--catalog', estate.catalog, '--out', obs, '--window-out', join(root, 'window.json'), '--activity-out', join(root, 'activity.json')]);
    expect(r.code, r.stderr).toBe(0);
    const act = JSON.parse(readFileSync(join(root, 'activity.json'), 'utf8')) as { agents: Record<string, { calls: Record<string, { calls: number; refused: number }>; undeclared: string[] }> };
    // ci-bot's git_log grant was removed mid-test: its later calls are refused and undeclared now.
    expect(act.agents['ci-bot']!.calls['git::git_log']!.calls).toBeGreaterThanOrEqual(2);
    expect(act.agents['ci-bot']!.calls['git::git_log']!.refused).toBeGreaterThanOrEqual(1);
    expect(act.agents['ci-bot']!.undeclared).toContain('git::git_log');
    expect(act.agents['ops-agent']!.calls['filesystem::read_file']!.calls).toBeGreaterThanOrEqual(1);
    const d = toolgate(['diff', '--declared', join(out, 'connectome.json'), '--observed', obs, '--window', join(root, 'window.json')]);
    expect(d.code, d.stderr).toBe(0);
    expect(JSON.parse(d.stdout).classes.declared_and_observed).toEqual(expect.arrayContaining([{ from: 'filesystem/server', kind: 'invoke', to: 'filesystem/tool/read_file' }]));
  }, 180_000);
});
