/**
 * The `graphql.*` builtins: queries and schemas parsed and validated with graphql-js (the GraphQL
 * reference implementation, whose validation rules and messages gqlparser, OPA's parser, follows),
 * answers shaped as OPA's (gqlparser's AST JSON, see lib/gqlast.ts) and errors worded as OPA words
 * them (`MESSAGE in GraphQL string at location L:C`).
 */
import type { GraphQLError, GraphQLSchema, ASTNode, DocumentNode, ValidationContext, ValidationRule } from 'graphql';
import { ObjectValue, type Value } from '../value.ts';
import { fromJSON } from '../value-json.ts';
import { builtinError, registerBuiltins, type BuiltinContext, type BuiltinDef } from './registry.ts';
import { oneOfError, str } from './args.ts';
// Not re-exported from the package root: the SDL checks buildASTSchema runs, with their locations.

import { GqlError, parseQueryDocument, parseSchemaDocument, queryDocumentJson, schemaDocumentJson } from './lib/gqlast.ts';
import { queryDocumentFromJson, schemaDocumentFromJson } from './lib/gqlfromjson.ts';
import { gql, gqlValidate } from './lib/graphql-js.ts';

/**
 * OPA's formatGqlParserError over gqlparser's error text: one `input:L:C: message` for a syntax
 * error, one such line per error, each ending in a newline, for a validation error list.
 */
function opaMessage(errors: readonly GqlError[], list: boolean): string {
  const lines = errors.map((e) => (e.line !== undefined ? `input:${e.line}:${e.column}: ${e.message}` : `input: ${e.message}`)).join('\n') + (list ? '\n' : '');
  const first = errors[0];
  if (first?.line === undefined) return `GraphQL parse error: ${lines}`;
  const rest = lines.slice(`input:${first.line}:${first.column}:`.length).replace(/^ +/, '');
  return `${rest.endsWith('.\n') ? rest.slice(0, -2) : rest} in GraphQL string at location ${first.line}:${first.column}`;
}

class GqlFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GqlFailure';
  }
}

function parseFailure(e: unknown): never {
  if (e instanceof GqlError) throw new GqlFailure(opaMessage([e], false));
  throw e;
}

/** Parsing and validating cost about one step per character (or AST node). */
function charge(ctx: BuiltinContext, ...vs: Value[]): void {
  for (const v of vs) ctx.budget?.work(typeof v === 'string' ? v.length : v instanceof ObjectValue ? v.size * 8 : 1);
}

function queryDoc(v: Value): DocumentNode {
  try {
    return typeof v === 'string' ? parseQueryDocument(v) : queryDocumentFromJson(v as ObjectValue);
  } catch (e) {
    return parseFailure(e);
  }
}

function schemaDoc(v: Value): DocumentNode {
  try {
    return typeof v === 'string' ? parseSchemaDocument(v) : schemaDocumentFromJson(v as ObjectValue);
  } catch (e) {
    return parseFailure(e);
  }
}

/** The name's position of the type definition called `name`, for errors gqlparser places there. */
function typeNameLoc(doc: DocumentNode, name: string): { line: number; column: number } | undefined {
  for (const d of doc.definitions) {
    if ('name' in d && d.name?.value === name && d.kind !== gql().Kind.OPERATION_DEFINITION && d.kind !== gql().Kind.FRAGMENT_DEFINITION) {
      const t = d.name.loc?.startToken;
      if (t) return { line: t.line, column: t.column };
    }
  }
  return undefined;
}

/** gqlparser's wording (and place) of the schema errors graphql-js words differently. */
function schemaFailure(doc: DocumentNode, e: GraphQLError): GqlFailure {
  let message = e.message;
  let loc: { line: number; column: number } | undefined = e.locations?.[0];
  let m = /^Unknown type "([^"]+)"\./.exec(message);
  if (m) message = `Undefined type ${m[1]}.`;
  m = /^There can be only one type named "([^"]+)"\.$/.exec(message);
  if (m) {
    message = `Cannot redeclare type ${m[1]}.`;
    loc = e.locations?.[1] ?? loc;
  }
  m = /^Interface field ([^.]+)\.(\S+) expected but (\S+) does not provide it\.$/.exec(message);
  if (m) {
    message = `For ${m[3]} to implement ${m[1]} it must have a field called ${m[2]}.`;
    loc = typeNameLoc(doc, m[3]!) ?? loc;
  }
  return new GqlFailure(`Error in gqlparser SchemaDocument to Schema conversion: input:${loc?.line ?? 0}:${loc?.column ?? 0}: ${message}`);
}

