/**
 * JSON Schema drafts 4, 6 and 7 (https://json-schema.org/specification-links) as the gojsonschema
 * fork vendored in OPA reads and applies them: the same schema refusals (its messages), the same
 * errors for a failing document (type, field, description) and the same choice, for `anyOf`, `oneOf`
 * and `contains`, of the failing branch it reports (the one with the best score). A JSON Schema
 * library such as ajv accepts and reports differently, which is why this is a port and not a wrapper.
 *
 * gojsonschema walks Go maps, so OPA's order of errors over object keys is not fixed; here keys are
 * taken in sorted order. `format` is not checked (no format error is reported), and `$ref` resolves
 * only within the schema document (`#`, `#/definitions/x`); other references are refused.
 */
import { compileRegexp, matchString, RegexpSyntaxError, type Regexp } from './re2.ts';

/** A JSON value with numbers kept as their decimal text (exact, as Go's json.Number). */
export type JsonValue = null | boolean | string | { readonly num: string } | readonly JsonValue[] | ReadonlyMap<string, JsonValue>;

export class SchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaError';
  }
}

export interface SchemaViolation {
  readonly type: string;
  readonly field: string;
  readonly description: string;
  /** `field: description`, gojsonschema's String(). */
  readonly error: string;
}

type Draft = 4 | 6 | 7 | 'hybrid';
const atLeast = (d: Draft, n: number) => d === 'hybrid' || d >= n;

const TYPES = ['array', 'boolean', 'integer', 'number', 'null', 'object', 'string'];

// ------------------------------------------------------------------ exact numbers

interface Rat {
  readonly n: bigint;
  readonly d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}

function rat(text: string): Rat {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([-+]?\d+))?$/.exec(text);
  if (!m) throw new SchemaError(`bad number ${text}`);
  const frac = m[3] ?? '';
  let n = BigInt(m[2]! + frac);
  let d = 10n ** BigInt(frac.length);
  const e = Number(m[4] ?? 0);
  if (e > 0) n *= 10n ** BigInt(e);
  else if (e < 0) d *= 10n ** BigInt(-e);
  if (m[1]) n = -n;
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}

const cmpRat = (a: Rat, b: Rat) => {
  const x = a.n * b.d - b.n * a.d;
  return x < 0n ? -1 : x > 0n ? 1 : 0;
};
const isIntRat = (r: Rat) => r.d === 1n;

/** Go's big.Float String() of a rational: %g with 10 significant digits. */
function floatText(r: Rat): string {
  const x = Number(r.n) / Number(r.d);
  if (x === 0) return '0';
  const exp = Math.floor(Math.log10(Math.abs(x)));
  let s = x.toPrecision(10);
  if (exp < -4 || exp >= 10) {
    s = x.toExponential(9);
    let [mant, ex] = s.split('e') as [string, string];
    if (mant.includes('.')) mant = mant.replace(/0+$/, '').replace(/\.$/, '');
    const sign = ex.startsWith('-') ? '-' : '+';
    const digits = ex.replace(/^[-+]/, '').padStart(2, '0');
    return `${mant}e${sign}${digits}`;
  }
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}

// ------------------------------------------------------------------ values

const isNum = (v: JsonValue): v is { num: string } => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Map);
const isMap = (v: JsonValue): v is ReadonlyMap<string, JsonValue> => v instanceof Map;
const isArr = (v: JsonValue): v is readonly JsonValue[] => Array.isArray(v);

