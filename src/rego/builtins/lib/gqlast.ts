/**
 * GraphQL documents (https://spec.graphql.org/October2021/) parsed with graphql-js and shown in the
 * shape OPA's graphql builtins return: the JSON of vektah/gqlparser's Go AST structs (QueryDocument,
 * SchemaDocument; Go field names, value kinds as numbers), with positions, nulls and empty lists
 * and objects pruned as OPA prunes them.
 */
import type { ArgumentNode, ConstDirectiveNode, DefinitionNode, DirectiveDefinitionNode, DirectiveNode, DocumentNode, EnumValueDefinitionNode, FieldDefinitionNode, FragmentDefinitionNode, InputValueDefinitionNode, OperationDefinitionNode, SelectionNode, TypeNode, ValueNode, VariableDefinitionNode, NamedTypeNode, OperationTypeDefinitionNode, SchemaDefinitionNode, SchemaExtensionNode, TypeDefinitionNode, TypeExtensionNode } from 'graphql';
import type { GraphQLError, Token } from 'graphql';
import { gql, once } from './graphql-js.ts';

export type GoJson = null | boolean | number | string | GoJson[] | { [k: string]: GoJson };

/** A parse or validation failure with gqlparser's message text and the first location. */
export class GqlError extends Error {
  constructor(
    message: string,
    readonly line: number | undefined,
    readonly column: number | undefined,
  ) {
    super(message);
    this.name = 'GqlError';
  }
}

/** graphql-js words tokens as `"}"` and ends with a period; gqlparser writes `}` and no period. */
function gqlparserWording(message: string): string {
  return message
    .replace(/^Syntax Error: /, '')
    .replace(/(Expected|found|Unexpected) "([^"A-Za-z_]+)"/g, '$1 $2')
    .replace(/\.$/, '');
}

