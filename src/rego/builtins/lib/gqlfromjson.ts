/**
 * The other way round from gqlast.ts: an AST object (as graphql.parse_query returned it, or built by
 * hand) read as Go's encoding/json reads it into gqlparser's structs, then rebuilt as a graphql-js
 * document for validation. Go's reading has two consequences kept here: keys match case-insensitively
 * and missing fields are zero, and every selection decodes as a field (gqlparser tries Field first,
 * which accepts any object), so fragment spreads and inline fragments come back as fields.
 */
import type { OperationTypeNode, DocumentNode } from 'graphql';
import { ObjectValue, type Value } from '../../value.ts';
import { GqlError } from './gqlast.ts';
import { gql } from './graphql-js.ts';

type Obj = ObjectValue;

function field(o: Obj, name: string): Value | undefined {
  const exact = o.get(name);
  if (exact !== undefined) return exact;
  const lower = name.toLowerCase();
  for (const [k, v] of o.entries()) if (typeof k === 'string' && k.toLowerCase() === lower) return v;
  return undefined;
}

function mismatch(what: string): never {
  throw new GqlError(`json: cannot unmarshal into Go struct field ${what}`, undefined, undefined);
}

function s(o: Obj, name: string): string {
  const v = field(o, name);
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') mismatch(name);
  return v;
}

function b(o: Obj, name: string): boolean {
  const v = field(o, name);
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') mismatch(name);
  return v;
}

function objs(o: Obj, name: string): Obj[] {
  const v = field(o, name);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) mismatch(name);
  return v.map((x) => {
    if (x === null) return new ObjectValue();
    if (!(x instanceof ObjectValue)) mismatch(name);
    return x;
  });
}

function strs(o: Obj, name: string): string[] {
  const v = field(o, name);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) mismatch(name);
  return v.map((x) => {
    if (typeof x !== 'string') mismatch(name);
    return x;
  });
}

function child(o: Obj, name: string): Obj | undefined {
  const v = field(o, name);
  if (v === undefined || v === null) return undefined;
  if (!(v instanceof ObjectValue)) mismatch(name);
  return v;
}

const nameNode = (value: string) => ({ kind: gql().Kind.NAME, value }) as const;

function valueNode(v: Obj | undefined): unknown {
  if (v === undefined) return undefined;
  const kind = field(v, 'Kind');
  const raw = s(v, 'Raw');
  const children = objs(v, 'Children');
  switch (typeof kind === 'number' ? kind : Number(kind ?? 0)) {
    case 0:
      return { kind: gql().Kind.VARIABLE, name: nameNode(raw) };
    case 1:
      return { kind: gql().Kind.INT, value: raw };
    case 2:
      return { kind: gql().Kind.FLOAT, value: raw };
    case 3:
      return { kind: gql().Kind.STRING, value: raw };
    case 4:
      return { kind: gql().Kind.STRING, value: raw, block: true };
    case 5:
      return { kind: gql().Kind.BOOLEAN, value: raw === 'true' };
    case 6:
      return { kind: gql().Kind.NULL };
    case 7:
      return { kind: gql().Kind.ENUM, value: raw };
    case 8:
      return { kind: gql().Kind.LIST, values: children.map((c) => valueNode(child(c, 'Value'))) };
    default:
      return { kind: gql().Kind.OBJECT, fields: children.map((c) => ({ kind: gql().Kind.OBJECT_FIELD, name: nameNode(s(c, 'Name')), value: valueNode(child(c, 'Value')) })) };
  }
}

function typeNode(t: Obj | undefined): unknown {
  if (t === undefined) return undefined;
  const elem = child(t, 'Elem');
  const inner = elem !== undefined ? { kind: gql().Kind.LIST_TYPE, type: typeNode(elem) } : { kind: gql().Kind.NAMED_TYPE, name: nameNode(s(t, 'NamedType')) };
  return b(t, 'NonNull') ? { kind: gql().Kind.NON_NULL_TYPE, type: inner } : inner;
}

const argNodes = (o: Obj) => objs(o, 'Arguments').map((a) => ({ kind: gql().Kind.ARGUMENT, name: nameNode(s(a, 'Name')), value: valueNode(child(a, 'Value')) ?? { kind: gql().Kind.NULL } }));
const directiveNodes = (o: Obj) => objs(o, 'Directives').map((d) => ({ kind: gql().Kind.DIRECTIVE, name: nameNode(s(d, 'Name')), arguments: argNodes(d) }));

function selectionSet(o: Obj): unknown {
  const sels = objs(o, 'SelectionSet');
  if (sels.length === 0) return undefined;
  return {
    kind: gql().Kind.SELECTION_SET,
    selections: sels.map((f) => {
      const name = s(f, 'Name');
      const alias = s(f, 'Alias');
      return { kind: gql().Kind.FIELD, alias: alias !== '' && alias !== name ? nameNode(alias) : undefined, name: nameNode(name), arguments: argNodes(f), directives: directiveNodes(f), selectionSet: selectionSet(f) };
    }),
  };
}

const variableNodes = (o: Obj, key: string) =>
  objs(o, key).map((v) => ({ kind: gql().Kind.VARIABLE_DEFINITION, variable: { kind: gql().Kind.VARIABLE, name: nameNode(s(v, 'Variable')) }, type: typeNode(child(v, 'Type')), defaultValue: valueNode(child(v, 'DefaultValue')), directives: directiveNodes(v) }));

