/**
 * Loading a JSON Schema document (drafts 4, 6 and 7, or the hybrid gojsonschema reads when no
 * `$schema` names one) into the sub-schemas the validator walks, refused with gojsonschema's messages.
 * `$ref` resolves only within the schema document (`#`, `#/definitions/x`); other references are refused.
 */
import { compileRegexp, RegexpSyntaxError, type Regexp } from './re2.ts';
import { floatJson, isArr, isIntRat, isMap, isNum, type JsonValue, type Rat, rat, SchemaError, sortedKeys } from './gojsonschema-values.ts';

type Draft = 4 | 6 | 7 | 'hybrid';
const atLeast = (d: Draft, n: number) => d === 'hybrid' || d >= n;

const TYPES = ['array', 'boolean', 'integer', 'number', 'null', 'object', 'string'];

// ------------------------------------------------------------------ schema

export interface SubSchema {
  pass?: boolean;
  ref?: SubSchema;
  refKey?: string;
  types: string[];
  properties: [string, SubSchema][];
  additionalProperties?: boolean | SubSchema;
  patternProperties?: [string, Regexp, SubSchema][];
  propertyNames?: SubSchema;
  dependencies?: Map<string, string[] | SubSchema>;
  items: SubSchema[];
  itemsSingle: boolean;
  additionalItems?: boolean | SubSchema;
  multipleOf?: Rat;
  minimum?: Rat;
  exclusiveMinimum?: Rat;
  maximum?: Rat;
  exclusiveMaximum?: Rat;
  minLength?: number;
  maxLength?: number;
  pattern?: Regexp;
  patternText?: string;
  minProperties?: number;
  maxProperties?: number;
  required: string[];
  minItems?: number;
  maxItems?: number;
  uniqueItems: boolean;
  contains?: SubSchema;
  constText?: string;
  enum?: string[];
  oneOf: SubSchema[];
  anyOf: SubSchema[];
  allOf: SubSchema[];
  not?: SubSchema;
  if?: SubSchema;
  then?: SubSchema;
  else?: SubSchema;
}

const fail = (m: string): never => {
  throw new SchemaError(m);
};
const invalidType = (expected: string, given: string) => fail(`Invalid type. Expected: ${expected}, given: ${given}`);

function integerOf(v: JsonValue): number | undefined {
  if (!isNum(v)) return undefined;
  const r = rat(v.num);
  if (!isIntRat(r) || r.n > 2n ** 63n - 1n || r.n < -(2n ** 63n)) return undefined;
  return Number(r.n);
}

class Compiler {
  private readonly pool = new Map<string, SubSchema>();
  constructor(private readonly root: JsonValue) {}

  private resolve(ref: string): JsonValue {
    if (!ref.startsWith('#')) fail(`remote reference ${ref} is not supported by the builtin Rego engine`);
    const pointer = decodeURIComponent(ref.slice(1));
    let node: JsonValue | undefined = this.root;
    if (pointer !== '') {
      if (!pointer.startsWith('/')) fail(`Object has no key '${pointer}'`);
      for (const raw of pointer.slice(1).split('/')) {
        const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
        if (node !== undefined && isMap(node)) node = node.get(key);
        else if (node !== undefined && isArr(node) && /^\d+$/.test(key)) node = node[Number(key)];
        else node = undefined;
        if (node === undefined) fail(`Object has no key '${key}'`);
      }
    }
    return node as JsonValue;
  }

