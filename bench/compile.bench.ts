/**
 * Compile at scale (issue 2): wall time and peak memory of `toolgate compile` on the synthetic
 * estate, as a ratio to a baseline that only reads and parses the same inputs (the same parsers:
 * JSON.parse and js-yaml) and
 * writes the same number of JSON bytes; and at 1/10 scale, to show how time grows with input.
 * Each measurement runs in its own process so peak RSS is its own, with the V8 flags the `toolgate`
 * bin runs with (both sides alike).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load as loadYaml, CORE_SCHEMA } from 'js-yaml';
import { writeSyntheticEstate } from './synthetic-estate.ts';

const self = fileURLToPath(import.meta.url);

async function child(mode: string, manifest: string, catalog: string, out: string, bytes: number): Promise<void> {
  const t0 = performance.now();
  if (mode === 'baseline') {
    JSON.parse(readFileSync(catalog, 'utf8'));
    loadYaml(readFileSync(manifest, 'utf8'), { schema: CORE_SCHEMA });
    writeFileSync(join(out, 'baseline.json'), JSON.stringify({ pad: 'x'.repeat(Math.max(0, bytes - 12)) }));
  } else {
    const { main } = await import('../src/cli/main.ts');
    const code = await main(['compile', '--manifest', manifest, '--catalog', catalog, '--out', out], {
      stdout: () => {},
      stderr: (t) => process.stderr.write(t),
      cwd: process.cwd(),
      env: { SOURCE_DATE_EPOCH: '0' },
      stdin: async () => '',
    });
    if (code !== 0) throw new Error(`compile exited ${code}`);
  }
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ms, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
}

function measure(mode: string, manifest: string, catalog: string, bytes = 0): { ms: number; maxRssMiB: number; out: string } {
  const out = mkdtempSync(join(tmpdir(), `tg-bench-${mode}-`));
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--max-old-space-size=8192', '--max-semi-space-size=64', self, mode, manifest, catalog, out, String(bytes)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`${mode} failed: ${r.stderr}`);
  return { ...(JSON.parse(r.stdout) as { ms: number; maxRssMiB: number }), out };
}

function outputBytes(dir: string): number {
  return readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

async function bench(): Promise<void> {
  const results: Record<string, { compile: number; baseline: number }> = {};
  for (const scale of [0.1, 1]) {
    const dir = mkdtempSync(join(tmpdir(), 'tg-bench-estate-'));
    const e = writeSyntheticEstate(dir, scale);
    const inBytes = statSync(e.manifest).size + statSync(e.catalog).size;
    const compile = measure('compile', e.manifest, e.catalog);
    const bytes = outputBytes(compile.out);
    const baseline = measure('baseline', e.manifest, e.catalog, bytes);
    results[scale] = { compile: compile.ms, baseline: baseline.ms };
    console.log(`scale ${scale}: ${JSON.stringify(e.counts)}`);
    console.log(`  input ${(inBytes / 1e6).toFixed(1)} MB, output ${(bytes / 1e6).toFixed(1)} MB`);
    console.log(`  compile   ${(compile.ms / 1000).toFixed(2)} s, peak RSS ${compile.maxRssMiB.toFixed(0)} MiB`);
    console.log(`  baseline  ${(baseline.ms / 1000).toFixed(2)} s, peak RSS ${baseline.maxRssMiB.toFixed(0)} MiB (read + parse inputs, write ${bytes} JSON bytes)`);
    console.log(`  ratio compile/baseline: ${(compile.ms / baseline.ms).toFixed(2)}x (target <= 3x)`);
    for (const d of [dir, compile.out, baseline.out]) rmSync(d, { recursive: true, force: true });
  }
  const growth = results[1]!.compile / results[0.1]!.compile;
  console.log(`growth: 10x the input took ${growth.toFixed(2)}x the time (target <= 12x)`);
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'baseline' || mode === 'compile') await child(mode, rest[0]!, rest[1]!, rest[2]!, Number(rest[3]));
else await bench();
