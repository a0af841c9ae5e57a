/**
 * The engine interface: builtin over Rego source, wasm over the OPA ABI fixture (a hand-written
 * module, not a compiled Rego policy) and over wasm bundle tarballs, and opa where it is absent.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { loadPolicy, type LoadedPolicy } from '../../../src/engines/engine.ts';
import { emitTarGz } from '../../../src/emit/opa-tarball.ts';
import { opaRunner } from '../../../src/cli/opa-runner.ts';
import { abiFixtureWasm } from './abi-fixture.ts';

const enc = new TextEncoder();

describe('builtin engine', () => {
  const modules = [
    {
      name: 'p.rego',
      text: 'package p\nimport rego.v1\nx := input.a + data.k\ns contains v if some v in input.list\nboom := 1 if input.c\nboom := 2 if input.c\n',
    },
  ];
  it('evaluates many inputs against data set once, in plain JSON with the result type', async () => {
    const p = await loadPolicy({ kind: 'rego', modules });
    expect(p.engine).toBe('builtin');
    p.setData({ k: 10 });
    expect(p.evaluate({ a: 1 }, 'data.p.x')).toEqual({ defined: true, value: 11, type: 'number' });
    expect(p.evaluate({ a: 5 }, 'p/x')).toEqual({ defined: true, value: 15, type: 'number' });
    expect(p.evaluate({}, 'data.p.x')).toEqual({ defined: false });
  });
  it('keeps a set apart from an array', async () => {
    const p = await loadPolicy({ kind: 'rego', modules });
    expect(p.evaluate({ list: ['b', 'a'] }, 'data.p.s')).toEqual({ defined: true, value: ['a', 'b'], type: 'set' });
  });
  it('reports a conflict as REGO_EVAL_ERROR', async () => {
    const p = await loadPolicy({ kind: 'rego', modules });
    expect(() => p.evaluate({ c: true }, 'data.p.boom')).toThrow(expect.objectContaining({ code: 'REGO_EVAL_ERROR' }));
  });
  it('refuses wasm input (ENGINE_UNAVAILABLE)', async () => {
    await expect(loadPolicy({ kind: 'wasm', bytes: new Uint8Array(8) }, { engine: 'builtin' })).rejects.toMatchObject({ code: 'ENGINE_UNAVAILABLE' });
  });
  it('refuses a malformed entrypoint', async () => {
    const p = await loadPolicy({ kind: 'rego', modules });
    expect(() => p.evaluate({}, 'data..x')).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });
});

describe('wasm engine on the OPA ABI fixture', () => {
  let wasm: Uint8Array;
  let p: LoadedPolicy;
  beforeAll(async () => {
    wasm = await abiFixtureWasm();
    p = await loadPolicy({ kind: 'wasm', bytes: wasm });
  });
  it('lists the module entrypoints in dotted form', () => {
    expect(p.engine).toBe('wasm');
    expect(p.entrypoints).toEqual(['data.fixture.bad', 'data.fixture.echo', 'data.fixture.multi', 'data.fixture.sign', 'data.fixture.undefined']);
  });
  it('hands data and input to the module and parses its result set', () => {
    p.setData({ toolgate: { n: 1, s: 'é\u2028' } });
    const input = { edge: { from: 'a', to: 'b' }, list: [1, 2.5, null] };
    expect(p.evaluate(input, 'data.fixture.echo')).toEqual({ defined: true, value: { input, data: { toolgate: { n: 1, s: 'é\u2028' } } }, type: 'object' });
    p.setData({ other: true });
    expect(p.evaluate(input, 'fixture/echo')).toMatchObject({ value: { data: { other: true } } });
  });
  it('sends falsy inputs as JSON, not as "no input"', () => {
    for (const v of [false, 0, '', null]) expect(p.evaluate(v, 'fixture/echo')).toMatchObject({ value: { input: v } });
  });
  it('grows memory for a large input', () => {
    const big = 'x'.repeat(1 << 20);
    const r = p.evaluate({ big }, 'fixture/echo');
    expect(r.defined && r.type === 'object' && (r.value as { input: { big: string } }).input.big.length).toBe(1 << 20);
  });
  it('maps [] to undefined and several rows to multiple', () => {
    expect(p.evaluate({}, 'fixture/undefined')).toEqual({ defined: false });
    expect(p.evaluate({ edge: { kind: 'read' } }, 'fixture/sign')).toEqual({ defined: false });
    expect(p.evaluate({ edge: { kind: 'invoke' } }, 'fixture/sign')).toEqual({ defined: true, value: 'hold', type: 'string' });
    expect(p.evaluate({}, 'fixture/multi')).toEqual({ defined: true, multiple: ['allow', 'deny'], type: 'multiple' });
  });
  it('refuses an entrypoint the module does not export', () => {
    expect(() => p.evaluate({}, 'data.nope')).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });
  it('refuses bytes that are not a wasm module', async () => {
    await expect(loadPolicy({ kind: 'wasm', bytes: enc.encode('package p') })).rejects.toMatchObject({ code: 'BUNDLE_INVALID' });
  });
  it('refuses Rego source (ENGINE_UNAVAILABLE)', async () => {
    await expect(loadPolicy({ kind: 'rego', modules: [] }, { engine: 'wasm' })).rejects.toMatchObject({ code: 'ENGINE_UNAVAILABLE' });
  });

  describe('in a wasm bundle tarball', () => {
    const manifest = (wasmList: unknown) => ({ name: '.manifest', bytes: enc.encode(JSON.stringify({ revision: 'r', roots: ['fixture', 'x', 'top'], wasm: wasmList })) });
    it('takes entrypoints from .manifest and mounts the bundle data at its folders', async () => {
      const tgz = await emitTarGz([
        manifest([
          { entrypoint: 'fixture/echo', module: 'policy.wasm' },
          { entrypoint: 'fixture/sign', module: 'policy.wasm' },
        ]),
        { name: 'policy.wasm', bytes: wasm },
        { name: 'x/y/data.json', bytes: enc.encode('{"z":1}') },
        { name: 'data.json', bytes: enc.encode('{"top":true}') },
      ]);
      const b = await loadPolicy({ kind: 'bundle', bytes: tgz });
      expect(b.entrypoints).toEqual(['data.fixture.echo', 'data.fixture.sign']);
      expect(b.evaluate({ q: 1 }, 'data.fixture.echo')).toMatchObject({ value: { input: { q: 1 }, data: { top: true, x: { y: { z: 1 } } } } });
      expect(() => b.evaluate({}, 'fixture/multi')).toThrow(expect.objectContaining({ code: 'USAGE' }));
    });
    it('refuses a manifest naming a module the bundle lacks', async () => {
      const tgz = await emitTarGz([manifest([{ entrypoint: 'fixture/echo', module: '/missing.wasm' }]), { name: 'policy.wasm', bytes: wasm }]);
      await expect(loadPolicy({ kind: 'bundle', bytes: tgz })).rejects.toMatchObject({ code: 'BUNDLE_INVALID' });
    });
    it('refuses a manifest entrypoint the module does not export', async () => {
      const tgz = await emitTarGz([manifest([{ entrypoint: 'fixture/nope', module: 'policy.wasm' }]), { name: 'policy.wasm', bytes: wasm }]);
      await expect(loadPolicy({ kind: 'bundle', bytes: tgz })).rejects.toMatchObject({ code: 'BUNDLE_INVALID' });
    });
    it('refuses a bundle without wasm modules', async () => {
      const tgz = await emitTarGz([{ name: '.manifest', bytes: enc.encode('{"roots":[""]}') }, { name: 'p.rego', bytes: enc.encode('package p') }]);
      await expect(loadPolicy({ kind: 'bundle', bytes: tgz })).rejects.toMatchObject({ code: 'BUNDLE_INVALID' });
    });
    // OPA matches a manifest's wasm module against the raw entry name (here without opa build's /).
    it('refuses colliding data files', async () => {
      const tgz = await emitTarGz([
        manifest([{ entrypoint: 'fixture/echo', module: 'policy.wasm' }]),
        { name: 'policy.wasm', bytes: wasm },
        { name: 'x/data.json', bytes: enc.encode('{"y":1}') },
        { name: 'x/y/data.json', bytes: enc.encode('{"z":1}') },
      ]);
      await expect(loadPolicy({ kind: 'bundle', bytes: tgz })).rejects.toMatchObject({ code: 'BUNDLE_INVALID' });
    });
  });
});

describe('opa engine', () => {
  it('says ENGINE_UNAVAILABLE when the opa binary is not on PATH', async () => {
    const runner = opaRunner({ PATH: '/nonexistent' });
    expect(runner.available().ok).toBe(false);
    await expect(
      loadPolicy({ kind: 'rego', modules: [{ name: 'p.rego', text: 'package p\nx := 1' }] }, { engine: 'opa', entrypoints: ['data.p.x'], opa: runner }),
    ).rejects.toMatchObject({ code: 'ENGINE_UNAVAILABLE' });
  });
});
