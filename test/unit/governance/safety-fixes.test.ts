/**
 * The wrong answers of issue 18 that were safety bugs, each pinned on the case that found it:
 * resource URI keys, the most specific expected exception, the peer's risk table and the peer's
 * provenance defaults.
 */
import { describe, it, expect } from 'vitest';
import { parseManifest } from '../../../src/manifest/parse.ts';
import { parseCatalog } from '../../../src/catalog/parse.ts';
import { buildEstate } from '../../../src/governance/estate.ts';
import { checkAccess } from '../../../src/governance/check-access.ts';
import { blastRadius } from '../../../src/governance/blast-radius.ts';
import { assess, riskScore } from '../../../src/governance/assess.ts';
import { exceptionSpecificity } from '../../../src/governance/exceptions.ts';
import { resourceKey } from '../../../src/governance/resource-uri.ts';
import { rankFeatures } from '../../../src/selector/rank-features.ts';

const estateOf = (governance: string, catalog: object = { servers: [{ name: 'svc', tools: [{ name: 'fetch' }, { name: 'get' }] }] }) =>
  buildEstate(parseManifest('g.yaml', governance), parseCatalog('c.json', JSON.stringify(catalog)));

describe('resourceKey', () => {
  it.each([
    ['https://svc.example.com', 'https://svc.example.com/'],
    ['HTTPS://SVC.Example.COM/', 'https://svc.example.com/'],
    ['https://svc.example.com:443/a', 'https://svc.example.com/a'],
    ['http://svc.example.com:80', 'http://svc.example.com/'],
    ['http://svc.example.com:/x', 'http://svc.example.com/x'],
    ['https://svc.example.com?q=1', 'https://svc.example.com/?q=1'],
    ['https://svc.example.com/%7euser/%61b', 'https://svc.example.com/~user/ab'],
    ['https://svc.example.com/a%2fb', 'https://svc.example.com/a%2Fb'],
    ['https://[2001:DB8::1]:443/', 'https://[2001:db8::1]/'],
    ['FILE:///srv/app/.env', 'file:///srv/app/.env'],
    ['memory:Claude:Notes', 'memory:Claude:Notes'],
    ['https://*', 'https://*'],
    ['not a uri', 'not a uri'],
  ])('%s -> %s', (uri, key) => {
    expect(resourceKey(uri)).toBe(key);
  });

  it.each([
    ['https://svc.example.com/a', 'https://svc.example.com/a/'],
    ['https://svc.example.com/A', 'https://svc.example.com/a'],
    ['https://svc.example.com/a/../b', 'https://svc.example.com/b'],
    ['https://svc.example.com/a%2Fb', 'https://svc.example.com/a/b'],
    ['https://svc.example.com:8443/', 'https://svc.example.com/'],
    ['http://svc.example.com:443/', 'http://svc.example.com/'],
    ['https://User@svc.example.com/', 'https://user@svc.example.com/'],
    ['https://svc.example.com/?a=1', 'https://svc.example.com/?A=1'],
    ['file:///srv/App', 'file:///srv/app'],
  ])('never merges %s with %s', (a, b) => {
    expect(resourceKey(a)).not.toBe(resourceKey(b));
  });
});

describe('a DENY bound to one spelling of a resource', () => {
  const governance = `
agents: [bot]
policies: [{id: svc-deny, effect: DENY}]
grants: [{agent: bot, tool: svc::fetch}]
data_access: [{tool: svc::fetch, resource: "https://svc.example.com", mode: READS}]
governed_by:
  "https://svc.example.com/": [svc-deny]
`;
  it('is found from another (no false ALLOW)', () => {
    const r = checkAccess(estateOf(governance), 'bot', 'svc::fetch');
    expect(r.verdict).toBe('DENY');
    expect(r.deny_evidence).toHaveLength(1);
    expect(r.deny_evidence[0]).toMatchObject({ resource: 'https://svc.example.com/', policy: 'svc-deny', classification: 'violation' });
  });

  it('is one resource for blast-radius, whichever spelling is asked', () => {
    const e = estateOf(governance);
    for (const target of ['https://svc.example.com', 'HTTPS://svc.example.com:443/']) {
      const r = blastRadius(e, target);
      expect(r).toMatchObject({ kind: 'resource', found: true, resources: ['https://svc.example.com/'] });
      expect(r.policies.map((p) => p.id)).toEqual(['svc-deny']);
      expect(r.agents).toEqual([{ agent: 'bot', tools: ['svc::fetch'] }]);
    }
  });

  it('is excused by an exception naming a third spelling', () => {
    const e = estateOf(`${governance}expected_exceptions:\n  - {agent: bot, tool: svc::fetch, resource: "https://SVC.example.com:443", reason: reviewed}\n`);
    const r = checkAccess(e, 'bot', 'svc::fetch');
    expect(r.deny_evidence[0]).toMatchObject({ classification: 'authorized_but_governed', exception_reason: 'reviewed' });
  });
});