  parse(node: JsonValue, draft: Draft): SubSchema {
    const s: SubSchema = { types: [], properties: [], items: [], itemsSingle: false, required: [], uniqueItems: false, oneOf: [], anyOf: [], allOf: [] };
    if (atLeast(draft, 6) && typeof node === 'boolean') {
      s.pass = node;
      return s;
    }
    if (!isMap(node)) fail('Expected: Valid Schema, given: Invalid JSON');
    const m = node as ReadonlyMap<string, JsonValue>;
    const getString = (k: string) => {
      const v = m.get(k);
      if (v === undefined) return undefined;
      if (typeof v !== 'string') invalidType('string', k);
      return v as string;
    };
    const getSlice = (k: string) => {
      const v = m.get(k);
      if (v === undefined) return undefined;
      if (!isArr(v)) fail(`${k} must be of an array`);
      return v as readonly JsonValue[];
    };
    const keyId = draft === 4 ? 'id' : draft === 'hybrid' && m.has('id') ? 'id' : '$id';
    getString(keyId);
    const defs = m.get('definitions');
    if (defs !== undefined) {
      if (!isMap(defs)) invalidType('Array Of Schemas', 'definitions');
      for (const k of sortedKeys(defs as ReadonlyMap<string, JsonValue>)) {
        const dv = (defs as ReadonlyMap<string, JsonValue>).get(k)!;
        if (typeof dv !== 'boolean' && !isMap(dv)) invalidType('Array Of Schemas', 'definitions');
        this.parse(dv, draft);
      }
    }
    getString('title');
    getString('description');
    const ref = getString('$ref');
    if (ref !== undefined) {
      const cached = this.pool.get(ref);
      if (cached) {
        s.ref = cached;
      } else {
        const target: SubSchema = { types: [], properties: [], items: [], itemsSingle: false, required: [], uniqueItems: false, oneOf: [], anyOf: [], allOf: [] };
        this.pool.set(ref, target);
        const doc = this.resolve(ref);
        if (typeof doc !== 'boolean' && !isMap(doc)) fail('Valid Schema must be of type object');
        Object.assign(target, this.parse(doc, draft));
        s.ref = target;
        return s;
      }
    }
    const typ = m.get('type');
    if (typ !== undefined) {
      // gojsonschema passes these two the other way round
      const list = typeof typ === 'string' ? [typ] : isArr(typ) ? typ : invalidType('type', 'string/Array Of Strings');
      for (const t of list as JsonValue[]) {
        if (typeof t !== 'string') invalidType('type', 'string/Array Of Strings');
        const name = t as string;
        if (!TYPES.includes(name)) fail(`has a primitive type that is NOT VALID -- given: /${name}/ Expected valid values are:[${TYPES.join(' ')}]`);
        if (s.types.includes(name)) fail(`${name} type is duplicated`);
        s.types.push(name);
      }
    }
    const props = m.get('properties');
    if (props !== undefined) {
      if (!isMap(props)) fail('Properties must be of type object');
      for (const k of sortedKeys(props as ReadonlyMap<string, JsonValue>)) s.properties.push([k, this.parse((props as ReadonlyMap<string, JsonValue>).get(k)!, draft)]);
    }
    const ap = m.get('additionalProperties');
    if (ap !== undefined) {
      if (typeof ap === 'boolean') s.additionalProperties = ap;
      else if (isMap(ap)) s.additionalProperties = this.parse(ap, draft);
      else invalidType('boolean/Valid Schema', 'additionalProperties');
    }
    const pp = m.get('patternProperties');
    if (pp !== undefined) {
      if (!isMap(pp)) invalidType('Valid Schema', 'patternProperties');
      const entries = sortedKeys(pp as ReadonlyMap<string, JsonValue>);
      if (entries.length > 0) {
        s.patternProperties = entries.map((k) => {
          let re: Regexp;
          try {
            re = compileRegexp(k);
          } catch (e) {
            if (e instanceof RegexpSyntaxError) fail(`Invalid regex pattern '${k}'`);
            throw e;
          }
          return [k, re!, this.parse((pp as ReadonlyMap<string, JsonValue>).get(k)!, draft)];
        });
      }
    }
    const pn = m.get('propertyNames');
    if (pn !== undefined && atLeast(draft, 6)) {
      if (typeof pn !== 'boolean' && !isMap(pn)) invalidType('Valid Schema', 'patternProperties');
      s.propertyNames = this.parse(pn, draft);
    }
    const deps = m.get('dependencies');
    if (deps !== undefined) {
      if (!isMap(deps)) fail('dependencies must be of type object');
      s.dependencies = new Map();
      for (const k of sortedKeys(deps as ReadonlyMap<string, JsonValue>)) {
        const dv = (deps as ReadonlyMap<string, JsonValue>).get(k)!;
        if (isArr(dv)) {
          const names: string[] = [];
          for (const x of dv) {
            if (typeof x !== 'string') fail('Dependency must be of type Schema Or Array Of Strings');
            names.push(x as string);
            s.dependencies.set(k, names);
          }
        } else if (typeof dv === 'boolean' || isMap(dv)) s.dependencies.set(k, this.parse(dv, draft));
        else fail('Dependency must be of type Schema Or Array Of Strings');
      }
    }
    const items = m.get('items');
    if (items !== undefined) {
      if (isArr(items)) {
        for (const it of items) {
          if (typeof it !== 'boolean' && !isMap(it)) invalidType('Valid Schema/Array Of Schemas', 'items');
          s.items.push(this.parse(it, draft));
        }
      } else if (typeof items === 'boolean' || isMap(items)) {
        s.items.push(this.parse(items, draft));
        s.itemsSingle = true;
      } else invalidType('Valid Schema/Array Of Schemas', 'items');
    }
    const ai = m.get('additionalItems');
    if (ai !== undefined) {
      if (typeof ai === 'boolean') s.additionalItems = ai;
      else if (isMap(ai)) s.additionalItems = this.parse(ai, draft);
      else invalidType('boolean/Valid Schema', 'additionalItems');
    }
    const mo = m.get('multipleOf');
    if (mo !== undefined) {
      if (!isNum(mo)) invalidType('Number', 'multipleOf');
      const r = rat((mo as { num: string }).num);
      if (r.n <= 0n) fail('multipleOf must be strictly greater than 0');
      s.multipleOf = r;
    }
    const number = (k: string) => {
      const v = m.get(k);
      if (v === undefined) return undefined;
      if (!isNum(v)) fail(`${k} must be of a Number`);
      return rat((v as { num: string }).num);
    };
    s.minimum = number('minimum');
    this.exclusive(m, draft, s, 'exclusiveMinimum', 'minimum');
    s.maximum = number('maximum');
    this.exclusive(m, draft, s, 'exclusiveMaximum', 'maximum');
    const count = (k: string) => {
      const v = m.get(k);
      if (v === undefined) return undefined;
      const n = integerOf(v);
      if (n === undefined) fail(`${k} must be of an integer`);
      if ((n as number) < 0) fail(`${k} must be greater than or equal to 0`);
      return n as number;
    };
    s.minLength = count('minLength');
    s.maxLength = count('maxLength');
    if (s.minLength !== undefined && s.maxLength !== undefined && s.minLength > s.maxLength) fail('minLength cannot be greater than maxLength');
    const pattern = getString('pattern');
    if (pattern !== undefined) {
      try {
        s.pattern = compileRegexp(pattern);
        s.patternText = pattern;
      } catch (e) {
        if (e instanceof RegexpSyntaxError) fail('pattern must be a valid regex');
        throw e;
      }
    }
    getString('format');
    s.minProperties = count('minProperties');
    s.maxProperties = count('maxProperties');
    if (s.minProperties !== undefined && s.maxProperties !== undefined && s.minProperties > s.maxProperties) fail('minProperties cannot be greater than maxProperties');
    for (const r of getSlice('required') ?? []) {
      if (typeof r !== 'string') invalidType('string', 'required');
      if (s.required.includes(r as string)) fail('required items must be unique');
      s.required.push(r as string);
    }
    s.minItems = count('minItems');
    s.maxItems = count('maxItems');
    const ui = m.get('uniqueItems');
    if (ui !== undefined) {
      if (typeof ui !== 'boolean') fail('uniqueItems must be of a boolean');
      s.uniqueItems = ui as boolean;
    }
    const contains = m.get('contains');
    if (contains !== undefined && atLeast(draft, 6)) s.contains = this.parse(contains, draft);
    const c = m.get('const');
    if (c !== undefined && atLeast(draft, 6)) s.constText = floatJson(c);
    const en = getSlice('enum');
    if (en !== undefined) {
      s.enum = [];
      for (const v of en) {
        const t = floatJson(v);
        if (s.enum.includes(t)) fail('enum items must be unique');
        s.enum.push(t);
      }
    }
    for (const v of getSlice('oneOf') ?? []) s.oneOf.push(this.parse(v, draft));
    for (const v of getSlice('anyOf') ?? []) s.anyOf.push(this.parse(v, draft));
    for (const v of getSlice('allOf') ?? []) s.allOf.push(this.parse(v, draft));
    const not = m.get('not');
    if (not !== undefined) {
      if (typeof not !== 'boolean' && !isMap(not)) fail('not must be of an object');
      s.not = this.parse(not, draft);
    }
    if (atLeast(draft, 7)) {
      for (const k of ['if', 'then', 'else'] as const) {
        const v = m.get(k);
        if (v === undefined) continue;
        if (typeof v !== 'boolean' && !isMap(v)) fail(`${k} must be of an object`);
        s[k] = this.parse(v, draft);
      }
    }
    return s;
  }

