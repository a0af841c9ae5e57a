/**
 * The HTML audit report as a reader sees it, in headless Chromium (Debian's `chromium` package,
 * driven by playwright-core). Skipped, saying why, where /usr/bin/chromium is not installed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { runCli } from '../../helpers/cli.ts';

const CHROMIUM = '/usr/bin/chromium';
const present = existsSync(CHROMIUM);
if (!present) console.warn(`skipping the HTML report browser test: ${CHROMIUM} is not installed (apt-get install -y chromium)`);

describe.skipIf(!present)('audit-report --format html in headless Chromium', () => {
  let ctx: BrowserContext;
  let page: Page;
  let dir: string;
  const requests: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tg-report-browser-'));
    const out = join(dir, 'fleet.html');
    const r = await runCli(['audit-report', '--example', 'fleet', '--format', 'html', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const { chromium } = await import('playwright-core');
    ctx = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    });
    page = await ctx.newPage();
    page.on('request', (req) => requests.push(req.url()));
    await page.goto(pathToFileURL(out).href);
  }, 60_000);

  afterAll(async () => {
    await ctx?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('loads nothing but the file itself', () => {
    expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
  });

  it('shows the governance graph as a laid-out SVG with the DENY paths drawn', async () => {
    const svg = page.locator('#governance-picture svg');
    await expect(svg.count()).resolves.toBe(1);
    const box = await svg.boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    expect(box!.height).toBeGreaterThan(200);
    const violations = page.locator('#governance-picture svg g.edge.deny_path.violation');
    const authorized = page.locator('#governance-picture svg g.edge.deny_path.authorized');
    expect(await violations.count()).toBeGreaterThan(0);
    expect(await authorized.count()).toBeGreaterThan(0);
    // the violation edges are painted red, and the reader's proxied docs tool is among them
    const stroke = await violations.first().locator('path').first().getAttribute('stroke');
    expect(stroke).toBe('#d32f2f');
    const titles = await violations.locator('title').allTextContents();
    expect(titles.some((t) => t.includes('agent:reader') && t.includes('memtomem-stm::'))).toBe(true);
    expect(await page.locator('#governance-picture svg g.node text', { hasText: 'ltm-confidentiality' }).count()).toBeGreaterThan(0);
  });

  it('shows the connectome picture with its edges coloured by sign', async () => {
    const edges = page.locator('#connectome-picture svg g.edge');
    expect(await edges.count()).toBeGreaterThan(40);
    expect(await page.locator('#connectome-picture svg g.edge.sign_unset').count()).toBe(await edges.count());
  });

  it('shows the counts and the findings a reader needs', async () => {
    await expect(page.locator('[data-finding-count="destructive-unsafeguarded"]').textContent()).resolves.toBe('3');
    await expect(page.locator('tr[data-agent="reader"] td.violation').textContent()).resolves.toBe('3');
    await expect(page.locator('h1').textContent()).resolves.toBe('toolgate audit report');
  });

  it('renders to a non-blank screenshot', async () => {
    const png = await page.locator('#governance-picture').screenshot({ path: join(dir, 'governance.png') });
    expect(png.length).toBeGreaterThan(10_000);
    // PNG width and height from the IHDR chunk
    expect(png.readUInt32BE(16)).toBeGreaterThan(300);
    expect(png.readUInt32BE(20)).toBeGreaterThan(200);
  });
});
