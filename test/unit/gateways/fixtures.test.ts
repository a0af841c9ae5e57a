/**
 * Every gateway fixture (test/fixtures/gateways/<gateway>/*.json, built from each gateway's own
 * source and docs; see the folder's README) answered by the builtin engine, by `opa run --server`
 * and by `opa eval` on the compiled bundle: the three give the same answer, and it is the
 * fixture's expected one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { describeWithOpa, runOpa } from '../../helpers/opa.ts';
import { ENTRYPOINT, compileEstate, evalBuiltin, fixtures, readAnswer, servedEstate, type CompiledEstate } from './gateway-estate.ts';

const all = fixtures();

describe('gateway fixtures under the builtin engine', () => {
  let estate: CompiledEstate;
  beforeAll(async () => {
    estate = await compileEstate();
  });

  it('has fixtures for every gateway', () => {
    expect(new Set(all.map((f) => f.gateway))).toEqual(new Set(['envoy', 'kong', 'contextforge', 'docker']));
    expect(all.length).toBeGreaterThan(60);
  });

  it.each(all.map((f) => [`${f.gateway}/${f.name}`, f] as const))('%s', (_, f) => {
    const answer = evalBuiltin(ENTRYPOINT[f.gateway], f.input, estate.data);
    expect(readAnswer(f.gateway, answer), f.description).toEqual(f.expect);
  });
});

describeWithOpa('gateway fixtures in the real OPA', () => {
  const served = servedEstate();

  it('opa run --server answers every fixture exactly as the builtin engine does', async () => {
    for (const f of all) {
      const got = (await served.server.query(ENTRYPOINT[f.gateway], f.input)).result;
      const ours = evalBuiltin(ENTRYPOINT[f.gateway], f.input, served.estate.data);
      expect(got, `${f.gateway}/${f.name}`).toEqual(ours);
      expect(readAnswer(f.gateway, got), `${f.gateway}/${f.name}: ${f.description}`).toEqual(f.expect);
    }
  });

  it('opa eval --bundle answers every fixture as the fixture expects', () => {
    for (const f of all) {
      const query = `data.${ENTRYPOINT[f.gateway].split('/').join('.')}`;
      const r = runOpa(['eval', '--bundle', served.estate.bundle, '--stdin-input', '--format', 'json', query], { input: JSON.stringify(f.input) });
      expect(r.code, r.stderr).toBe(0);
      const value = JSON.parse(r.stdout).result?.[0]?.expressions?.[0]?.value;
      expect(readAnswer(f.gateway, value), `${f.gateway}/${f.name}: ${f.description}`).toEqual(f.expect);
    }
  }, 120_000);
});
