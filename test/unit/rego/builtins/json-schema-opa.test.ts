/**
 * json.verify_schema and json.match_schema against the real OPA on generated schemas (drafts 4, 6, 7
 * and none; valid and broken keywords; boolean schemas, $ref to definitions, anyOf/oneOf/allOf/not,
 * if/then/else) and generated documents, as objects and as JSON text. OPA's order of match errors
 * follows Go map iteration, so both sides' error lists are sorted before they are compared.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import { describeWithOpa } from '../../../helpers/opa.ts';
import { BuiltinOracle, describeDisagreements } from '../../../helpers/builtin-oracle.ts';

const num = fc.oneof(fc.integer({ min: -5, max: 20 }), fc.constantFrom(0.5, 2.25, -1.5, 1e3, 3.0001));
const smallJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), num, fc.constantFrom('', 'a', 'ab', 'abc', 'x1', 'é', '<&>'), fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', 'c', 'x1', 'yy'), tie('v'), { maxKeys: 3 })),
})).v;

const typeName = fc.constantFrom('string', 'integer', 'number', 'object', 'array', 'boolean', 'null');
const pick = <T extends Record<string, fc.Arbitrary<unknown>>>(arbs: T, max: number) =>
  fc.subarray(Object.keys(arbs), { maxLength: max }).chain((keys) => fc.record(Object.fromEntries(keys.map((k) => [k, arbs[k]!]))));

/** Valid schemas only: OPA reports the first refusal it meets while walking Go maps, so a schema with two can get either. */
const schema: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  s: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.boolean(),
    pick(
      {
        type: fc.oneof(typeName, fc.uniqueArray(typeName, { minLength: 1, maxLength: 2 })),
        properties: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('s'), { maxKeys: 2 }),
        required: fc.uniqueArray(fc.constantFrom('a', 'b', 'yy'), { maxLength: 2 }),
        additionalProperties: fc.oneof(fc.boolean(), tie('s')),
        patternProperties: fc.dictionary(fc.constantFrom('^x', 'y+'), tie('s'), { maxKeys: 1 }),
        items: fc.oneof(tie('s'), fc.array(tie('s'), { maxLength: 2 })),
        additionalItems: fc.boolean(),
        minimum: num,
        maximum: num,
        exclusiveMaximum: num,
        multipleOf: fc.constantFrom(2, 0.5, 3, 0.1),
        minLength: fc.integer({ min: 0, max: 3 }),
        maxLength: fc.integer({ min: 3, max: 5 }),
        pattern: fc.constantFrom('^a', 'b$', '\\d'),
        minItems: fc.integer({ min: 0, max: 3 }),
        maxItems: fc.integer({ min: 0, max: 3 }),
        uniqueItems: fc.boolean(),
        contains: tie('s'),
        minProperties: fc.integer({ min: 0, max: 2 }),
        maxProperties: fc.integer({ min: 2, max: 3 }),
        enum: fc.uniqueArray(smallJson, { minLength: 1, maxLength: 3, selector: (x) => JSON.stringify(x) }),
        const: smallJson,
        anyOf: fc.array(tie('s'), { minLength: 1, maxLength: 2 }),
        oneOf: fc.array(tie('s'), { minLength: 1, maxLength: 2 }),
        allOf: fc.array(tie('s'), { minLength: 1, maxLength: 2 }),
        not: tie('s'),
        if: tie('s'),
        then: tie('s'),
        else: tie('s'),
        dependencies: fc.dictionary(fc.constantFrom('a', 'b'), fc.oneof(fc.subarray(['a', 'b', 'c'], { minLength: 1 }), tie('s')), { maxKeys: 1 }),
        propertyNames: tie('s'),
      },
      4,
    ),
  ),
})).s;