export function gqlErrorOf(e: GraphQLError): GqlError {
  const loc = e.locations?.[0];
  let message = gqlparserWording(e.message);
  let column = loc?.column;
  const body = e.source?.body;
  const pos = e.positions?.[0];
  // gqlparser's lexer makes an unterminated string an invalid token, and a variable in a constant a bare `$`
  if (message === 'Unterminated string') message = 'Unexpected <Invalid>';
  if (/^Unexpected variable "\$[^"]*" in constant value$/.test(message)) message = 'Unexpected $';
  // gqlparser refuses a description where none may stand as the string token it is
  if (message.startsWith('Unexpected description') && body !== undefined && pos !== undefined) {
    const block = body.startsWith('"""', pos);
    const start = pos + (block ? 3 : 1);
    const end = block ? body.indexOf('"""', start) : body.indexOf('"', start);
    if (end >= 0) message = `Unexpected ${block ? 'BlockString' : 'String'} "${body.slice(start, end)}"`;
  }
  // gqlparser places a string token after its opening quotes
  if (column !== undefined && /^Unexpected (Block)?String "/.test(message)) column += message.startsWith('Unexpected BlockString') ? 3 : 1;
  return new GqlError(message, loc?.line, column);
}

function parseDocument(text: string): DocumentNode {
  // gqlparser reads a document with no definitions as empty; graphql-js calls it a syntax error.
  if (/^(?:[\s,\uFEFF]|#[^\n\r]*)*$/.test(text)) return { kind: gql().Kind.DOCUMENT, definitions: [] };
  try {
    // gqlparser also reads variable definitions on a fragment (`fragment a($v: Int) on T`)
    return gql().parse(text, { noLocation: false, allowLegacyFragmentVariables: true });
  } catch (e) {
    if (e instanceof gql().GraphQLError) throw emptyListWording(gqlErrorOf(e), text);
    throw e;
  }
}

/** A `{ }` list that must not be empty (fields, values, a selection set): gqlparser's `many` says so. */
function emptyListWording(e: GqlError, text: string): GqlError {
  if (e.message !== 'Expected Name, found }' || e.line === undefined || e.column === undefined) return e;
  let lineStart = 0;
  for (let line = 1, i = 0; line < e.line && i < text.length; i++) {
    if (text[i] === '\n' || (text[i] === '\r' && text[i + 1] !== '\n')) {
      line++;
      lineStart = i + 1;
    }
  }
  let at = lineStart + e.column - 2;
  while (at >= 0 && /[\s,\uFEFF]/.test(text[at] as string)) at--;
  return text[at] === '{' ? new GqlError('expected at least one definition, found }', e.line, e.column) : e;
}

const isExecutable = (d: DefinitionNode) => d.kind === gql().Kind.OPERATION_DEFINITION || d.kind === gql().Kind.FRAGMENT_DEFINITION;

function refuseDefinition(d: DefinitionNode, expectExecutable: boolean): never {
  const loc = d.loc?.startToken;
  const tok = loc?.kind === '{' ? '{' : loc?.value !== undefined ? `Name "${loc.value}"` : String(loc?.kind);
  throw new GqlError(`Unexpected ${expectExecutable || tok !== '{' ? tok : '{'}`, loc?.line, loc?.column);
}

/** Parses a query document (operations and fragments only, as gqlparser's ParseQuery). */
export function parseQueryDocument(text: string): DocumentNode {
  const doc = parseDocument(text);
  for (const d of doc.definitions) if (!isExecutable(d)) refuseDefinition(d, true);
  return doc;
}

/** Parses a schema document (type system definitions and extensions only, as ParseSchema). */
export function parseSchemaDocument(text: string): DocumentNode {
  const doc = parseDocument(text);
  for (const d of doc.definitions) if (isExecutable(d)) refuseDefinition(d, false);
  return doc;
}

// ------------------------------------------------------------------ to gqlparser's JSON

/** gqlparser's CommentGroup: the `#` comments right before a token (graphql-js keeps them in its token list). */
function commentsBefore(token: Token | undefined): GoJson {
  const list: GoJson[] = [];
  for (let t = token?.prev; t && t.kind === gql().TokenKind.COMMENT; t = t.prev) list.unshift({ Value: `#${t.value}` });
  return list.length === 0 ? null : { List: list };
}

const startOf = (n: { loc?: { startToken: Token } | undefined }) => n.loc?.startToken;

/** Comments of a definition that may have a description: before it, and between it and the rest. */
function descriptionComments(n: { loc?: { startToken: Token } | undefined; description?: { loc?: { startToken: Token; endToken: Token } } | undefined }): Record<string, GoJson> {
  if (n.description?.loc) {
    let after = n.description.loc.endToken.next;
    while (after && after.kind === gql().TokenKind.COMMENT) after = after.next;
    return { BeforeDescriptionComment: commentsBefore(n.description.loc.startToken), AfterDescriptionComment: commentsBefore(after ?? undefined) };
  }
  return { AfterDescriptionComment: commentsBefore(startOf(n)) };
}

const kindNumber = once((): Readonly<Record<string, number>> => ({
  [gql().Kind.VARIABLE]: 0,
  [gql().Kind.INT]: 1,
  [gql().Kind.FLOAT]: 2,
  [gql().Kind.STRING]: 3,
  [gql().Kind.BOOLEAN]: 5,
  [gql().Kind.NULL]: 6,
  [gql().Kind.ENUM]: 7,
  [gql().Kind.LIST]: 8,
  [gql().Kind.OBJECT]: 9,
}));

function value(v: ValueNode | undefined): GoJson {
  if (v === undefined) return null;
  const base = { ExpectedTypeHasDefault: false };
  switch (v.kind) {
    case gql().Kind.VARIABLE:
      return { ...base, Kind: 0, Raw: v.name.value };
    case gql().Kind.INT:
    case gql().Kind.FLOAT:
    case gql().Kind.ENUM:
      return { ...base, Kind: kindNumber()[v.kind]!, Raw: v.value };
    case gql().Kind.STRING:
      return { ...base, Kind: v.block ? 4 : 3, Raw: v.value };
    case gql().Kind.BOOLEAN:
      return { ...base, Kind: 5, Raw: String(v.value) };
    case gql().Kind.NULL:
      return { ...base, Kind: 6, Raw: 'null' };
    case gql().Kind.LIST:
      return { ...base, Kind: 8, Raw: '', Children: v.values.map((x) => ({ Name: '', Value: value(x) })) };
    case gql().Kind.OBJECT:
      return { ...base, Kind: 9, Raw: '', Children: v.fields.map((f) => ({ Name: f.name.value, Value: value(f.value) })) };
    default:
      return null;
  }
}

function type(t: TypeNode | undefined, nonNull = false): GoJson {
  if (t === undefined) return null;
  if (t.kind === gql().Kind.NON_NULL_TYPE) return type(t.type, true);
  if (t.kind === gql().Kind.LIST_TYPE) return { NamedType: '', Elem: type(t.type), NonNull: nonNull };
  return { NamedType: t.name.value, NonNull: nonNull };
}

const args = (xs: readonly ArgumentNode[] | undefined): GoJson => (xs ?? []).map((a) => ({ Name: a.name.value, Value: value(a.value) }));
const directives = (xs: readonly (DirectiveNode | ConstDirectiveNode)[] | undefined): GoJson =>
  (xs ?? []).map((d) => ({ Name: d.name.value, Arguments: args(d.arguments), Location: '' }));

function selections(xs: readonly SelectionNode[] | undefined): GoJson {
  return (xs ?? []).map((s): GoJson => {
    if (s.kind === gql().Kind.FIELD) {
      return { Alias: s.alias?.value ?? s.name.value, Name: s.name.value, Arguments: args(s.arguments), Directives: directives(s.directives), SelectionSet: selections(s.selectionSet?.selections), Comment: commentsBefore(startOf(s)) };
    }
    if (s.kind === gql().Kind.FRAGMENT_SPREAD) return { Name: s.name.value, Directives: directives(s.directives) };
    return { TypeCondition: s.typeCondition?.name.value ?? '', Directives: directives(s.directives), SelectionSet: selections(s.selectionSet.selections) };
  });
}

function variables(xs: readonly VariableDefinitionNode[] | undefined): GoJson {
  return (xs ?? []).map((v) => ({
    Description: v.description?.value ?? '',
    Variable: v.variable.name.value,
    Type: type(v.type),
    DefaultValue: value(v.defaultValue),
    Directives: directives(v.directives),
    Used: false,
  }));
}

function operation(o: OperationDefinitionNode): GoJson {
  return {
    Description: o.description?.value ?? '',
    Operation: o.operation,
    Name: o.name?.value ?? '',
    VariableDefinitions: variables(o.variableDefinitions),
    Directives: directives(o.directives),
    SelectionSet: selections(o.selectionSet.selections),
    // gqlparser keeps no comment for the `{ … }` shorthand
    Comment: startOf(o)?.kind === gql().TokenKind.BRACE_L ? null : commentsBefore(startOf(o)),
  };
}

function fragment(f: FragmentDefinitionNode): GoJson {
  return {
    Description: f.description?.value ?? '',
    Name: f.name.value,
    VariableDefinition: variables(f.variableDefinitions),
    TypeCondition: f.typeCondition.name.value,
    Directives: directives(f.directives),
    SelectionSet: selections(f.selectionSet.selections),
    Comment: commentsBefore(startOf(f)),
  };
}

/** gqlparser's QueryDocument JSON of a parsed query, pruned. */
export function queryDocumentJson(doc: DocumentNode): GoJson {
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === gql().Kind.OPERATION_DEFINITION).map(operation);
  const frags = doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === gql().Kind.FRAGMENT_DEFINITION).map(fragment);
  return prune({ Operations: ops, Fragments: frags });
}

function inputValue(a: InputValueDefinitionNode): GoJson {
  return { Description: a.description?.value ?? '', Name: a.name.value, DefaultValue: value(a.defaultValue), Type: type(a.type), Directives: directives(a.directives), ...descriptionComments(a) };
}

function fieldDef(f: FieldDefinitionNode | InputValueDefinitionNode): GoJson {
  const base = { Description: f.description?.value ?? '', Name: f.name.value, ...descriptionComments(f) };
  if (f.kind === gql().Kind.FIELD_DEFINITION) return { ...base, Arguments: (f.arguments ?? []).map(inputValue), Type: type(f.type), Directives: directives(f.directives) };
  return { ...base, DefaultValue: value(f.defaultValue), Type: type(f.type), Directives: directives(f.directives) };
}

const definitionKind = once((): Readonly<Record<string, string>> => ({
  [gql().Kind.SCALAR_TYPE_DEFINITION]: 'SCALAR',
  [gql().Kind.SCALAR_TYPE_EXTENSION]: 'SCALAR',
  [gql().Kind.OBJECT_TYPE_DEFINITION]: 'OBJECT',
  [gql().Kind.OBJECT_TYPE_EXTENSION]: 'OBJECT',
  [gql().Kind.INTERFACE_TYPE_DEFINITION]: 'INTERFACE',
  [gql().Kind.INTERFACE_TYPE_EXTENSION]: 'INTERFACE',
  [gql().Kind.UNION_TYPE_DEFINITION]: 'UNION',
  [gql().Kind.UNION_TYPE_EXTENSION]: 'UNION',
  [gql().Kind.ENUM_TYPE_DEFINITION]: 'ENUM',
  [gql().Kind.ENUM_TYPE_EXTENSION]: 'ENUM',
  [gql().Kind.INPUT_OBJECT_TYPE_DEFINITION]: 'INPUT_OBJECT',
  [gql().Kind.INPUT_OBJECT_TYPE_EXTENSION]: 'INPUT_OBJECT',
}));

function definition(d: TypeDefinitionNode | TypeExtensionNode): GoJson {
  const out: Record<string, GoJson> = {
    Kind: definitionKind()[d.kind]!,
    Description: 'description' in d ? (d.description?.value ?? '') : '',
    Name: d.name.value,
    Directives: directives(d.directives),
    BuiltIn: false,
    ...descriptionComments(d as TypeDefinitionNode),
  };
  if ('interfaces' in d) out.Interfaces = (d.interfaces ?? []).map((i: NamedTypeNode) => i.name.value);
  if ('fields' in d) out.Fields = (d.fields ?? []).map(fieldDef);
  if ('types' in d) out.Types = (d.types ?? []).map((t: NamedTypeNode) => t.name.value);
  if ('values' in d) out.EnumValues = (d.values ?? []).map((v: EnumValueDefinitionNode) => ({ Description: v.description?.value ?? '', Name: v.name.value, Directives: directives(v.directives), ...descriptionComments(v) }));
  return out;
}

function schemaDef(s: SchemaDefinitionNode | SchemaExtensionNode): GoJson {
  return {
    Description: 'description' in s ? (s.description?.value ?? '') : '',
    Directives: directives(s.directives),
    OperationTypes: (s.operationTypes ?? []).map((o: OperationTypeDefinitionNode) => ({ Operation: o.operation, Type: o.type.name.value })),
  };
}

function directiveDef(d: DirectiveDefinitionNode): GoJson {
  return {
    Description: d.description?.value ?? '',
    Name: d.name.value,
    Arguments: (d.arguments ?? []).map(inputValue),
    Locations: d.locations.map((l) => l.value),
    IsRepeatable: d.repeatable,
  };
}

/** gqlparser's SchemaDocument JSON of a parsed schema, pruned. */
export function schemaDocumentJson(doc: DocumentNode): GoJson {
  const out: Record<string, GoJson[]> = { Schema: [], SchemaExtension: [], Directives: [], Definitions: [], Extensions: [] };
  for (const d of doc.definitions) {
    if (d.kind === gql().Kind.SCHEMA_DEFINITION) out.Schema!.push(schemaDef(d));
    else if (d.kind === gql().Kind.SCHEMA_EXTENSION) out.SchemaExtension!.push(schemaDef(d));
    else if (d.kind === gql().Kind.DIRECTIVE_DEFINITION) out.Directives!.push(directiveDef(d));
    else if (d.kind.endsWith('Extension')) out.Extensions!.push(definition(d as TypeExtensionNode));
    else if (d.kind.endsWith('Definition')) out.Definitions!.push(definition(d as TypeDefinitionNode));
  }
  return prune(out);
}

/** OPA's pruneIrrelevantGraphQLASTNodes: drops nulls and empty lists and objects, recursively. */
function prune(v: GoJson): GoJson {
  if (Array.isArray(v)) {
    const out: GoJson[] = [];
    for (const x of v) {
      if (x === null) continue;
      const p = prune(x);
      if (Array.isArray(p) ? p.length > 0 : p !== null && typeof p === 'object' ? Object.keys(p).length > 0 : true) out.push(p);
    }
    return out;
  }
  if (v !== null && typeof v === 'object') {
    const out: Record<string, GoJson> = {};
    for (const [k, x] of Object.entries(v)) {
      if (x === null || k === 'Position') continue;
      const p = prune(x);
      if (Array.isArray(p) ? p.length > 0 : p !== null && typeof p === 'object' ? Object.keys(p).length > 0 : true) out[k] = p;
    }
    return out;
  }
  return v;
}
