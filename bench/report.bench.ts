/**
 * The HTML audit report on the 0.1x synthetic estate (about 2,000 tools, 200 agents, 20,000
 * grants): `audit-report --format html` generation time and bytes against the JSON report of the
 * same estate, measured in the same run and taking turns round after round so a burst of load hits
 * both alike; then the time headless Chromium takes to load the file until its script has drawn
 * the tables (skipped, saying so, without /usr/bin/chromium). In-process runs of the CLI's main;
 * the first round pays module loading. Targets (reported, never asserted): generation + load under
 * 10 s, file under 5 MB.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { main } from '../src/cli/main.ts';
import { writeSyntheticEstate } from './synthetic-estate.ts';

const SCALE = Number(process.env.REPORT_SCALE ?? 0.1);
const ROUNDS = Number(process.env.REPORT_ROUNDS ?? 3);
const CHROMIUM = '/usr/bin/chromium';

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const dir = mkdtempSync(join(tmpdir(), 'toolgate-report-bench-'));
try {
  const estate = writeSyntheticEstate(join(dir, 'estate'), SCALE);
  const generate = async (format: 'json' | 'html', round: number): Promise<{ ms: number; bytes: number; file: string }> => {
    // A fresh file each round: the output guard finds `kind` only in the head of a JSON report, past which a large one puts it.
    const file = join(dir, `report-${round}.${format}`);
    let stderr = '';
    const t = performance.now();
    const code = await main(['audit-report', '--format', format, '--manifest', estate.manifest, '--catalog', estate.catalog, '--out', file], {
      stdout: () => {},
      stderr: (s) => (stderr += s),
      cwd: dir,
      env: {},
      stdin: async () => '',
    });
    const ms = performance.now() - t;
    if (code !== 0) throw new Error(`audit-report --format ${format} exited ${code}: ${stderr}`);
    return { ms, bytes: readFileSync(file).length, file };
  };
  const json: number[] = [];
  const html: number[] = [];
  let sizes = { json: 0, html: 0 };
  let htmlFile = '';
  for (let round = 0; round < ROUNDS; round++) {
    const j = await generate('json', round);
    const h = await generate('html', round);
    json.push(j.ms);
    html.push(h.ms);
    sizes = { json: j.bytes, html: h.bytes };
    htmlFile = h.file;
  }
  const load: number[] = [];
  if (existsSync(CHROMIUM)) {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        const t = performance.now();
        await page.goto(pathToFileURL(htmlFile).href);
        await page.waitForSelector('html[data-ready="true"]');
        load.push(performance.now() - t);
        await page.close();
      }
    } finally {
      await browser.close();
    }
  } else process.stdout.write(`browser load skipped: ${CHROMIUM} is not installed (apt-get install -y chromium)\n`);

  const mj = median(json);
  const mh = median(html);
  const ml = load.length > 0 ? median(load) : null;
  const total = mh + (ml ?? 0);
  process.stdout.write(`audit-report on the ${SCALE}x estate (${estate.counts.tools} tools, ${estate.counts.agents} agents, ${estate.counts.grants} grants), median of ${ROUNDS} (load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores)\n`);
  process.stdout.write(`  json generation   ${mj.toFixed(0).padStart(7)} ms  ${String(sizes.json).padStart(9)} bytes  (baseline)\n`);
  process.stdout.write(`  html generation   ${mh.toFixed(0).padStart(7)} ms  ${String(sizes.html).padStart(9)} bytes  ${(mh / mj).toFixed(2)}x json time, ${(sizes.html / sizes.json).toFixed(2)}x json size\n`);
  if (ml !== null) process.stdout.write(`  chromium load     ${ml.toFixed(0).padStart(7)} ms\n`);
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  process.stdout.write(`targets: generation + load < 10 s: ${ml === null ? 'not measured (no chromium)' : `${verdict(total < 10_000)} (${(total / 1000).toFixed(1)} s)`}; size < 5 MB: ${verdict(sizes.html < 5 * 1024 * 1024)} (${(sizes.html / 1e6).toFixed(2)} MB)\n`);
  process.stdout.write(
    `${JSON.stringify({ bench: 'report', scale: SCALE, rounds: ROUNDS, json_ms: Math.round(mj), html_ms: Math.round(mh), html_x_json: Number((mh / mj).toFixed(2)), load_ms: ml === null ? null : Math.round(ml), html_bytes: sizes.html, json_bytes: sizes.json, first_round: { json_ms: Math.round(json[0]!), html_ms: Math.round(html[0]!) } })}\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
