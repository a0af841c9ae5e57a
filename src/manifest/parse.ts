/**
 * Governance YAML -> Manifest. Schema faults, duplicates and references to unknown agents or
 * policies are errors with `file:line:col`; tool references are checked later against the catalog
 * (they are drift, not errors, unless `--strict-drift`).
 */
import { ToolgateError, formatAt, type SourceAt } from '../errors.ts';
import { parseText, type ParseOptions } from '../parse/document.ts';
import { validateAgainstSchema } from '../parse/schema.ts';
import type { PiecePlan } from '../parse/yaml-pieces.ts';
import { rowRuns } from './row-runs.ts';
import { accessKey, recheckRows, type RowsChecked } from './row-checks.ts';
import type { Agent, DataAccess, ExpectedException, Grant, GovernedBy, Manifest, Policy } from './types.ts';

interface RawManifest {
  instance_id?: string;
  agents?: (string | Agent)[];
  policies?: Policy[];
  grants?: Grant[];
  data_access?: DataAccess[];
  governed_by?: Record<string, (string | { policy: string; provenance?: GovernedBy['provenance'] })[]>;
  expected_exceptions?: ExpectedException[];
}

interface Fault {
  at: SourceAt;
  text: string;
}

/** `options.pieces`: read YAML in pieces, unchanged ones from a previous compile's (src/parse/yaml-pieces.ts). */
export function parseManifest(file: string, text: string, options: ParseOptions = {}): Manifest {
  const doc = parseText(file, text, /\.json$/i.test(file) ? 'json' : 'yaml', options);
  if (doc.value === null || doc.value === undefined) {
    throw new ToolgateError('MANIFEST_INVALID', `the governance manifest is empty`, { at: [{ file, line: 1, col: 1 }] });
  }
  validateAgainstSchema(doc, 'governance.schema.json', 'MANIFEST_INVALID', 'governance manifest');
  const raw = doc.value as RawManifest;
  const faults: { dup: Fault[]; dangling: Fault[] } = { dup: [], dangling: [] };

  const agents: Agent[] = (raw.agents ?? []).map((a) => (typeof a === 'string' ? { id: a } : a));
  const agentIds = uniqueIds(agents.map((a) => a.id), 'agent', (i) => doc.locate(['agents', i]), faults.dup);
  const policies = raw.policies ?? [];
  const policyIds = uniqueIds(policies.map((p) => p.id), 'policy', (i) => doc.locate(['policies', i, 'id']), faults.dup);

  const grants = raw.grants ?? [];
  const dataAccess = raw.data_access ?? [];
  // Read in pieces after a clean read: only the rows read now are checked (./row-checks.ts).
  const grantRuns = doc.pieces ? rowRuns(doc.pieces, 'grants', grants) : undefined;
  const accessRuns = doc.pieces ? rowRuns(doc.pieces, 'data_access', dataAccess) : undefined;
  const before = options.previousPlan ? rowsChecked.get(options.previousPlan) : undefined;
  let rows = before && grantRuns && accessRuns ? recheckRows(before, agentIds, grantRuns, accessRuns) : undefined;
  if (rows === undefined) {
    // Per agent, its tools: no key string is built per row (a few hundred thousand of them at scale).
    const seenGrant = new Map<string, Map<string, number>>();
    grants.forEach((g, i) => {
      if (!agentIds.has(g.agent)) faults.dangling.push({ at: doc.locate(['grants', i, 'agent']), text: `grant names unknown agent ${JSON.stringify(g.agent)}` });
      let tools = seenGrant.get(g.agent);
      if (tools === undefined) seenGrant.set(g.agent, (tools = new Map()));
      const prev = tools.get(g.tool);
      if (prev !== undefined) faults.dup.push({ at: doc.locate(['grants', i]), text: `grant ${g.agent} -> ${g.tool} is listed twice (first at grants[${prev}])` });
      else tools.set(g.tool, i);
    });
    const seenAccess = new Map<string, number>();
    dataAccess.forEach((d, i) => {
      const key = accessKey(d);
      const prev = seenAccess.get(key);
      if (prev !== undefined) faults.dup.push({ at: doc.locate(['data_access', i]), text: `data_access ${d.tool} ${d.mode} ${d.resource} is listed twice (first at data_access[${prev}])` });
      else seenAccess.set(key, i);
    });
    if (grantRuns && accessRuns) rows = { agentIds, grantRuns, grantTools: seenGrant, accessRuns, accessKeys: seenAccess };
  }

  const governedBy: GovernedBy[] = [];
  for (const [target, items] of Object.entries(raw.governed_by ?? {})) {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const g: GovernedBy = typeof item === 'string' ? { target, policy: item } : { target, policy: item.policy, ...(item.provenance ? { provenance: item.provenance } : {}) };
      if (!policyIds.has(g.policy)) faults.dangling.push({ at: doc.locate(['governed_by', target, i]), text: `governed_by ${JSON.stringify(target)} names unknown policy ${JSON.stringify(g.policy)}` });
      if (seen.has(g.policy)) faults.dup.push({ at: doc.locate(['governed_by', target, i]), text: `governed_by ${JSON.stringify(target)} lists policy ${JSON.stringify(g.policy)} twice` });
      seen.add(g.policy);
      governedBy.push(g);
    });
  }

  const exceptions = raw.expected_exceptions ?? [];
  exceptions.forEach((x, i) => {
    if (x.agent !== '*' && !agentIds.has(x.agent)) faults.dangling.push({ at: doc.locate(['expected_exceptions', i, 'agent']), text: `expected exception names unknown agent ${JSON.stringify(x.agent)}` });
    if (x.policy !== undefined && x.policy !== '*' && !policyIds.has(x.policy)) {
      faults.dangling.push({ at: doc.locate(['expected_exceptions', i, 'policy']), text: `expected exception names unknown policy ${JSON.stringify(x.policy)}` });
    }
  });

  for (const [code, list] of [['DUPLICATE_ENTRY', faults.dup], ['DANGLING_REFERENCE', faults.dangling]] as const) {
    if (list.length > 0) {
      throw new ToolgateError(code, list[0]!.text, { at: [list[0]!.at], details: list.length > 1 ? list.map((f) => `${formatAt(f.at)}: ${f.text}`) : [] });
    }
  }

  if (rows !== undefined && doc.plan) rowsChecked.set(doc.plan, rows);
  return {
    file,
    ...(raw.instance_id !== undefined ? { instance_id: raw.instance_id } : {}),
    agents,
    policies,
    grants,
    data_access: dataAccess,
    governed_by: governedBy,
    expected_exceptions: exceptions,
    raw,
    ...(doc.pieces ? { pieces: doc.pieces } : {}),
    ...(doc.plan ? { piecePlan: doc.plan } : {}),
    locate: (path) => doc.locate(path),
  };
}

/** The checks of the rows of a manifest read in pieces, by its plan: the next read, given that plan, starts from them. */
const rowsChecked = new WeakMap<PiecePlan, RowsChecked>();

function uniqueIds(ids: string[], what: string, at: (i: number) => SourceAt, faults: Fault[]): Set<string> {
  const seen = new Map<string, number>();
  ids.forEach((id, i) => {
    const prev = seen.get(id);
    if (prev !== undefined) faults.push({ at: at(i), text: `${what} ${JSON.stringify(id)} is declared twice (first at index ${prev})` });
    else seen.set(id, i);
  });
  return new Set(seen.keys());
}