/** Extension kinds and the definition each stands for when its type is defined nowhere. */
const DEFINITION_OF: Readonly<Record<string, string>> = {
  ObjectTypeExtension: 'ObjectTypeDefinition',
  InterfaceTypeExtension: 'InterfaceTypeDefinition',
  UnionTypeExtension: 'UnionTypeDefinition',
  EnumTypeExtension: 'EnumTypeDefinition',
  InputObjectTypeExtension: 'InputObjectTypeDefinition',
  ScalarTypeExtension: 'ScalarTypeDefinition',
};

/** gqlparser lets `extend type X` stand for X's definition when the schema defines no X: its first extension becomes the definition. */
function extensionsAsDefinitions(doc: DocumentNode): DocumentNode {
  const defined = new Set<string>();
  for (const d of doc.definitions) if ('name' in d && d.name !== undefined && !(d.kind in DEFINITION_OF)) defined.add(d.name.value);
  let changed = false;
  const definitions = doc.definitions.map((d) => {
    const kind = DEFINITION_OF[d.kind];
    if (kind === undefined || !('name' in d) || d.name === undefined || defined.has(d.name.value)) return d;
    defined.add(d.name.value);
    changed = true;
    return { ...d, kind } as unknown as typeof d;
  });
  return changed ? { ...doc, definitions } : doc;
}

/** gqlparser's ValidateSchemaDocument (with its prelude of built-in types), as graphql-js builds the schema. */
function buildSchema(parsed: DocumentNode, cache: Map<string, Value>, key: string | undefined): GraphQLSchema {
  const doc = extensionsAsDefinitions(parsed);
  // graphql-js's SDL rules first (buildASTSchema would only throw their joined text, without locations).
  const sdl = gqlValidate().validateSDL(doc);
  if (sdl[0]) throw schemaFailure(doc, sdl[0]);
  try {
    const checked = gql().buildASTSchema(doc, { assumeValidSDL: true });
    // gqlparser does not require a query root type; graphql-js does.
    const errors = gql().validateSchema(checked).filter((e) => !/^Query root type must be provided/.test(e.message));
    if (errors[0]) throw schemaFailure(doc, errors[0]);
  } catch (e) {
    if (e instanceof gql().GraphQLError) throw schemaFailure(doc, e);
    throw e;
  }
  // Checked above; built again without graphql-js's own root-type check, which gql().validate() would repeat.
  const built = gql().buildASTSchema(doc, { assumeValid: true, assumeValidSDL: true });
  // gqlparser's prelude declares the built-in scalars whether the schema uses them or not
  const config = built.toConfig();
  const missing = gql().specifiedScalarTypes.filter((t) => !config.types.some((x) => x.name === t.name));
  const schema = new (gql().GraphQLSchema)({ ...config, types: [...config.types, ...missing], assumeValid: true });
  if (key !== undefined) cache.set(key, schema as unknown as Value);
  return schema;
}

function schemaOf(v: Value, ctx: BuiltinContext): GraphQLSchema {
  const key = typeof v === 'string' ? `graphql.schema:${v}` : undefined;
  const hit = key === undefined ? undefined : (ctx.cache.get(key) as unknown as GraphQLSchema | undefined);
  return hit ?? buildSchema(schemaDoc(v), ctx.cache, key);
}

/**
 * gqlparser's order of validation errors: its walker reports a node's errors after those of the nodes
 * inside it (operations before fragments); graphql-js reports in its own visiting order.
 */
function postOrder(doc: DocumentNode): { order: Map<ASTNode, number>; owner: Map<ASTNode, ASTNode> } {
  const order = new Map<ASTNode, number>();
  const owner = new Map<ASTNode, ASTNode>();
  const defs = [...doc.definitions.filter((d) => d.kind === gql().Kind.OPERATION_DEFINITION), ...doc.definitions.filter((d) => d.kind !== gql().Kind.OPERATION_DEFINITION)];
  for (const d of defs) {
    gql().visit(d, { leave: (node: ASTNode) => void order.set(node, order.size) });
    if (d.kind === gql().Kind.OPERATION_DEFINITION) for (const v of d.variableDefinitions ?? []) owner.set(v, d);
    gql().visit(d, {
      enter: (node: ASTNode) => {
        if ((node.kind === gql().Kind.FRAGMENT_DEFINITION || node.kind === gql().Kind.INLINE_FRAGMENT) && node.typeCondition) owner.set(node.typeCondition, node);
      },
    });
  }
  return { order, owner };
}