  private exclusive(m: ReadonlyMap<string, JsonValue>, draft: Draft, s: SubSchema, key: 'exclusiveMinimum' | 'exclusiveMaximum', base: 'minimum' | 'maximum'): void {
    const v = m.get(key);
    if (v === undefined) return;
    if (draft === 4 || (draft === 'hybrid' && typeof v === 'boolean')) {
      if (typeof v !== 'boolean') invalidType('boolean', key);
      if (s[base] === undefined) fail(`${key} cannot be used without ${base}`);
      if (v) {
        s[key] = s[base];
        s[base] = undefined;
      }
      return;
    }
    if (!isNum(v)) invalidType(draft === 'hybrid' ? 'boolean/number' : 'number', key);
    s[key] = rat((v as { num: string }).num);
  }
}

function draftOf(doc: JsonValue): Draft {
  if (typeof doc === 'boolean') return 'hybrid';
  if (!isMap(doc)) fail('schema is invalid');
  const v = (doc as ReadonlyMap<string, JsonValue>).get('$schema');
  if (v === undefined) return 'hybrid';
  if (typeof v !== 'string') fail('$schema must be of type string');
  const m = /^https?:\/\/json-schema\.org\/draft-0([467])\/schema#?$/.exec(v as string);
  return m ? (Number(m[1]) as 4 | 6 | 7) : 'hybrid';
}

export interface CompiledSchema {
  readonly root: SubSchema;
}

/** Compiles a schema document, or throws SchemaError with gojsonschema's message. */
export function compileSchema(doc: JsonValue): CompiledSchema {
  const draft = draftOf(doc);
  return { root: new Compiler(doc).parse(doc, draft) };
}
