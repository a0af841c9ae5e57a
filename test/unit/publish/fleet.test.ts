/**
 * A fleet, for real, in one test (issue 15 item 5). Started here, on loopback, each stopped by its
 * pid: Debian's docker-registry; `toolgate bundle serve` over an unsigned and a signed compile
 * output with the status and decision-log receivers; three `opa run --server`:
 *   (a) pulling from the registry (services[].type: oci),
 *   (b) from the bundle server with long polling,
 *   (c) from the bundle server with signature verification (bundles[].signing).
 * Each reports toolgate's revision; after a recompile with one grant changed (and a publish), all
 * three decide the new way within BOUND_MS; a tampered and an unsigned bundle are refused by (c),
 * which keeps its revision; all three ship decision logs to POST /logs, and observe + diff show the
 * calls made here.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithOpa, startOpaServer, type OpaServer } from '../../helpers/opa.ts';
import { REPO, describeWithRegistry, findRegistry, startBundleServe, startRegistry, stopAll, toolgate, waitFor, type BundleServer, type Registry } from '../../helpers/processes.ts';

// These suites start real processes (toolgate, OPA, the registry); on a loaded 2-core CI machine a
// compile alone can take tens of seconds.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

/** Every OPA must decide the new way within this long after the publish step returns. */
const BOUND_MS = 15_000;
const TOKEN = 'fleet-token-3c9a';

const dropGitLog = (t: string) => t.replace(/  - agent: ci-bot\n    tool: "git::git_log"\n(    .*\n)*?(?=  - )/, '');