describe('when several expected exceptions cover one row', () => {
  const base = `
agents: [bot, other]
policies: [{id: p-deny, effect: DENY}, {id: q-deny, effect: DENY}]
grants: [{agent: bot, tool: svc::fetch}, {agent: other, tool: svc::fetch}]
data_access: [{tool: svc::fetch, resource: "file:///r", mode: READS}]
governed_by:
  "file:///r": [p-deny]
expected_exceptions:
`;
  const reasonFor = (exceptions: string[], agent = 'bot') =>
    checkAccess(estateOf(base + exceptions.map((x) => `  - ${x}\n`).join('')), agent, 'svc::fetch').deny_evidence[0]!.exception_reason;

  it('the exact tool wins over server::* and *, wherever they sit in the file', () => {
    const exact = '{agent: bot, tool: svc::fetch, reason: exact}';
    const server = '{agent: bot, tool: "svc::*", reason: server}';
    const any = '{agent: bot, tool: "*", reason: any}';
    expect(reasonFor([any, server, exact])).toBe('exact');
    expect(reasonFor([exact, server, any])).toBe('exact');
    expect(reasonFor([any, server])).toBe('server');
    expect(reasonFor([any])).toBe('any');
  });

  it('then the named agent over *, then a named resource, then a named policy', () => {
    expect(reasonFor(['{agent: "*", tool: svc::fetch, reason: all}', '{agent: bot, tool: svc::fetch, reason: bot}'])).toBe('bot');
    expect(reasonFor(['{agent: "*", tool: svc::fetch, reason: all}', '{agent: bot, tool: svc::fetch, reason: bot}'], 'other')).toBe('all');
    expect(reasonFor(['{agent: bot, tool: svc::fetch, policy: p-deny, reason: policy}', '{agent: bot, tool: svc::fetch, resource: "file:///r", reason: resource}'])).toBe('resource');
    expect(reasonFor(['{agent: bot, tool: svc::fetch, reason: plain}', '{agent: bot, tool: svc::fetch, policy: p-deny, reason: policy}'])).toBe('policy');
    // the tool outranks everything after it
    expect(reasonFor(['{agent: bot, tool: "svc::*", resource: "file:///r", policy: p-deny, reason: wide}', '{agent: "*", tool: svc::fetch, reason: narrow-tool}'])).toBe('narrow-tool');
  });

  it('equals are taken in manifest order', () => {
    expect(reasonFor(['{agent: bot, tool: svc::fetch, reason: first}', '{agent: bot, tool: svc::fetch, reason: second}'])).toBe('first');
  });

  it('the selector index picks the same exception', () => {
    const e = estateOf(base + '  - {agent: bot, tool: "*", reason: any}\n  - {agent: bot, tool: svc::fetch, reason: exact}\n');
    expect(rankFeatures(e, 'bot', ['svc::fetch']).rows[0]).toMatchObject({ deny: [{ exception_reason: 'exact' }] });
    expect(exceptionSpecificity({ agent: 'bot', tool: 'svc::fetch', reason: '' })).toBeGreaterThan(exceptionSpecificity({ agent: '*', tool: 'svc::*', resource: 'x', policy: 'y', reason: '' }));
  });
});

describe('the peer risk table', () => {
  const clean = (grantProvenance: string) => `
agents: [bot]
policies: [{id: ok, effect: ALLOW}]
grants: [{agent: bot, tool: svc::fetch${grantProvenance}}]
data_access: [{tool: svc::fetch, resource: "file:///r", mode: READS, provenance: {evidence: "src/fetch.ts::read"}}]
governed_by:
  "file:///r": [{policy: ok, provenance: {evidence: "TICKET-1"}}]
`;
  it('scores 0.0 for a clean tool whose grant cites no evidence (not 0.4)', () => {
    const e = estateOf(clean(''));
    expect(riskScore(assess(e, 'bot', 'svc::fetch'))).toBe(0);
    expect(rankFeatures(e, 'bot', ['svc::fetch']).rows[0]).toMatchObject({ risk_score: 0, unbacked: false });
  });

  it('scores 0.4 for an unbacked load-bearing edge (data access or binding)', () => {
    const e = estateOf(clean('').replace(', provenance: {evidence: "TICKET-1"}', ''));
    expect(riskScore(assess(e, 'bot', 'svc::fetch'))).toBe(0.4);
    expect(rankFeatures(e, 'bot', ['svc::fetch']).rows[0]).toMatchObject({ risk_score: 0.4, unbacked: true });
  });
});

describe('provenance defaults', () => {
  it('reports an omitted source as operator_asserted and an omitted confidence as high', () => {
    const e = estateOf(`
agents: [bot]
policies: [{id: p-deny, effect: DENY}]
grants: [{agent: bot, tool: svc::fetch}]
data_access: [{tool: svc::fetch, resource: "file:///r", mode: READS, provenance: {evidence: "e1"}}]
governed_by:
  "file:///r": [{policy: p-deny, provenance: {source: inferred}}]
  "svc::fetch": [p-deny]
`);
    const rows = checkAccess(e, 'bot', 'svc::fetch').deny_evidence;
    const viaResource = rows.find((r) => r.resource !== null)!;
    expect(viaResource.provenance).toEqual({ source: 'operator_asserted', confidence: 'high', evidence: 'e1' });
    expect(viaResource.policy_provenance).toEqual({ source: 'inferred', confidence: 'high', evidence: null });
    const direct = rows.find((r) => r.resource === null)!;
    expect(direct.provenance).toEqual({ source: 'operator_asserted', confidence: 'high', evidence: null });
    expect(direct.policy_provenance).toBeUndefined();
  });
});