/** One refusal, at the root or one level down, in an otherwise valid schema. */
const broken = fc.tuple(
  schema,
  fc.constantFrom<[string, unknown]>(
    ['type', 3], ['type', 'foo'], ['type', ['string', 'string']], ['type', [1]], ['properties', 1], ['required', [1]], ['required', ['a', 'a']],
    ['minimum', 'x'], ['maximum', true], ['exclusiveMinimum', 'x'], ['multipleOf', 0], ['multipleOf', 'x'], ['minLength', -1], ['minLength', 1.5],
    ['maxItems', 'x'], ['uniqueItems', 'yes'], ['enum', 'a'], ['enum', [1, 1.0]], ['pattern', '('], ['pattern', 3], ['patternProperties', { '(': {} }],
    ['title', 1], ['items', 3], ['additionalProperties', 1], ['not', 1], ['if', 2], ['dependencies', { a: [1] }], ['definitions', 1], ['$ref', 1], ['$ref', '#/definitions/none'],
    ['minLength', 3], ['allOf', {}],
  ),
  fc.boolean(),
).map(([s, [k, v], nested]) => {
  const base = typeof s === 'object' && s !== null ? (s as Record<string, unknown>) : {};
  const withBad = k === 'minLength' && v === 3 ? { ...base, minLength: 3, maxLength: 1 } : { ...base, [k]: v };
  return nested ? { properties: { a: withBad } } : withBad;
});

const withDraft = fc.tuple(schema, fc.constantFrom(undefined, 'http://json-schema.org/draft-04/schema#', 'http://json-schema.org/draft-06/schema#', 'http://json-schema.org/draft-07/schema#')).map(([s, d]) =>
  d === undefined || typeof s !== 'object' || s === null ? s : { $schema: d, ...(s as object) },
);
const withRef = fc.tuple(schema, schema).map(([a, b]) => ({ definitions: { a, b }, properties: { a: { $ref: '#/definitions/a' }, b: { $ref: '#/definitions/b' }, c: { $ref: '#' } }, anyOf: [{ $ref: '#/definitions/a' }, { $ref: '#/definitions/b' }] }));
// (A `$ref: '#'` straight under anyOf at the root recurses for ever: OPA's stack overflows and the server dies.)
const anySchema = fc.oneof({ weight: 6, arbitrary: withDraft }, withRef);
const asText = <T>(a: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: a }, a.map((x) => JSON.stringify(x)));

describeWithOpa('json.verify_schema and json.match_schema against opa', () => {
  let oracle: BuiltinOracle;
  beforeAll(async () => {
    oracle = await BuiltinOracle.start([
      { name: 'json.verify_schema', arity: 1 },
      { name: 'json.match_schema', arity: 2, project: '[x[0], sort(x[1])]' },
    ]);
  }, 30_000);
  afterAll(() => oracle?.stop());

  it('agree on 1,500 generated schemas and documents', async () => {
    const schemas = [...fc.sample(asText(anySchema), { numRuns: 200, seed: 42 }), ...fc.sample(asText(broken), { numRuns: 300, seed: 44 })];
    const matches = fc.sample(fc.tuple(asText(smallJson.filter((d) => typeof d === 'object' && d !== null)), asText(anySchema)), { numRuns: 900, seed: 43 });
    const calls = [
      ...schemas.map((s) => ({ name: 'json.verify_schema', args: [s] })),
      ...matches.map((args) => ({ name: 'json.match_schema', args })),
      ...[1, '{', '[1]', '"x"', null].map((s) => ({ name: 'json.verify_schema', args: [s] })),
      ...[[1, {}], ['{', {}], [{}, '{'], [{}, 2], [[1, 2], { items: { type: 'string' } }]].map((args) => ({ name: 'json.match_schema', args })),
    ];
    const t = await oracle.compare(calls);
    expect(t.disagreements, describeDisagreements(t, 6)).toEqual([]);
    expect(t.kinds.value).toBeGreaterThan(1000);
    expect(t.kinds.eval_builtin_error).toBeGreaterThan(50);
  }, 120_000);
});
