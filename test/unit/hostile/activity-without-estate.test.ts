/**
 * `observe --opa-decision-logs --activity-out` given no estate reported every call as undeclared
 * and every agent as granted nothing (exit 0), even beside a toolgate.yaml naming the estate, which
 * `diff --per-agent` reads. It now reads the estate as every command does, and with none at all it
 * is bad usage with nothing written.
 */
import { describe, it, expect } from 'vitest';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../../helpers/cli.ts';

const BASE = resolve(import.meta.dirname, '../../fixtures/malformed/base');

describe('observe --activity-out and the estate', () => {
  it('no estate anywhere: USAGE, nothing written', async () => {
    const d = mkdtempSync(join(tmpdir(), 'toolgate-hostile-activity-'));
    copyFileSync(join(BASE, 'decision-logs.jsonl'), join(d, 'logs.jsonl'));
    const r = await runCli(['observe', '--opa-decision-logs', 'logs.jsonl', '--out', 'observed.json', '--activity-out', 'activity.json'], { cwd: d });
    expect(r.stderr).toBe("toolgate: error USAGE: no estate given: pass --manifest and --catalog, --example NAME, or run 'toolgate init' to write toolgate.yaml here\n");
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(readdirSync(d)).toEqual(['logs.jsonl']);
  });

  it('a toolgate.yaml in the folder: its grants are the ones counted', async () => {
    const d = mkdtempSync(join(tmpdir(), 'toolgate-hostile-activity-'));
    cpSync(BASE, d, { recursive: true });
    const r = await runCli(['observe', '--opa-decision-logs', 'decision-logs.jsonl', '--activity-out', 'activity.json'], { cwd: d });
    expect([r.code, r.stderr]).toEqual([0, '']);
    const bot = JSON.parse(readFileSync(join(d, 'activity.json'), 'utf8')).agents.bot;
    expect({ granted: bot.granted, undeclared: bot.undeclared }).toEqual({ granted: 1, undeclared: [] });
  });
});
