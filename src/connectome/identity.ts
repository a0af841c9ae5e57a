/**
 * Structural identities and the one function that turns an identity into a node id
 * (reference: beam_mcp docs/connectome.md, "Identity" and "The id string").
 *
 * The id is the server component, then the identity's tag, then the rest of the identity in
 * order; each component escaped (`%` -> `%25` first, then `/` -> `%2F`) and joined by `/`.
 * Modules are spelled as Elixir's `inspect/1` prints them. Nothing is normalised here (NFC is the
 * canonical form's job), and an id is compared and hashed as bytes, never parsed back.
 */
import { ToolgateError } from '../errors.ts';
import type { BoundarySource, Level, NodeKind } from './vocabulary.ts';
import { isBoundarySource } from './vocabulary.ts';

/**
 * A BEAM module, given by its atom's name as the BEAM holds it: `Elixir.Foo.Bar` for the Elixir
 * module `Foo.Bar`, `erl_mod` for an Erlang module.
 */
export type ModuleAtom = string;

/** A catalog part or a process, named within its server. Names are atom names or strings alike. */
export type NamedIdentity = {
  readonly tag: 'tool' | 'resource' | 'resource_template' | 'prompt' | 'process';
  readonly server: string;
  readonly name: string;
};

export type Identity =
  | { readonly tag: 'server'; readonly server: string }
  | NamedIdentity
  | { readonly tag: 'module'; readonly server: string; readonly module: ModuleAtom }
  | { readonly tag: 'mfa'; readonly server: string; readonly module: ModuleAtom; readonly function: string; readonly arity: number }
  | { readonly tag: 'boundary'; readonly server: string; readonly source: BoundarySource; readonly name: string };

/** Escapes one id component: `%` first, then `/`. */
export function escapeComponent(s: string): string {
  if (s.indexOf('%') < 0 && s.indexOf('/') < 0) return s;
  return s.replace(/%/g, '%25').replace(/\//g, '%2F');
}

const ERLANG_PLAIN = /^[a-z_][a-zA-Z0-9_@]*[?!]?$/;
const ALIAS_SEGMENT = /^[A-Z][a-zA-Z0-9_]*$/;

/** Quotes an atom name the way Elixir's inspect does: `:"has space"`. */
function quotedAtom(name: string): string {
  let out = '';
  for (const ch of name) {
    switch (ch) {
      case '"': out += '\\"'; break;
      case '\\': out += '\\\\'; break;
      case '\n': out += '\\n'; break;
      case '\t': out += '\\t'; break;
      case '\r': out += '\\r'; break;
      case '\f': out += '\\f'; break;
      case '\b': out += '\\b'; break;
      case '\v': out += '\\v'; break;
      case '\u0007': out += '\\a'; break;
      case '\u001b': out += '\\e'; break;
      case '\u0000': out += '\\0'; break;
      default: out += ch;
    }
  }
  return `:"${out.replace(/#\{/g, '\\#{')}"`;
}

/**
 * A module as Elixir's `inspect/1` prints it.
 * @example inspectModule('Elixir.Foo.Bar') // 'Foo.Bar'
 * @example inspectModule('erl_mod') // ':erl_mod'
 * @example inspectModule('has space') // ':"has space"'
 */
export function inspectModule(atom: ModuleAtom): string {
  if (atom.startsWith('Elixir.')) {
    const alias = atom.slice('Elixir.'.length);
    if (alias.split('.').every((seg) => ALIAS_SEGMENT.test(seg))) return alias;
    return quotedAtom(atom);
  }
  // `Elixir` alone, `nil`/`true`/`false` and plain identifiers print bare after a colon.
  if (ERLANG_PLAIN.test(atom)) return `:${atom}`;
  return quotedAtom(atom);
}

function refuseIdentity(what: string, identity: unknown): never {
  throw new ToolgateError('GRAPH_INVALID', `identity ${safeJson(identity)}: ${what}`, { at: [{ file: '<identity>' }] });
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)) ?? String(v);
  } catch {
    return String(v);
  }
}

function str(v: unknown, field: string, identity: unknown): string {
  if (typeof v !== 'string') refuseIdentity(`${field} must be a string`, identity);
  return v;
}

/** The components of an identity in id order: server, tag, then the rest. */
function components(identity: Identity): string[] {
  const server = str(identity.server, 'server', identity);
  switch (identity.tag) {
    case 'server':
      return [server, 'server'];
    case 'tool':
    case 'resource':
    case 'resource_template':
    case 'prompt':
    case 'process':
      return [server, identity.tag, str(identity.name, 'name', identity)];
    case 'module':
      return [server, 'module', inspectModule(str(identity.module, 'module', identity))];
    case 'mfa': {
      const arity = identity.arity;
      if (!Number.isSafeInteger(arity) || arity < 0 || arity > 255) refuseIdentity('arity must be an integer 0..255', identity);
      return [server, 'module', inspectModule(str(identity.module, 'module', identity)), str(identity.function, 'function', identity), String(arity)];
    }
    case 'boundary': {
      if (!isBoundarySource(identity.source)) refuseIdentity('source must be "application" or "boundary_module"', identity);
      const name = str(identity.name, 'name', identity);
      return [server, 'boundary', identity.source, identity.source === 'boundary_module' ? inspectModule(name) : name];
    }
    default:
      return refuseIdentity('unknown identity tag', identity);
  }
}

/**
 * The one place an identity becomes an id.
 * @example nodeId({ tag: 'resource', server: 'srv', name: 'r://a' }) // 'srv/resource/r:%2F%2Fa'
 */
export function nodeId(identity: Identity): string {
  return components(identity).map(escapeComponent).join('/');
}

/** The node kind an identity names: a boundary and an mfa are `module` nodes. */
export function kindOf(identity: Identity): NodeKind {
  switch (identity.tag) {
    case 'mfa':
    case 'boundary':
      return 'module';
    default:
      return identity.tag;
  }
}

/** The level an identity implies: mfa, module and boundary by their shape; everything else `server`. */
export function levelOf(identity: Identity): Level {
  switch (identity.tag) {
    case 'mfa':
      return 'mfa';
    case 'module':
      return 'module';
    case 'boundary':
      return 'boundary';
    default:
      return 'server';
  }
}

/** The identity one level coarser, where the identity alone says it (mfa -> module; anything -> its server). */
export function serverIdentity(identity: Identity): Identity {
  return { tag: 'server', server: identity.server };
}
