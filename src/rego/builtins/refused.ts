/**
 * Builtins outside the builtin engine's scope (network, runtime, signatures, module parsing).
 * Their names are registered so that the compiler knows them and `with` can replace them with a
 * mock; calling one unmocked stops evaluation with an error naming it.
 */
import { ObjectValue, setOf, type Value } from '../value.ts';
import { str } from './args.ts';
import { formatIP, parseIP } from './lib/ip.ts';
import { requestKeysFault } from './http-request.ts';
import { regoText } from './text.ts';
import { BuiltinError, registerBuiltins, type BuiltinDef } from './registry.ts';

/** Why each refused builtin is refused, by name (read by `toolgate rego capabilities`). */
export const REFUSED_REASONS = new Map<string, string>();

/** Refused because they reach the network: the engine never opens a connection. */
export const NETWORK_BUILTINS: ReadonlySet<string> = new Set(['http.send', 'net.lookup_ip_addr']);

/** `check` may refuse the call its own way (a type error) or answer what needs no network. */
function refuse(name: string, arity: number, why: string, check?: (args: Value[]) => Value | undefined): BuiltinDef {
  REFUSED_REASONS.set(name, why);
  return {
    name,
    arity,
    nondeterministic: true,
    fn: (args) => {
      const answer = check?.(args);
      if (answer !== undefined) return answer;
      throw new BuiltinError('eval_builtin_error', `${name}: not supported by the builtin Rego engine (${why}); mock it with \`with\``, { halt: true });
    },
  };
}

/**
 * OPA checks a request's keys before it would send it: an unknown or missing key is its type error
 * (undefined unless builtin errors are strict), whatever the network. With `raise_error: false` OPA
 * answers such a request with an error object instead, which is left to the refusal.
 */
function checkHttpRequest([req]: Value[]): undefined {
  if (!(req instanceof ObjectValue) || req.get('raise_error') === false) return undefined;
  const fault = requestKeysFault(req, regoText);
  if (fault !== undefined) throw new BuiltinError('eval_type_error', `http.send: operand 1 ${fault}`);
  return undefined;
}

/**
 * What Go's resolver answers without a lookup: an IP literal is itself (net.LookupIPAddr parses it
 * first: `::ffff:1.2.3.4` is 1.2.3.4, an IPv6 zone is kept), and `localhost` is the IPv4 loopback
 * address (RFC 6761 reserves the name; the pinned opa answers it so from a usual hosts file).
 * Anything else needs a lookup, and is refused.
 */
function lookupWithoutNetwork(args: Value[]): Value | undefined {
  const name = str('net.lookup_ip_addr', args, 0);
  if (name.toLowerCase() === 'localhost') return setOf('127.0.0.1');
  const pct = name.indexOf('%');
  const zone = pct >= 0 ? name.slice(pct + 1) : undefined;
  const ip = parseIP(pct >= 0 ? name.slice(0, pct) : name);
  if (ip === undefined || (zone !== undefined && (zone === '' || !ip.v6))) return undefined;
  return setOf(`${formatIP(ip.v6, ip.addr)}${zone === undefined ? '' : `%${zone}`}`);
}

export const REFUSED_BUILTINS: BuiltinDef[] = [
  refuse('http.send', 1, 'no network access', checkHttpRequest),
  refuse('net.lookup_ip_addr', 1, 'no network access', lookupWithoutNetwork),
];

registerBuiltins(REFUSED_BUILTINS);

/**
 * opa.runtime: OPA answers an empty object when no runtime information is configured, which is
 * always the case for an embedded engine (no environment, config or version is exposed).
 */
registerBuiltins([{ name: 'opa.runtime', arity: 0, fn: () => new ObjectValue() }]);