describeWithOpa('the fleet', () => {
  describeWithRegistry('registry + bundle server + three OPAs', {}, () => {
    let root: string;
    let estate: string;
    let registry: Registry;
    let server: BundleServer;
    const opas: Record<'a' | 'b' | 'c', OpaServer> = {} as never;
    let keyPem: string;
    const out = () => join(root, 'quickstart');
    const signed = () => join(root, 'signed');
    const ref = () => `${registry.host}/toolgate/quickstart:live`;

    const compile = (dir: string, extra: string[] = []) => {
      const r = toolgate(['compile', '--manifest', join(estate, 'governance.yaml'), '--catalog', join(estate, 'catalog.json'), '--out', dir, ...extra], { env: { SOURCE_DATE_EPOCH: '1767225600' } });
      if (r.code !== 0) throw new Error(r.stderr);
    };
    const release = () => {
      compile(out());
      compile(signed(), ['--signing-key', join(root, 'key.pem'), '--signing-alg', 'RS256', '--signing-key-id', 'release']);
      const p = toolgate(['publish', out(), '--oci', ref(), '--plain-http']);
      if (p.code !== 0) throw new Error(p.stderr);
    };
    const revisionOf = (dir: string) => (JSON.parse(toolgate(['bundle', 'inspect', join(dir, 'bundle.tar.gz')]).stdout) as { revision: string }).revision;
    const active = async (o: OpaServer, name: string) => (await o.query(`system/bundles/${name}/manifest/revision`, {})).result as string | undefined;
    const decide = async (o: OpaServer) => (await o.query('toolgate/authz/decision', { agent: 'ci-bot', tool: 'git::git_log' })).result as { allow: boolean; reason: string | null };

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'tg-fleet-'));
      estate = join(root, 'estate');
      cpSync(join(REPO, 'examples/quickstart'), estate, { recursive: true });
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      writeFileSync(join(root, 'key.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, { mode: 0o600 });
      keyPem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
      registry = await startRegistry((findRegistry() as { path: string }).path, join(root, 'registry'));
      release();
      server = await startBundleServe([`quickstart=${out()}`, `signed=${signed()}`, '--receive', join(root, 'received'), '--verbose'], { TOOLGATE_BUNDLE_TOKEN: TOKEN });
      const common = (member: string) => [
        `  tg:`,
        `    url: ${server.url}`,
        '    credentials:',
        '      bearer:',
        `        token: ${TOKEN}`,
        'status:',
        '  service: tg',
        'decision_logs:',
        '  service: tg',
        '  reporting:',
        '    min_delay_seconds: 1',
        '    max_delay_seconds: 1',
        'labels:',
        `  member: ${member}`,
      ];
      const polling = ['    polling:', '      min_delay_seconds: 1', '      max_delay_seconds: 2', '      long_polling_timeout_seconds: 20'];
      const configs = {
        a: ['services:', '  registry:', `    url: http://${registry.host}`, '    type: oci', ...common('a').slice(0, 5), 'bundles:', '  quickstart:', '    service: registry', `    resource: ${ref()}`, '    polling:', '      min_delay_seconds: 1', '      max_delay_seconds: 1', ...common('a').slice(5), `persistence_directory: ${join(root, 'opa-a')}`],
        b: ['services:', ...common('b').slice(0, 5), 'bundles:', '  quickstart:', '    service: tg', '    resource: bundles/quickstart', ...polling, ...common('b').slice(5)],
        c: ['services:', ...common('c').slice(0, 5), 'bundles:', '  signed:', '    service: tg', '    resource: bundles/signed', ...polling, '    signing:', '      keyid: release', ...common('c').slice(5), 'keys:', '  release:', '    algorithm: RS256', '    key: |', ...keyPem.trim().split('\n').map((l) => `      ${l}`)],
      };
      for (const m of ['a', 'b', 'c'] as const) {
        const file = join(root, `opa-${m}.yaml`);
        writeFileSync(file, `${configs[m].join('\n')}\n`);
        opas[m] = await startOpaServer(['-c', file], { timeoutMs: 40_000 });
      }
    }, 180_000);
    afterAll(async () => {
      for (const o of Object.values(opas)) await o?.stop();
      await stopAll();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it('each OPA reports the revision toolgate compiled, in its status POSTs too', async () => {
      expect(await active(opas.a, 'quickstart')).toBe(revisionOf(out()));
      expect(await active(opas.b, 'quickstart')).toBe(revisionOf(out()));
      expect(await active(opas.c, 'signed')).toBe(revisionOf(signed()));
      for (const o of Object.values(opas)) expect(await decide(o)).toMatchObject({ allow: true });
      const statusFile = server.info.receive!.status;
      await waitFor('status from (b) and (c)', 15_000, () => {
        if (!existsSync(statusFile)) return undefined;
        const reports = readFileSync(statusFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { labels: { member?: string }; bundles?: Record<string, { active_revision?: string }> });
        const rev = (m: string, b: string) => reports.some((r) => r.labels.member === m && r.bundles?.[b]?.active_revision !== undefined && r.bundles[b]!.active_revision === (b === 'signed' ? revisionOf(signed()) : revisionOf(out())));
        return rev('a', 'quickstart') && rev('b', 'quickstart') && rev('c', 'signed') ? true : undefined;
      }, 250);
    }, 180_000);

    it(`after a recompile with one grant removed and a publish, all three decide the new way within ${BOUND_MS} ms`, async () => {
      writeFileSync(join(estate, 'governance.yaml'), dropGitLog(readFileSync(join(estate, 'governance.yaml'), 'utf8')));
      const t0 = Date.now();
      release();
      const published = Date.now();
      const times: Record<string, number> = {};
      await Promise.all(
        (['a', 'b', 'c'] as const).map(async (m) => {
          await waitFor(`OPA (${m}) deciding NOT_GRANTED`, BOUND_MS, async () => ((await decide(opas[m])).reason === 'NOT_GRANTED' ? true : undefined), 25);
          times[m] = Date.now() - published;
        }),
      );
      expect(await active(opas.c, 'signed')).toBe(revisionOf(signed()));
      console.log(`fleet: compile x2 + publish ${published - t0} ms; then active: oci ${times.a} ms, long poll ${times.b} ms, signed ${times.c} ms`);
    }, 180_000);

    it('(c) refuses a tampered and an unsigned bundle and keeps its revision, saying so in its status', async () => {
      const kept = revisionOf(signed());
      // Tampered: one grant's decision flipped inside the signed tarball, signature left as it was.
      const bundlePath = join(signed(), 'bundle.tar.gz');
      const tar = Buffer.from(gunzipSync(readFileSync(bundlePath)));
      const text = tar.toString('latin1');
      const flipped = text.replace('"reason":"NOT_GRANTED"', '"reason":"NOT_GRANTEX"');
      const target = text.includes('"allow":false') ? text.replace('"allow":false', '"allow":true ') : flipped;
      expect(target).not.toBe(text);
      writeFileSync(bundlePath, gzipSync(Buffer.from(target, 'latin1')));
      await waitFor('the bundle server to pick up the tampered bytes', 10_000, async () => {
        const r = await fetch(`${server.url}/bundles/signed`, { headers: { authorization: `Bearer ${TOKEN}` } });
        return Buffer.from(await r.arrayBuffer()).equals(readFileSync(bundlePath)) ? true : undefined;
      });
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await active(opas.c, 'signed')).toBe(kept);
      // Unsigned: a plain compile put where the signed one was.
      writeFileSync(bundlePath, readFileSync(join(out(), 'bundle.tar.gz')));
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await active(opas.c, 'signed')).toBe(kept);
      expect(await decide(opas.c)).toMatchObject({ allow: false, reason: 'NOT_GRANTED' });
      // (c) said why in its status reports: the bundle's download or verification failed.
      const last = await waitFor('a status report from (c) naming the refusal', 15_000, () => {
        const reports = readFileSync(server.info.receive!.status, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { labels: { member?: string }; bundles?: Record<string, { code?: string; message?: string; errors?: unknown[]; active_revision?: string }> });
        const c = reports.filter((r) => r.labels.member === 'c').map((r) => r.bundles?.signed).filter((b) => b?.code !== undefined);
        return c.length > 0 ? c[c.length - 1] : undefined;
      }, 250);
      console.log(`fleet: (c) status after the tampered bundle: ${JSON.stringify(last.value).slice(0, 300)}`);
      expect(last.value!.active_revision).toBe(kept);
    }, 180_000);

    it('decision logs from all three reach POST /logs, and observe + diff show the calls made here', async () => {
      await opas.a.query('toolgate/authz/decision', { agent: 'ops-agent', tool: 'filesystem::read_file' });
      await opas.b.query('toolgate/authz/decision', { agent: 'publisher', tool: 'notes::publish_note' });
      await opas.c.query('toolgate/authz/decision', { agent: 'ci-bot', tool: 'filesystem::list_directory' });
      const logs = server.info.receive!.logs;
      // Wait for these three decisions themselves: each OPA has logged earlier ones already, and
      // each flushes on its own clock.
      const wanted = ['a ops-agent filesystem::read_file', 'b publisher notes::publish_note', 'c ci-bot filesystem::list_directory'];
      await waitFor('the three decisions in the logs from a, b and c', 20_000, () => {
        if (!existsSync(logs)) return undefined;
        const seen = new Set(
          readFileSync(logs, 'utf8').trim().split('\n').map((l) => {
            const e = JSON.parse(l) as { labels: { member?: string }; input?: { agent?: string; tool?: string } };
            return `${e.labels.member} ${e.input?.agent} ${e.input?.tool}`;
          }),
        );
        return wanted.every((w) => seen.has(w)) ? true : undefined;
      }, 250);
      const obs = join(root, 'observed.json');
      const r = toolgate(['observe', '--opa-decision-logs', logs, '--manifest', join(estate, 'governance.yaml'), '--catalog', join(estate, 'catalog.json'), '--out', obs, '--window-out', join(root, 'window.json'), '--activity-out', join(root, 'activity.json')]);
      expect(r.code, r.stderr).toBe(0);
      const act = JSON.parse(readFileSync(join(root, 'activity.json'), 'utf8')) as { agents: Record<string, { calls: Record<string, unknown>; undeclared: string[]; dead_authority: string[] }> };
      expect(Object.keys(act.agents['ci-bot']!.calls)).toEqual(expect.arrayContaining(['git::git_log', 'filesystem::list_directory']));
      expect(act.agents['ci-bot']!.undeclared).toContain('git::git_log');
      expect(Object.keys(act.agents['ops-agent']!.calls)).toContain('filesystem::read_file');
      expect(Object.keys(act.agents.publisher!.calls)).toContain('notes::publish_note');
      const d = toolgate(['diff', '--declared', join(out(), 'connectome.json'), '--observed', obs, '--window', join(root, 'window.json')]);
      expect(d.code, d.stderr).toBe(0);
      const seen = (JSON.parse(d.stdout) as { classes: { declared_and_observed: { to: string }[] } }).classes.declared_and_observed.map((e) => e.to);
      expect(seen).toEqual(expect.arrayContaining(['filesystem/tool/read_file', 'notes/tool/publish_note', 'filesystem/tool/list_directory', 'git/tool/git_log']));
      // The same diff, per agent: over the same window, the report observe wrote.
      const perAgent = join(root, 'per-agent.json');
      const p = toolgate(['diff', '--declared', join(out(), 'connectome.json'), '--observed', obs, '--window', join(root, 'window.json'), '--per-agent', perAgent, '--opa-decision-logs', logs, '--manifest', join(estate, 'governance.yaml'), '--catalog', join(estate, 'catalog.json')]);
      expect(p.code, p.stderr).toBe(0);
      expect(p.stdout).toBe(d.stdout);
      expect(JSON.parse(readFileSync(perAgent, 'utf8'))).toEqual(act);
    }, 180_000);
  });
});
