/**
 * What one (agent, tool) decision reads, split into the part that belongs to the tool and the part
 * that belongs to the agent, each as a text that is equal between two estates only when that part
 * is. A decision (src/governance/decisions.ts, src/governance/assess.ts) reads: that the grant exists;
 * whether the tool is exposed; the tool's data access rows; the bindings on the tool and on each
 * resource it touches, with their policies' effect and scope and every provenance (which decides
 * whether an edge is backed); and the expected exceptions that can apply to the agent, with how
 * each one's tool reference resolves. When neither part changed, the decision is the same.
 */
import type { Catalog, CatalogServer } from '../../catalog/types.ts';
import { frozenItemsText } from './frozen-inputs.ts';
import { textDigestHex } from '../../canonical/digest.ts';
import type { Estate } from '../../governance/estate.ts';

/** The bindings on each target as JSON text, each target's written once however many rows name it. */
function bindingsTexts(estate: Estate): (target: string) => string {
  const texts = new Map<string, string>();
  return (target) => {
    let text = texts.get(target);
    if (text === undefined) {
      const rows = (estate.bindingsByTarget.get(target) ?? []).map((b) => {
        const p = estate.policies.get(b.policy);
        return [b.target_kind, b.policy, p?.effect ?? null, p?.scope ?? null, b.provenance ?? null];
      });
      texts.set(target, (text = JSON.stringify(rows)));
    }
    return text;
  };
}

/**
 * The tool's part, for every tool some agent is granted: the JSON text of
 * `[exposed, bindings on the tool, [[resource, mode, provenance, bindings on the resource], ...]]`.
 * It reads the catalog's shape (`catalogShapeDigest`) and the manifest's data_access, governed_by
 * and policies, never its grants but for which tools are granted: when none of those changed,
 * `kept` gives the previous compile's text of a tool granted before.
 */
export function toolDecisionInputs(estate: Estate, kept?: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  const bindings = bindingsTexts(estate);
  const q = (v: unknown) => JSON.stringify(v ?? null);
  for (const key of estate.grantsByTool.keys()) {
    const before = kept?.get(key);
    if (before !== undefined) {
      out.set(key, before);
      continue;
    }
    const access = (estate.accessByTool.get(key) ?? []).map((a) => `[${q(a.resource)},${q(a.mode)},${q(a.provenance)},${bindings(a.resource)}]`);
    out.set(key, `[${q(estate.tools.get(key)?.exposed ?? false)},${bindings(key)},[${access.join(',')}]]`);
  }
  return out;
}

/** The manifest sections the tool's part reads besides the catalog (see `toolDecisionInputs`). */
export const TOOL_INPUT_SECTIONS: readonly string[] = ['data_access', 'governed_by', 'policies'];

/**
 * What the tool's part reads of the catalog, as a digest: each server's name, its tools' names and
 * its resources' URIs, in order (which tools are exposed, how a reference resolves, which targets
 * are resources). A description or a schema is not in it: a catalog edit of those keeps it.
 */
export function catalogShapeDigest(catalog: Catalog): string {
  return textDigestHex(frozenItemsText(catalog, catalog.servers, shapeTexts, (s) => JSON.stringify([s.name, (s.tools ?? []).map((t) => t.name), (s.resources ?? []).map((r) => r.uri)])));
}

const shapeTexts = new WeakMap<CatalogServer, string>();

/** Each agent's granted tool keys, sorted: the order its decisions are written in. */
export function grantedKeys(estate: Estate, agent: string): string[] {
  // The default sort orders strings by UTF-16 code unit, as cmp does, without a call per comparison.
  return [...(estate.grantsByAgent.get(agent)?.keys() ?? [])].sort();
}

/** An agent's grant map's keys, by the map: an estate's maps never change once built, and a watch's next estate keeps an unchanged agent's. */
const keysOf = new WeakMap<ReadonlyMap<string, unknown>, readonly string[]>();
const NO_KEYS: readonly string[] = [];

/** Each agent's granted tool keys in the order the manifest grants them. */
export function grantOrder(estate: Estate, agent: string): readonly string[] {
  const grants = estate.grantsByAgent.get(agent);
  if (grants === undefined) return NO_KEYS;
  let keys = keysOf.get(grants);
  if (keys === undefined) keysOf.set(grants, (keys = [...grants.keys()]));
  return keys;
}

/** The last agent part written for a list of keys, with the exceptions' text it was written with. */
const partOf = new WeakMap<readonly string[], { readonly exceptions: string; readonly text: string }>();

/**
 * A function giving each agent's part from its granted keys (`grantOrder`): those keys and the
 * exceptions that can apply to it. Keys in another order give another text, and the agent is
 * recomputed to the same decisions: a reordered manifest costs time, never a wrong answer.
 */
export function agentDecisionInputs(estate: Estate): (agent: string, keys: readonly string[]) => string {
  const exceptions = estate.exceptions.map((x) => {
    const wildcard = x.tool === '*' || x.tool.endsWith('::*');
    return { agent: x.agent, text: JSON.stringify([x, wildcard ? null : estate.resolveTool(x.tool)]) };
  });
  // The same keys and exceptions give the very string written before, which compares with the kept one at once.
  return (agent, keys) => {
    const applicable = exceptions.filter((x) => x.agent === agent || x.agent === '*').map((x) => x.text);
    const applicableText = applicable.join('\n');
    const known = partOf.get(keys);
    if (known !== undefined && known.exceptions === applicableText) return known.text;
    const text = JSON.stringify([keys, applicable]);
    partOf.set(keys, { exceptions: applicableText, text });
    return text;
  };
}
