/**
 * Times that are not RFC 3339 date-times, or name no real day or time. They were read with
 * Date.parse, which silently made another time of them: `2026-02-30` became March 2, `T24:00:00`
 * the next day, `1` the year 2001, a time without a zone the machine's local time, and a date alone
 * midnight UTC. Each is now refused where it is read, naming the file (and line) or the option; the
 * real times beside them (fractions, offsets, a leap day) are still read.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../../helpers/cli.ts';

const BASE = resolve(import.meta.dirname, '../../fixtures/malformed/base');

/** Not a date-time, or not a real one: each was read as some other time. */
const NOT_TIMES = ['2026-02-30T10:00:00Z', '2025-02-29T10:00:00Z', '2026-04-31T10:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T10:00:60Z', '2026-01-01T10:00:00+24:00', '2026-01-01T10:00:00', '2026-01-01', '1', 'Thu, 01 Jan 2026 10:00:00 GMT'];
/** Real times in the forms RFC 3339 allows. */
const TIMES = ['2026-01-01T10:00:00Z', '2026-01-01T10:00:00.123456789Z', '2026-01-01T12:00:00+02:00', '2024-02-29T10:00:00Z', '2026-01-01t10:00:00z'];

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-hostile-times-'));
  cpSync(BASE, dir, { recursive: true });
});

const decisionAt = (t: string) => `${JSON.stringify({ decision_id: '1', timestamp: t, path: 'toolgate/authz/decision', input: { agent: 'bot', tool: 'git::show' }, result: { allow: true } })}\n`;

function fresh(name: string, text: string): string {
  const d = mkdtempSync(join(dir, 'case-'));
  writeFileSync(join(d, name), text);
  return d;
}

describe('a decision-log timestamp', () => {
  it.each(NOT_TIMES)('%s: DECISION_LOG_INVALID at the file and line, nothing written', async (t) => {
    const d = fresh('logs.jsonl', `${decisionAt('2026-01-01T09:00:00Z')}${decisionAt(t)}`);
    const file = join(d, 'logs.jsonl');
    const r = await runCli(['observe', '--opa-decision-logs', file, '--out', join(d, 'observed.json')]);
    expect(r.stderr).toBe(`toolgate: error DECISION_LOG_INVALID at ${file}:2: ${file}:2: event 1: timestamp ${JSON.stringify(t)} is not RFC 3339\n`);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(readdirSync(d)).toEqual(['logs.jsonl']);
  });

  it.each(TIMES)('%s: read', async (t) => {
    const d = fresh('logs.jsonl', decisionAt(t));
    const r = await runCli(['observe', '--opa-decision-logs', join(d, 'logs.jsonl'), '--window-out', join(d, 'window.json')]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const w = JSON.parse(readFileSync(join(d, 'window.json'), 'utf8'));
    expect(Date.parse(w.started_at)).toBe(Date.parse(t.toUpperCase()));
  });
});

describe('an event time in observe --events', () => {
  it.each(NOT_TIMES.filter((t) => t !== '1'))('%s: OBSERVATION_INVALID at the line and field', async (t) => {
    const d = fresh('events.jsonl', `${JSON.stringify({ server: 'git', kind: 'invoke', target: 'show', at: t })}\n`);
    const file = join(d, 'events.jsonl');
    const r = await runCli(['observe', '--events', file, '--window-start', '2000-01-01T00:00:00Z', '--window-end', '2100-01-01T00:00:00Z']);
    expect(r.stderr).toBe(`toolgate: error OBSERVATION_INVALID at ${file}:1 (at): ${file}:1: time ${JSON.stringify(t)} is not an RFC 3339 timestamp or epoch milliseconds\n`);
    expect([r.code, r.stdout]).toEqual([1, '']);
  });
});

describe('a window bound', () => {
  it.each(NOT_TIMES)('observe --window-end %s: bad usage naming the option', async (t) => {
    const r = await runCli(['observe', '--events', join(dir, 'events.jsonl'), '--window-start', '2026-01-01T00:00:00Z', '--window-end', t, '--out', join(dir, 'never.json')]);
    expect(r.stderr).toBe(`toolgate: error USAGE: --window-end must be an RFC 3339 timestamp with a zone, got ${JSON.stringify(t)}\n`);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(readdirSync(dir)).not.toContain('never.json');
  });

  it.each(NOT_TIMES)('diff --per-agent with a window file ending %s: DIFF_REFUSED at the window file', async (t) => {
    const d = fresh('window.json', JSON.stringify({ started_at: '2026-01-01T00:00:00Z', ended_at: t }));
    const w = join(d, 'window.json');
    const r = await runCli(['diff', '--declared', join(dir, 'declared.json'), '--observed', join(dir, 'observed.json'), '--window', w, '--out', join(d, 'record.json'), '--per-agent', join(d, 'agents.json'), '--opa-decision-logs', join(dir, 'decision-logs.jsonl'), '--manifest', join(dir, 'governance.yaml'), '--catalog', join(dir, 'catalog.json')]);
    expect(r.stderr).toBe(`toolgate: error DIFF_REFUSED at ${w}: window ${w}: ended_at must be an RFC 3339 timestamp with a zone, got ${JSON.stringify(t)}; the per-agent report counts calls between its started_at and ended_at (RFC 3339)\n`);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(readdirSync(d)).toEqual(['window.json']);
  });

  it('observe --window-start/--window-end without seconds, as before: read', async () => {
    const r = await runCli(['observe', '--events', join(dir, 'events.jsonl'), '--window-start', '2026-01-01T00:00Z', '--window-end', '2026-01-02T00:00+01:00']);
    expect([r.code, r.stderr]).toEqual([0, '']);
  });
});

describe('a decision-log timestamp posted to bundle serve --receive', () => {
  it.each(NOT_TIMES)('%s: the batch is refused (4xx) and nothing is appended, so observe never meets it later', async (t) => {
    const { createBundleHandler } = await import('../../../src/bundle-service/handler.ts');
    const { fileReportSink } = await import('../../../src/cli/bundle-folder.ts');
    const { createServer } = await import('node:http');
    const d = mkdtempSync(join(dir, 'receive-'));
    const handler = createBundleHandler({ source: { get: () => undefined, subscribe: () => () => {} }, sink: fileReportSink(d) });
    const http = createServer(handler);
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (http.address() as { port: number }).port;
      const body = JSON.stringify([{ decision_id: 'd', timestamp: t, labels: { id: 'x' } }]);
      const r = await fetch(`http://127.0.0.1:${port}/logs`, { method: 'POST', body });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(readdirSync(d)).toEqual([]);
    } finally {
      http.close();
    }
  });
});