function sortedKeys(m: ReadonlyMap<string, JsonValue>): string[] {
  return [...m.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Go's encoding/json string form (HTML characters escaped). */
function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** gojsonschema's marshalWithoutNumber: JSON text with numbers as float64 (so 1.0 equals 1), keys sorted. */
function floatJson(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return goString(v);
  if (isNum(v)) {
    const x = Number(v.num);
    return Number.isFinite(x) ? JSON.stringify(x) : v.num;
  }
  if (isArr(v)) return `[${v.map(floatJson).join(',')}]`;
  const m = v as ReadonlyMap<string, JsonValue>;
  return `{${sortedKeys(m).map((k) => `${goString(k)}:${floatJson(m.get(k)!)}`).join(',')}}`;
}

function typeOf(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  if (isNum(v)) return isIntRat(rat(v.num)) ? 'integer' : 'number';
  return isArr(v) ? 'array' : 'object';
}

// ------------------------------------------------------------------ schema

interface SubSchema {
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

// ------------------------------------------------------------------ validation

class Result {
  errors: SchemaViolation[] = [];
  score = 0;
  add(type: string, ctx: readonly string[], description: string): void {
    const context = ctx.join('.');
    const field = context.startsWith('(Root).') ? context.slice('(Root).'.length) : context;
    this.errors.push({ type, field, description, error: `${field}: ${description}` });
    this.score -= 2;
  }
  merge(o: Result): void {
    this.errors.push(...o.errors);
    this.score += o.score;
  }
  get valid(): boolean {
    return this.errors.length === 0;
  }
}

function sub(s: SubSchema, v: JsonValue, ctx: readonly string[]): Result {
  const r = new Result();
  validate(s, v, r, ctx);
  return r;
}

const fieldOf = (ctx: readonly string[]) => {
  const c = ctx.join('.');
  return c.startsWith('(Root).') ? c.slice('(Root).'.length) : c;
};

function validate(s: SubSchema, v: JsonValue, r: Result, ctx: readonly string[]): void {
  if (s.pass !== undefined) {
    if (!s.pass) r.add('false', ctx, 'False always fails validation');
    return;
  }
  if (s.ref) {
    validate(s.ref, v, r, ctx);
    return;
  }
  const given = typeOf(v);
  const ok = s.types.length === 0 || s.types.includes(given) || (given === 'integer' && s.types.includes('number'));
  if (!ok) {
    const expected = s.types.length > 1 ? `[${s.types.join(',')}]` : s.types[0]!;
    r.add('invalid_type', ctx, `Invalid type. Expected: ${expected}, given: ${given}`);
    return;
  }
  validateSchema(s, v, r, ctx);
  if (isNum(v)) {
    validateNumber(s, v, r, ctx);
    validateCommon(s, v, r, ctx);
  } else if (isArr(v)) {
    validateArray(s, v, r, ctx);
    validateCommon(s, v, r, ctx);
  } else if (isMap(v)) {
    validateObject(s, v, r, ctx);
    validateCommon(s, v, r, ctx);
    for (const [name, ps] of s.properties) {
      const x = v.get(name);
      if (x !== undefined) validate(ps, x, r, [...ctx, name]);
    }
  } else if (v === null) {
    validateCommon(s, v, r, ctx);
  } else {
    validateCommon(s, v, r, ctx);
    if (typeof v === 'string') validateString(s, v, r, ctx);
  }
  r.score++;
}

function validateSchema(s: SubSchema, v: JsonValue, r: Result, ctx: readonly string[]): void {
  if (s.anyOf.length > 0) {
    let validated = false;
    let best: Result | undefined;
    for (const a of s.anyOf) {
      if (validated) continue;
      const res = sub(a, v, ctx);
      validated = res.valid;
      if (!validated && (best === undefined || res.score > best.score)) best = res;
    }
    if (!validated) {
      r.add('number_any_of', ctx, 'Must validate at least one schema (anyOf)');
      if (best) r.merge(best);
    }
  }
  if (s.oneOf.length > 0) {
    let n = 0;
    let best: Result | undefined;
    for (const o of s.oneOf) {
      const res = sub(o, v, ctx);
      if (res.valid) n++;
      else if (n === 0 && (best === undefined || res.score > best.score)) best = res;
    }
    if (n !== 1) {
      r.add('number_one_of', ctx, 'Must validate one and only one schema (oneOf)');
      if (n === 0 && best) r.merge(best);
    }
  }
  if (s.allOf.length > 0) {
    let n = 0;
    for (const a of s.allOf) {
      const res = sub(a, v, ctx);
      if (res.valid) n++;
      r.merge(res);
    }
    if (n !== s.allOf.length) r.add('number_all_of', ctx, 'Must validate all the schemas (allOf)');
  }
  if (s.not && sub(s.not, v, ctx).valid) r.add('number_not', ctx, 'Must not validate the schema (not)');
  if (s.dependencies && isMap(v)) {
    for (const k of sortedKeys(v)) {
      const dep = s.dependencies.get(k);
      if (dep === undefined) continue;
      if (Array.isArray(dep)) {
        for (const d of dep) if (!v.has(d)) r.add('missing_dependency', ctx, `Has a dependency on ${d}`);
      } else validate(dep as SubSchema, v, r, ctx);
    }
  }
  if (s.if) {
    const ifValid = sub(s.if, v, ctx).valid;
    if (s.then && ifValid) {
      const res = sub(s.then, v, ctx);
      if (!res.valid) {
        r.add('condition_then', ctx, 'Must validate "then" as "if" was valid');
        r.merge(res);
      }
    }
    if (s.else && !ifValid) {
      const res = sub(s.else, v, ctx);
      if (!res.valid) {
        r.add('condition_else', ctx, 'Must validate "else" as "if" was not valid');
        r.merge(res);
      }
    }
  }
  r.score++;
}

function validateCommon(s: SubSchema, v: JsonValue, r: Result, ctx: readonly string[]): void {
  const field = fieldOf(ctx);
  if (s.constText !== undefined && floatJson(v) !== s.constText) r.add('const', ctx, `${field} does not match: ${s.constText}`);
  if (s.enum !== undefined && !s.enum.includes(floatJson(v))) r.add('enum', ctx, `${field} must be one of the following: ${s.enum.join(', ')}`);
  r.score++;
}

function validateArray(s: SubSchema, v: readonly JsonValue[], r: Result, ctx: readonly string[]): void {
  if (s.itemsSingle) {
    v.forEach((x, i) => r.merge(sub(s.items[0]!, x, [...ctx, String(i)])));
  } else if (s.items.length > 0) {
    const n = s.items.length;
    for (let i = 0; i !== n && i !== v.length; i++) r.merge(sub(s.items[i]!, v[i]!, [...ctx, String(i)]));
    if (n < v.length) {
      if (s.additionalItems === false) r.add('array_no_additional_items', ctx, 'No additional items allowed on array');
      else if (s.additionalItems !== undefined && s.additionalItems !== true) {
        for (let i = n; i !== v.length; i++) r.merge(sub(s.additionalItems, v[i]!, [...ctx, String(i)]));
      }
    }
  }
  if (s.minItems !== undefined && v.length < s.minItems) r.add('array_min_items', ctx, `Array must have at least ${s.minItems} items`);
  if (s.maxItems !== undefined && v.length > s.maxItems) r.add('array_max_items', ctx, `Array must have at most ${s.maxItems} items`);
  if (s.uniqueItems) {
    const seen = new Map<string, number>();
    v.forEach((x, j) => {
      const t = floatJson(x);
      const i = seen.get(t);
      if (i !== undefined) r.add('unique', ctx, `array items[${i},${j}] must be unique`);
      seen.set(t, j);
    });
  }
  if (s.contains) {
    let validated = false;
    let best: Result | undefined;
    for (let i = 0; i < v.length; i++) {
      const res = sub(s.contains, v[i]!, [...ctx, String(i)]);
      if (res.valid) {
        validated = true;
        break;
      }
      if (best === undefined || res.score > best.score) best = res;
    }
    if (!validated) {
      r.add('contains', ctx, 'At least one of the items must match');
      if (best) r.merge(best);
    }
  }
  r.score++;
}

function validateObject(s: SubSchema, v: ReadonlyMap<string, JsonValue>, r: Result, ctx: readonly string[]): void {
  if (s.minProperties !== undefined && v.size < s.minProperties) r.add('array_min_properties', ctx, `Must have at least ${s.minProperties} properties`);
  if (s.maxProperties !== undefined && v.size > s.maxProperties) r.add('array_max_properties', ctx, `Must have at most ${s.maxProperties} properties`);
  for (const req of s.required) {
    if (v.has(req)) r.score++;
    else r.add('required', ctx, `${req} is required`);
  }
  for (const k of sortedKeys(v)) {
    const found = s.properties.some(([name]) => name === k);
    let ppMatch = false;
    for (const [, re, ps] of s.patternProperties ?? []) {
      if (matchString(re, k)) {
        ppMatch = true;
        r.merge(sub(ps, v.get(k)!, [...ctx, k]));
      }
    }
    if (ppMatch) r.score++;
    if (!found && !ppMatch) {
      if (s.additionalProperties === false) r.add('additional_property_not_allowed', ctx, `Additional property ${k} is not allowed`);
      else if (s.additionalProperties !== undefined && s.additionalProperties !== true) r.merge(sub(s.additionalProperties, v.get(k)!, [...ctx, k]));
    }
  }
  if (s.propertyNames) {
    for (const k of sortedKeys(v)) {
      const res = sub(s.propertyNames, k, ctx);
      if (!res.valid) {
        r.add('invalid_property_name', ctx, `Property name of "${k}" does not match`);
        r.merge(res);
      }
    }
  }
  r.score++;
}

function validateString(s: SubSchema, v: string, r: Result, ctx: readonly string[]): void {
  const len = Array.from(v).length;
  if (s.minLength !== undefined && len < s.minLength) r.add('string_gte', ctx, `String length must be greater than or equal to ${s.minLength}`);
  if (s.maxLength !== undefined && len > s.maxLength) r.add('string_lte', ctx, `String length must be less than or equal to ${s.maxLength}`);
  if (s.pattern && !matchString(s.pattern, v)) r.add('pattern', ctx, `Does not match pattern '${s.patternText}'`);
  r.score++;
}

function validateNumber(s: SubSchema, v: { num: string }, r: Result, ctx: readonly string[]): void {
  const x = rat(v.num);
  if (s.multipleOf) {
    const q = { n: x.n * s.multipleOf.d, d: x.d * s.multipleOf.n };
    if (q.n % q.d !== 0n) r.add('multiple_of', ctx, `Must be a multiple of ${floatText(s.multipleOf)}`);
  }
  if (s.maximum && cmpRat(x, s.maximum) === 1) r.add('number_lte', ctx, `Must be less than or equal to ${floatText(s.maximum)}`);
  if (s.exclusiveMaximum && cmpRat(x, s.exclusiveMaximum) >= 0) r.add('number_lt', ctx, `Must be less than ${floatText(s.exclusiveMaximum)}`);
  if (s.minimum && cmpRat(x, s.minimum) === -1) r.add('number_gte', ctx, `Must be greater than or equal to ${floatText(s.minimum)}`);
  if (s.exclusiveMinimum && cmpRat(x, s.exclusiveMinimum) <= 0) r.add('number_gt', ctx, `Must be greater than ${floatText(s.exclusiveMinimum)}`);
  r.score++;
}

/** Validates a document; an empty list means it matches. */
export function validateDocument(schema: CompiledSchema, doc: JsonValue): SchemaViolation[] {
  const r = new Result();
  validate(schema.root, doc, r, ['(Root)']);
  return r.errors;
}
