/**
 * The gateway column of the HTML report against the bundle a gateway loads: for every grant of
 * both examples under every profile, the report's {allow, reason} is the compiled data.json's
 * data.toolgate.agents[A].tools[T] answer, and the revision named is the bundle's.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROFILES } from '../../../src/governance/types.ts';
import { runCli } from '../../helpers/cli.ts';

interface ReportData {
  profile: string;
  revision: string | null;
  agents: { id: string; grants: [string, number, 0 | 1, string, number][] }[];
}

const dataOf = (html: string) => JSON.parse(/<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html)![1]!) as ReportData;

describe('the html report gateway column', () => {
  it.each(['quickstart', 'fleet'].flatMap((example) => PROFILES.map((profile) => [example, profile] as const)))('is the compiled bundle decision for every grant of %s under %s', async (example, profile) => {
    const out = mkdtempSync(join(tmpdir(), 'tg-html-gateway-'));
    const c = await runCli(['compile', '--example', example, '--profile', profile, '--out', out], { env: { SOURCE_DATE_EPOCH: '0' } });
    expect(c.code, c.stderr).toBe(0);
    const bundleData = JSON.parse(readFileSync(join(out, 'data.json'), 'utf8')) as { toolgate: { agents: Record<string, { tools: Record<string, { allow: boolean; reason: string | null }> }> } };
    const r = await runCli(['audit-report', '--example', example, '--format', 'html', '--bundle', join(out, 'bundle.tar.gz')]);
    expect(r.code, r.stderr).toBe(0);
    const data = dataOf(r.stdout);
    expect(data.profile).toBe(profile);
    const inspected = await runCli(['bundle', 'inspect', join(out, 'bundle.tar.gz')]);
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(data.revision).toBe(inspected.json<{ revision: string }>().revision);
    let compared = 0;
    for (const a of data.agents) {
      for (const [tool, , allow, reason] of a.grants) {
        const want = bundleData.toolgate.agents[a.id]?.tools[tool];
        expect(want, `${a.id} -> ${tool} in data.json`).toBeDefined();
        if (want === undefined) continue;
        expect({ tool, allow: allow === 1, reason: reason === '' ? null : reason }).toEqual({ tool, allow: want.allow, reason: want.reason });
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(5);
  });
});