function requiredFieldType(schema: GraphQLSchema, type: string, field: string): string {
  const t = schema.getType(type);
  const f = t && 'getFields' in t ? (t.getFields() as Record<string, { type: { toString(): string } }>)[field] : undefined;
  return f ? f.type.toString() : '';
}

/** gqlparser's wording of the validation errors graphql-js words differently. */
function validationMessage(e: GraphQLError, schema: GraphQLSchema): string {
  let m = /^The (\w+) operation is not supported by the schema\.?$/.exec(e.message);
  if (m) return `Schema does not support operation type "${m[1]}"`;
  m = /^Argument "\w+\.(\w+)\((\w+):\)" of type "([^"]+)" is required, but it was not provided\.$/.exec(e.message);
  if (m) return `Field "${m[1]}" argument "${m[2]}" of type "${m[3]}" is required, but it was not provided.`;
  m = /^Expected value of type "([^"]+)" not to include unknown field "([^"]+)"\.( Did you mean [^?]+\?)?/.exec(e.message);
  if (m) return `Field "${m[2]}" is not defined by type "${m[1]}".${m[3] ?? ''}`;
  m = /^Expected value of type "([^"]+)" to include required field "([^"]+)"/.exec(e.message);
  if (m) return `Field "${m[1]}.${m[2]}" of required type "${requiredFieldType(schema, m[1]!, m[2]!)}" was not provided.`;
  // gqlparser shows a block string as a plain quoted one
  return e.message.replace(/"""([^"]*)"""/g, (_, t: string) => JSON.stringify(t));
}

/**
 * Where gqlparser reports an error, and the node whose place in its walk orders it: an unused variable
 * when it leaves the operation, a field conflict at the second field, a directive at its name (after
 * the `@`), an unknown type condition at its fragment (`fragment`, or an inline fragment's `on`).
 */
function placeLikeGqlparser(e: GraphQLError, owner: Map<ASTNode, ASTNode>): { node: ASTNode | undefined; line: number | undefined; column: number | undefined } {
  const loc = e.locations?.[0];
  const first = e.nodes?.[0];
  if (first && /is never used/.test(e.message)) return { node: owner.get(first) ?? first, line: loc?.line, column: loc?.column };
  if (/conflict because/.test(e.message) && e.nodes && e.nodes.length > 0) {
    const last = e.nodes[e.nodes.length - 1]!;
    const t = last.loc?.startToken;
    return { node: last, line: t?.line ?? loc?.line, column: t?.column ?? loc?.column };
  }
  if (/^Unknown directive "@|^The directive "@|^Directive "@/.test(e.message)) return { node: first, line: loc?.line, column: loc ? loc.column + 1 : undefined };
  const holder = first && /^Unknown type "/.test(e.message) ? owner.get(first) : undefined;
  if (holder) {
    const t = holder.kind === gql().Kind.INLINE_FRAGMENT ? first?.loc?.startToken.prev : holder.loc?.startToken;
    if (t) return { node: first, line: t.line, column: t.column };
  }
  // (and a block string at its contents, after the opening quotes)
  const block = first?.kind === gql().Kind.STRING && first.block === true;
  return { node: first, line: loc?.line, column: loc && block ? loc.column + 3 : loc?.column };
}

function rootless(doc: DocumentNode, schema: GraphQLSchema): boolean {
  const roots = { query: schema.getQueryType(), mutation: schema.getMutationType(), subscription: schema.getSubscriptionType() };
  return doc.definitions.some((d) => d.kind === gql().Kind.OPERATION_DEFINITION && !roots[d.operation]);
}

/** An operation whose root type the schema lacks (graphql-js 16 has no rule for it; gqlparser does). */
const knownOperationTypes: ValidationRule = (context: ValidationContext) => ({
  OperationDefinition(node) {
    const schema = context.getSchema();
    const root = node.operation === 'query' ? schema.getQueryType() : node.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
    if (!root) context.reportError(new (gql().GraphQLError)(`The ${node.operation} operation is not supported by the schema.`, { nodes: node }));
  },
});

let rules: readonly ValidationRule[] | undefined;
const validationRules = (): readonly ValidationRule[] => {
  if (rules) return rules;
  const { specifiedRules, LoneAnonymousOperationRule } = gql();
  const at = specifiedRules.indexOf(LoneAnonymousOperationRule) + 1;
  return (rules = [...specifiedRules.slice(0, at), knownOperationTypes, ...specifiedRules.slice(at)]);
};

function verify(schema: GraphQLSchema, doc: DocumentNode): void {
  const found: { e: GqlError; at: number }[] = [];
  const { order, owner } = postOrder(doc);
  // gqlparser's UniqueOperationNamesRule counts anonymous operations as all named ""
  const anonymous = doc.definitions.filter((d) => d.kind === gql().Kind.OPERATION_DEFINITION && d.name === undefined);
  for (const d of anonymous.slice(1)) {
    const t = d.loc?.startToken;
    found.push({ e: new GqlError('There can be only one operation named "".', t?.line, t?.column), at: (order.get(d) ?? 0) + 0.5 });
  }
  for (const e of gql().validate(schema, doc, validationRules())) {
    // without a root type gqlparser knows no field types, so it compares no fields
    if (/conflict because/.test(e.message) && rootless(doc, schema)) continue;
    const { node, line, column } = placeLikeGqlparser(e, owner);
    found.push({ e: new GqlError(validationMessage(e, schema), line, column), at: node ? (order.get(node) ?? order.size) : order.size });
  }
  if (found.length > 0) throw new GqlFailure(opaMessage(found.sort((x, y) => x.at - y.at).map((f) => f.e), true));
}

function checkOperand(name: string, v: Value, n: number): void {
  if (typeof v !== 'string' && !(v instanceof ObjectValue)) throw oneOfError(name, n, ['string', 'object'], v);
}

function attempt<T>(name: string, body: () => T): T {
  try {
    return body();
  } catch (e) {
    if (e instanceof GqlFailure) throw builtinError(name, e.message);
    throw e;
  }
}

/** Runs body; any GraphQL failure or wrong operand type gives `fallback` (the builtins that answer instead of failing). */
function orElse<T>(fallback: T, body: () => T): T {
  try {
    return body();
  } catch (e) {
    if (e instanceof GqlFailure) return fallback;
    throw e;
  }
}

const isOperand = (v: Value) => typeof v === 'string' || v instanceof ObjectValue;

export const GRAPHQL_BUILTINS: BuiltinDef[] = [
  {
    name: 'graphql.parse_query',
    arity: 1,
    fn: (a, ctx) => {
      const text = str('graphql.parse_query', a, 0);
      charge(ctx, text);
      return attempt('graphql.parse_query', () => fromJSON(queryDocumentJson(queryDoc(text))));
    },
  },
  {
    name: 'graphql.parse_schema',
    arity: 1,
    fn: (a, ctx) => {
      const text = str('graphql.parse_schema', a, 0);
      charge(ctx, text);
      return attempt('graphql.parse_schema', () => fromJSON(schemaDocumentJson(schemaDoc(text))));
    },
  },
  {
    name: 'graphql.parse',
    arity: 2,
    fn: (a, ctx) =>
      attempt('graphql.parse', () => {
        const [q, s] = a as [Value, Value];
        charge(ctx, q, s);
        checkOperand('graphql.parse', q, 0);
        const query = queryDoc(q);
        checkOperand('graphql.parse', s, 1);
        const sdoc = schemaDoc(s);
        const schema = schemaOf(s, ctx);
        verify(schema, query);
        return [fromJSON(queryDocumentJson(query)), fromJSON(schemaDocumentJson(sdoc))];
      }),
  },
  {
    name: 'graphql.parse_and_verify',
    arity: 2,
    fn: (a, ctx) =>
      orElse<Value>([false, new ObjectValue(), new ObjectValue()], () => {
        const [q, s] = a as [Value, Value];
        if (!isOperand(q) || !isOperand(s)) return [false, new ObjectValue(), new ObjectValue()];
        charge(ctx, q, s);
        const query = queryDoc(q);
        const sdoc = schemaDoc(s);
        verify(schemaOf(s, ctx), query);
        return [true, fromJSON(queryDocumentJson(query)), fromJSON(schemaDocumentJson(sdoc))];
      }),
  },
  {
    name: 'graphql.is_valid',
    arity: 2,
    fn: (a, ctx) =>
      orElse(false, () => {
        const [q, s] = a as [Value, Value];
        if (!isOperand(q) || !isOperand(s)) return false;
        charge(ctx, q, s);
        const query = queryDoc(q);
        verify(schemaOf(s, ctx), query);
        return true;
      }),
  },
  {
    name: 'graphql.schema_is_valid',
    arity: 1,
    fn: (a, ctx) =>
      orElse(false, () => {
        const s = a[0] as Value;
        if (!isOperand(s)) return false;
        charge(ctx, s);
        schemaOf(s, ctx);
        return true;
      }),
  },
];

registerBuiltins(GRAPHQL_BUILTINS);
