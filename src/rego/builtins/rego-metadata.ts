/**
 * `rego.metadata.rule()` and `rego.metadata.chain()`. Inside a rule OPA computes them at compile
 * time, and so does this engine (annotations.ts replaces the calls by their values); what remains
 * is a call from a query, which has no rule and no annotations: undefined, as in OPA.
 */
import { registerBuiltins } from './registry.ts';

registerBuiltins([
  { name: 'rego.metadata.rule', arity: 0, fn: () => undefined },
  { name: 'rego.metadata.chain', arity: 0, fn: () => undefined },
]);
