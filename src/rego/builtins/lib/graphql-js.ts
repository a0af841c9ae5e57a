/**
 * graphql-js, loaded on the first graphql.* call: most policies never call one, and loading it costs
 * 170 modules on every evaluation's start. Every caller gets the same CommonJS instance, so
 * graphql-js's own instanceof checks between its classes hold.
 */
import { createRequire } from 'node:module';

type GraphqlJs = typeof import('graphql');
type GraphqlValidate = typeof import('graphql/validation/validate.js');

const load = createRequire(import.meta.url);
let lib: GraphqlJs | undefined;
let validateLib: GraphqlValidate | undefined;

export const gql = (): GraphqlJs => (lib ??= load('graphql') as GraphqlJs);
export const gqlValidate = (): GraphqlValidate => (validateLib ??= load('graphql/validation/validate.js') as GraphqlValidate);

/** A table built from graphql-js's constants on first use, so that defining it loads nothing. */
export function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
