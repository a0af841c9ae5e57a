/**
 * `json.verify_schema` and `json.match_schema`: JSON Schema drafts 4, 6 and 7 as OPA applies them
 * (see lib/gojsonschema.ts). A schema or document operand is JSON text or a Rego value (sets read as
 * arrays). A schema is compiled once per evaluation and kept in the query cache.
 */
import { ObjectValue, SetValue, isNumber, type Value } from '../value.ts';
import { scalarText } from '../value-json.ts';
import { builtinError, registerBuiltins, type BuiltinContext, type BuiltinDef } from './registry.ts';
import { validateDocument } from './lib/gojsonschema.ts';
import { compileSchema, type CompiledSchema } from './lib/gojsonschema-schema.ts';
import { SchemaError, type JsonValue } from './lib/gojsonschema-values.ts';
import { JsonSyntaxError, parseJsonValue } from './lib/json.ts';

class LoadError extends Error {}

/** Work of reading an operand: its text length, or its element count. */
function size(v: Value): number {
  if (typeof v === 'string') return v.length;
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + size(x), 1);
  if (v instanceof ObjectValue) return v.entries().reduce((n: number, [, x]) => n + size(x), 1);
  return 1;
}

function toJson(v: Value): JsonValue {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (isNumber(v)) return { num: scalarText(v, (s) => s)! };
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof SetValue) return v.values().map(toJson);
  const m = new Map<string, JsonValue>();
  for (const [k, x] of (v as ObjectValue).entries()) m.set(typeof k === 'string' ? k : scalarText(k, (s) => s) ?? String(k), toJson(x));
  return m;
}

/** OPA's astValueToJSONSchemaLoader: JSON text (checked first) or an object or array. */
function load(v: Value): JsonValue {
  if (typeof v === 'string') {
    try {
      return toJson(parseJsonValue(v));
    } catch (e) {
      if (e instanceof JsonSyntaxError) throw new LoadError('invalid JSON string');
      throw e;
    }
  }
  if (v instanceof ObjectValue || Array.isArray(v)) return toJson(v);
  throw new LoadError('wrong type, expected string or object');
}

function compiled(schema: Value, ctx: BuiltinContext): CompiledSchema {
  const key = `json.schema:${typeof schema === 'string' ? schema : JSON.stringify(toJsonText(schema))}`;
  const hit = ctx.cache.get(key) as unknown as CompiledSchema | undefined;
  if (hit !== undefined) return hit;
  const c = compileSchema(load(schema));
  ctx.cache.set(key, c as unknown as Value);
  return c;
}

function toJsonText(v: Value): unknown {
  const j = toJson(v);
  const plain = (x: JsonValue): unknown => (x instanceof Map ? Object.fromEntries([...x].map(([k, y]) => [k, plain(y)])) : Array.isArray(x) ? x.map(plain) : x);
  return plain(j);
}

export const JSON_SCHEMA_BUILTINS: BuiltinDef[] = [
  {
    name: 'json.verify_schema',
    arity: 1,
    fn: (a, ctx) => {
      ctx.budget?.work(size(a[0] as Value));
      try {
        compiled(a[0] as Value, ctx);
        return [true, null];
      } catch (e) {
        if (e instanceof LoadError || e instanceof SchemaError) return [false, `jsonschema: ${e.message}`];
        throw e;
      }
    },
  },
  {
    name: 'json.match_schema',
    arity: 2,
    fn: (a, ctx) => {
      let doc: JsonValue;
      let schema: CompiledSchema;
      try {
        doc = load(a[0] as Value);
        schema = compiled(a[1] as Value, ctx);
      } catch (e) {
        if (e instanceof LoadError || e instanceof SchemaError) throw builtinError('json.match_schema', e.message);
        throw e;
      }
      ctx.budget?.work(size(a[0] as Value) + size(a[1] as Value));
      let errors;
      try {
        errors = validateDocument(schema, doc);
      } catch (e) {
        // a schema whose `$ref` leads back to itself without consuming the document never ends (OPA's stack overflows)
        if (e instanceof RangeError && /call stack/i.test(e.message)) throw builtinError('json.match_schema', 'schema references recurse without end');
        throw e;
      }
      return [
        errors.length === 0,
        errors.map((e) => ObjectValue.ofDistinctKeys(['error', 'type', 'field', 'desc'], [e.error, e.type, e.field, e.description])),
      ];
    },
  },
];

registerBuiltins(JSON_SCHEMA_BUILTINS);
