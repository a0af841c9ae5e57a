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
import { matchString } from './re2.ts';
import type { CompiledSchema, SubSchema } from './gojsonschema-schema.ts';
import { cmpRat, floatJson, floatText, isArr, isMap, isNum, type JsonValue, rat, sortedKeys, typeOf } from './gojsonschema-values.ts';

export interface SchemaViolation {
  readonly type: string;
  readonly field: string;
  readonly description: string;
  /** `field: description`, gojsonschema's String(). */
  readonly error: string;
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