const operationOf = (name: string): OperationTypeNode => {
  const { OperationTypeNode: op } = gql();
  return name === 'mutation' ? op.MUTATION : name === 'subscription' ? op.SUBSCRIPTION : op.QUERY;
};

/** A QueryDocument object as a graphql-js document. */
export function queryDocumentFromJson(o: ObjectValue): DocumentNode {
  const ops = objs(o, 'Operations').map((op) => ({
    kind: gql().Kind.OPERATION_DEFINITION,
    operation: operationOf(s(op, 'Operation')),
    name: s(op, 'Name') === '' ? undefined : nameNode(s(op, 'Name')),
    variableDefinitions: variableNodes(op, 'VariableDefinitions'),
    directives: directiveNodes(op),
    selectionSet: selectionSet(op) ?? { kind: gql().Kind.SELECTION_SET, selections: [] },
  }));
  const frags = objs(o, 'Fragments').map((f) => ({
    kind: gql().Kind.FRAGMENT_DEFINITION,
    name: nameNode(s(f, 'Name')),
    typeCondition: { kind: gql().Kind.NAMED_TYPE, name: nameNode(s(f, 'TypeCondition')) },
    directives: directiveNodes(f),
    selectionSet: selectionSet(f) ?? { kind: gql().Kind.SELECTION_SET, selections: [] },
  }));
  return { kind: gql().Kind.DOCUMENT, definitions: [...ops, ...frags] } as unknown as DocumentNode;
}

const inputValueNodes = (o: Obj, key: string) =>
  objs(o, key).map((a) => ({ kind: gql().Kind.INPUT_VALUE_DEFINITION, name: nameNode(s(a, 'Name')), type: typeNode(child(a, 'Type')), defaultValue: valueNode(child(a, 'DefaultValue')), directives: directiveNodes(a) }));

function definitionNode(d: Obj, extension: boolean): unknown {
  const kind = s(d, 'Kind');
  const base = { name: nameNode(s(d, 'Name')), directives: directiveNodes(d) };
  const named = (xs: string[]) => xs.map((x) => ({ kind: gql().Kind.NAMED_TYPE, name: nameNode(x) }));
  const fields = () =>
    objs(d, 'Fields').map((f) => ({ kind: gql().Kind.FIELD_DEFINITION, name: nameNode(s(f, 'Name')), arguments: inputValueNodes(f, 'Arguments'), type: typeNode(child(f, 'Type')), directives: directiveNodes(f) }));
  switch (kind) {
    case 'OBJECT':
      return { kind: extension ? gql().Kind.OBJECT_TYPE_EXTENSION : gql().Kind.OBJECT_TYPE_DEFINITION, ...base, interfaces: named(strs(d, 'Interfaces')), fields: fields() };
    case 'INTERFACE':
      return { kind: extension ? gql().Kind.INTERFACE_TYPE_EXTENSION : gql().Kind.INTERFACE_TYPE_DEFINITION, ...base, interfaces: named(strs(d, 'Interfaces')), fields: fields() };
    case 'UNION':
      return { kind: extension ? gql().Kind.UNION_TYPE_EXTENSION : gql().Kind.UNION_TYPE_DEFINITION, ...base, types: named(strs(d, 'Types')) };
    case 'ENUM':
      return { kind: extension ? gql().Kind.ENUM_TYPE_EXTENSION : gql().Kind.ENUM_TYPE_DEFINITION, ...base, values: objs(d, 'EnumValues').map((v) => ({ kind: gql().Kind.ENUM_VALUE_DEFINITION, name: nameNode(s(v, 'Name')), directives: directiveNodes(v) })) };
    case 'INPUT_OBJECT':
      return { kind: extension ? gql().Kind.INPUT_OBJECT_TYPE_EXTENSION : gql().Kind.INPUT_OBJECT_TYPE_DEFINITION, ...base, fields: inputValueNodes(d, 'Fields') };
    default:
      return { kind: extension ? gql().Kind.SCALAR_TYPE_EXTENSION : gql().Kind.SCALAR_TYPE_DEFINITION, ...base };
  }
}

/** A SchemaDocument object as a graphql-js document. */
export function schemaDocumentFromJson(o: ObjectValue): DocumentNode {
  const schemaNode = (sd: Obj, extension: boolean) => ({
    kind: extension ? gql().Kind.SCHEMA_EXTENSION : gql().Kind.SCHEMA_DEFINITION,
    directives: directiveNodes(sd),
    operationTypes: objs(sd, 'OperationTypes').map((t) => ({ kind: gql().Kind.OPERATION_TYPE_DEFINITION, operation: operationOf(s(t, 'Operation')), type: { kind: gql().Kind.NAMED_TYPE, name: nameNode(s(t, 'Type')) } })),
  });
  const defs = [
    ...objs(o, 'Schema').map((x) => schemaNode(x, false)),
    ...objs(o, 'SchemaExtension').map((x) => schemaNode(x, true)),
    ...objs(o, 'Directives').map((d) => ({
      kind: gql().Kind.DIRECTIVE_DEFINITION,
      name: nameNode(s(d, 'Name')),
      arguments: inputValueNodes(d, 'Arguments'),
      repeatable: b(d, 'IsRepeatable'),
      locations: strs(d, 'Locations').map(nameNode),
    })),
    ...objs(o, 'Definitions').map((d) => definitionNode(d, false)),
    ...objs(o, 'Extensions').map((d) => definitionNode(d, true)),
  ];
  return { kind: gql().Kind.DOCUMENT, definitions: defs } as unknown as DocumentNode;
}
