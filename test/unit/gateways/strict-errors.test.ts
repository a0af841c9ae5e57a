/**
 * No request makes an entrypoint fail. Under strict builtin errors (the REST API's
 * `strict-builtin-errors`, `opa eval --strict-builtin-errors`) a builtin that fails on what the
 * request holds is an evaluation error, and a gateway that fails open (ContextForge's plugin, an
 * Envoy with failure_mode_allow) turns an error into an allow. So every gateway fixture, and every
 * mutation of it that gives one of its values, down to a few levels, another type, must be
 * answered, never refused with an error: by real OPA with strict builtin errors on, and by the
 * builtin engine in strict mode with the same answer.
 */
import { expect, it } from 'vitest';
import { fromJSON, toJSON } from '../../../src/rego/index.ts';
import { describeWithOpa } from '../../helpers/opa.ts';
import { builtinPolicy, ENTRYPOINT, fixtures, GATEWAYS, servedEstate, type Gateway } from './gateway-estate.ts';
import { hostile } from './ext-authz.ts';

/** Values of other types put in place of each value of a request. */
const ODD: readonly unknown[] = [7, ['x'], 'text', null, { k: 1 }, true];
const DEPTH = 4;

/** The input with one value at a time, at every path down to `depth` levels, replaced by each of ODD. */
function* mutations(v: unknown, depth: number): Generator<unknown> {
  if (depth === 0 || v === null || typeof v !== 'object') return;
  const at = (k: string, x: unknown) => (Array.isArray(v) ? Object.assign([...v], { [k]: x }) : { ...(v as object), [k]: x });
  for (const k of Object.keys(v as object)) {
    for (const odd of ODD) yield at(k, odd);
    for (const sub of mutations((v as Record<string, unknown>)[k], depth - 1)) yield at(k, sub);
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const wellFormed = (s: string) => s.replace(LONE_SURROGATE, '\uFFFD');

/** A value as OPA reads it from the request's JSON: Go's decoder makes each lone surrogate U+FFFD. */
function asOpaReads(v: unknown): unknown {
  if (typeof v === 'string') return wellFormed(v);
  if (Array.isArray(v)) return v.map(asOpaReads);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [wellFormed(k), asOpaReads(x)]));
  return v;
}

function requests(): [Gateway, unknown][] {
  const base: [Gateway, unknown][] = [...fixtures().map((f) => [f.gateway, f.input] as [Gateway, unknown]), ...hostile(50).map(([, input]) => ['envoy', input] as [Gateway, unknown])];
  return base.flatMap(([g, input]) => [[g, input] as [Gateway, unknown], ...[...mutations(input, DEPTH)].map((m) => [g, m] as [Gateway, unknown])]);
}

describeWithOpa('every gateway entrypoint under strict builtin errors', () => {
  const served = servedEstate();

  it('answers each fixture and each mutation of it, in OPA and in the builtin engine alike', async () => {
    const data = fromJSON(served.estate.data);
    const all = requests();
    const failed: string[] = [];
    for (const [gateway, input] of all) {
      const path = ENTRYPOINT[gateway];
      const r = await fetch(`${served.server.url}/v1/data/${path}?strict-builtin-errors=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
      const body = (await r.json()) as { result?: unknown; errors?: { message: string }[] };
      if (r.status !== 200) {
        failed.push(`${gateway}: opa ${r.status} ${body.errors?.[0]?.message ?? ''} for ${JSON.stringify(input).slice(0, 200)}`);
        continue;
      }
      let mine: unknown;
      try {
        const v = builtinPolicy().evalRule(`data.${path.split('/').join('.')}`, { input: fromJSON(asOpaReads(input)), data, strict: true });
        mine = v === undefined ? undefined : toJSON(v);
      } catch (e) {
        failed.push(`${gateway}: builtin ${(e as Error).message} for ${JSON.stringify(input).slice(0, 200)}`);
        continue;
      }
      if (JSON.stringify(mine) !== JSON.stringify(body.result)) failed.push(`${gateway}: builtin ${JSON.stringify(mine)} but opa ${JSON.stringify(body.result)} for ${JSON.stringify(input)}`);
    }
    expect(failed.slice(0, 10)).toEqual([]);
    // Every gateway was asked, and thousands of times in all.
    expect(new Set(all.map(([g]) => g))).toEqual(new Set(GATEWAYS));
    expect(all.length).toBeGreaterThan(2000);
  }, 300_000);
});
