/**
 * The HTML audit report as a reader sees it, in headless Chromium (Debian's `chromium` package,
 * driven by playwright-core): the bundled fleet example, and the benchmark's 0.1x synthetic estate
 * (2,000 tools, 200 agents). CI installs chromium (.ci/run), so there the test always runs; it
 * skips, saying so in its name, only outside CI where /usr/bin/chromium is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { writeSyntheticEstate } from '../../../bench/synthetic-estate.ts';
import { runCli } from '../../helpers/cli.ts';

const CHROMIUM = '/usr/bin/chromium';
const present = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
const title = present || inCi ? 'audit-report --format html in headless Chromium' : `audit-report --format html in headless Chromium (skipped: ${CHROMIUM} is not installed and this is not CI)`;
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

// The page's own globals, as the functions run inside it see them (the report's CSP forbids eval'd strings).
type InPage = { document: { querySelectorAll(s: string): { length: number } }; location: { hash: string } };
const rowsAre = (page: Page, selector: string, n: number) =>
  page.waitForFunction(([s, k]) => (globalThis as unknown as InPage).document.querySelectorAll(s).length === k, [selector, n] as const);
const goHash = (page: Page, hash: string) =>
  page.evaluate((h) => {
    (globalThis as unknown as InPage).location.hash = h;
  }, hash);

describe.skipIf(!present && !inCi)(title, () => {
  let browser: Browser;
  let dir: string;
  /** Kept after the run: the screenshots the test attaches. */
  let shots: string;
  let fleetHtml: string;
  let bigHtml: string;
  let generateMs = 0;
  const requests: string[] = [];
  const errors: string[] = [];

  const open = async (file: string, viewport = { width: 1400, height: 900 }, hash = ''): Promise<{ page: Page; loadMs: number }> => {
    const page = await browser.newPage({ viewport });
    page.on('request', (req) => requests.push(req.url()));
    page.on('pageerror', (e) => errors.push(e.message));
    const t = performance.now();
    await page.goto(pathToFileURL(file).href + hash);
    await page.waitForSelector('html[data-ready="true"]');
    return { page, loadMs: performance.now() - t };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tg-report-browser-'));
    shots = mkdtempSync(join(tmpdir(), 'toolgate-report-screenshots-'));
    fleetHtml = join(dir, 'fleet.html');
    const r = await runCli(['audit-report', '--example', 'fleet', '--format', 'html', '--out', fleetHtml]);
    expect(r.code, r.stderr).toBe(0);
    const estate = writeSyntheticEstate(join(dir, 'estate'), 0.1);
    bigHtml = join(dir, 'estate-0.1.html');
    const t = performance.now();
    const big = await runCli(['audit-report', '--format', 'html', '--manifest', estate.manifest, '--catalog', estate.catalog, '--out', bigHtml], { cwd: dir });
    generateMs = performance.now() - t;
    expect(big.code, big.stderr).toBe(0);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('the fleet example', () => {
    let page: Page;
    beforeAll(async () => {
      page = (await open(fleetHtml)).page;
    }, 60_000);

    it('loads nothing but the file itself and raises no script error', () => {
      expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
      expect(errors).toEqual([]);
    });

    it('shows the whole governance graph (small estate) as a laid-out SVG with the DENY paths drawn', async () => {
      const svg = page.locator('#governance-picture svg');
      await expect(svg.count()).resolves.toBe(1);
      const violations = page.locator('#governance-picture svg g.edge.deny_path.violation');
      expect(await violations.count()).toBeGreaterThan(0);
      expect(await violations.first().locator('path').first().getAttribute('stroke')).toBe('#d32f2f');
      expect(await page.locator('#connectome-picture svg g.edge.sign_unset').count()).toBeGreaterThan(40);
    });

    it('shows the gateway decision, profile and revision column beside each grant', async () => {
      const rows = page.locator('#grants-table tbody tr');
      expect(await rows.count()).toBe(22);
      const reader = page.locator('#grants-table tbody tr[data-agent="reader"][data-tool="filesystem::list_directory"] td');
      // agent, tool, server, gateway, reason, profile, revision, DENY path
      expect(await reader.allTextContents()).toEqual(['reader', 'filesystem::list_directory', 'filesystem', 'eligible', '-', 'strict', 'no bundle given', '-']);
      const denied = await page.locator('#grants-table tbody tr[data-agent="reader"] td:nth-child(5)').allTextContents();
      expect(denied).toContain('DENY_VIOLATION');
    });

    it('search finds an agent and hides the others', async () => {
      await page.fill('#search', 'reader');
      await rowsAre(page, '#agents-table tbody tr', 1);
      expect(await page.locator('#agents-table tbody tr').getAttribute('data-agent')).toBe('reader');
      await page.fill('#search', '');
      await rowsAre(page, '#agents-table tbody tr', 3);
    });

    it('the violations-only filter hides the grants without a DENY violation', async () => {
      const before = await page.locator('#grants-table tbody tr').count();
      await page.check('#violations-only');
      const after = await page.locator('#grants-table tbody tr td:nth-child(8)').allTextContents();
      expect(after.length).toBeGreaterThan(0);
      expect(after.length).toBeLessThan(before);
      expect(new Set(after)).toEqual(new Set(['violation']));
      await page.uncheck('#violations-only');
      expect(await page.locator('#grants-table tbody tr').count()).toBe(before);
    });

    it('opens an agent with its own graph, drawn with the legend shapes, and zooms it', async () => {
      await goHash(page, '#agent=reader');
      await page.waitForSelector('#detail .graph svg');
      expect(await page.locator('#detail-title').textContent()).toBe('agent reader');
      expect(await page.locator('#detail .graph g.node_agent rect').count()).toBe(1);
      expect(await page.locator('#detail .graph g.node_policyDeny polygon').count()).toBeGreaterThan(0);
      expect(await page.locator('#detail .graph path.edge.violation').count()).toBeGreaterThan(0);
      expect(await page.locator('#shape-legend polygon').count()).toBe(2);
      const svg = page.locator('#detail .graph svg');
      const before = await svg.getAttribute('viewBox');
      await page.click('#detail .graph button.zoom-in');
      const zoomed = await svg.getAttribute('viewBox');
      expect(zoomed).not.toBe(before);
      await page.click('#detail .graph button.zoom-fit');
      expect(await svg.getAttribute('viewBox')).toBe(before);
    });

    it('opens a policy with the agents that reach it', async () => {
      await goHash(page, '#policy=ltm-confidentiality');
      await page.waitForSelector('#detail-agents');
      expect(await page.locator('#detail-agents tbody tr[data-agent="reader"] td').nth(1).textContent()).toBe('violation');
    });
  });

  it('shows hostile estate names as text: no element, attribute or script of theirs', async () => {
    const h = join(dir, 'hostile');
    const name = `a</script><img src=x onerror="alert(1)"><!--'`;
    const key = `s<b>&amp;::t'</style>`;
    const manifest = {
      agents: [{ id: name }],
      policies: [{ id: `p"><svg onload=alert(1)>`, effect: 'DENY' }],
      grants: [{ agent: name, tool: key, provenance: { source: 'operator_asserted', confidence: 'high', evidence: 'x' } }],
      data_access: [{ tool: key, resource: 'res://<x>', mode: 'READS' }],
      governed_by: { 'res://<x>': [`p"><svg onload=alert(1)>`] },
    };
    const catalog = { kind: 'toolgate.catalog', schema_version: 1, servers: [{ name: 's<b>&amp;', tools: [{ name: `t'</style>`, inputSchema: { type: 'object' } }] }] };
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(h, { recursive: true });
    writeFileSync(join(h, 'governance.yaml'), JSON.stringify(manifest));
    writeFileSync(join(h, 'catalog.json'), JSON.stringify(catalog));
    const file = join(h, 'report.html');
    const r = await runCli(['audit-report', '--format', 'html', '--manifest', join(h, 'governance.yaml'), '--catalog', join(h, 'catalog.json'), '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    const { page } = await open(file, undefined, `#agent=${encodeURIComponent(name)}`);
    await page.waitForSelector('#detail .graph svg');
    expect(await page.locator('script').count()).toBe(2);
    expect(await page.locator('img, b').count()).toBe(0);
    expect(await page.locator('[onerror], [onload]').count()).toBe(0);
    expect(await page.locator('#agents-table tbody tr td').first().textContent()).toBe(name);
    expect(await page.locator('#detail-title').textContent()).toBe(`agent ${name}`);
    expect(await page.locator('#detail .graph g.node_agent title').textContent()).toBe(name);
    await page.close();
  }, 60_000);

  describe('the 0.1x synthetic estate (2,000 tools, 200 agents)', () => {
    it('weighs under 5 MB, names no local folder, and renders (its time is noted here and measured by npm run bench -- report)', async ({ annotate }) => {
      const bytes = readFileSync(bigHtml);
      expect(bytes.length).toBeLessThan(5 * 1024 * 1024);
      const text = bytes.toString('utf8');
      expect(text).not.toContain(dir);
      expect(text).not.toContain(tmpdir());
      const { page, loadMs } = await open(bigHtml);
      await annotate(`0.1x report: ${(bytes.length / 1e6).toFixed(2)} MB, generated in ${Math.round(generateMs)} ms, loaded in Chromium in ${Math.round(loadMs)} ms`);
      expect(await page.locator('#agents-table tbody tr').count()).toBe(200);
      // the grant table shows one page of the 20,000 grants, and says so
      expect(await page.locator('#grants-table tbody tr').count()).toBe(200);
      expect(await page.locator('#grants-shown').textContent()).toBe('200 shown of 20000 matching grants');
      await page.close();
    }, 60_000);

    it('search finds one agent of 200 and the server filter hides rows', async () => {
      const { page } = await open(bigHtml);
      await page.fill('#search', 'agent-150');
      await rowsAre(page, '#agents-table tbody tr', 1);
      expect(await page.locator('#agents-table tbody tr').getAttribute('data-agent')).toBe('agent-150');
      await page.fill('#search', '');
      await rowsAre(page, '#agents-table tbody tr', 200);
      await page.selectOption('#server-filter', { label: 'srv-7' });
      const servers = await page.locator('#grants-table tbody tr td:nth-child(3)').allTextContents();
      expect(servers.length).toBeGreaterThan(0);
      expect(new Set(servers)).toEqual(new Set(['srv-7']));
      expect(await page.locator('#agents-table tbody tr').count()).toBeLessThan(200);
      await page.close();
    }, 60_000);

    it.for([
      { width: 1400, height: 900 },
      { width: 390, height: 844 },
    ])('draws an agent graph at $width x $height and attaches the screenshot', { timeout: 60_000 }, async (viewport, { annotate }) => {
      const { page } = await open(bigHtml, viewport, '#agent=agent-7');
      await page.waitForSelector('#detail .graph svg');
      const box = await page.locator('#detail .graph').boundingBox();
      expect(box!.width).toBeGreaterThan(viewport.width * 0.6);
      expect(box!.width).toBeLessThanOrEqual(viewport.width);
      expect(await page.locator('#detail .graph g.node').count()).toBeGreaterThan(100);
      const path = join(shots, `agent-7-${viewport.width}x${viewport.height}.png`);
      const png = await page.screenshot({ path });
      expect(png.length).toBeGreaterThan(10_000);
      expect(png.readUInt32BE(16)).toBe(viewport.width);
      console.log(`screenshot: ${path}`);
      // Named, not attached: an attachment is copied into the checkout (.vitest-attachments/).
      await annotate(`screenshot ${viewport.width}x${viewport.height}: ${path}`);
      await page.close();
    });

    it('raised no script error and fetched nothing', () => {
      expect(errors).toEqual([]);
      expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    });
  });
});
