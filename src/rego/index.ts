/**
 * The Rego engine's public entry (see README.md here): compile modules, evaluate queries and data
 * refs with input and data, bound by limits, with custom builtins and an OPA capabilities report.
 * Re-exports only; the engine imports nothing from the rest of toolgate.
 */
export { compileModules, parseValueTerm } from './policy.ts';
export type { RegoCompileOptions, ExpressionSource, ModuleSource, RegoPolicy, PreparedQuery, QueryResult } from './policy.ts';
export { bindPolicy } from './bound-policy.ts';
export type { BoundEvaluation, BoundPolicy } from './bound-policy.ts';
export type { EvalOptions } from './eval.ts';
export { parseModule } from './parser.ts';
export type { RegoVersion } from './parser.ts';
export type { Module } from './ast.ts';
export { AstCodecError, decodeModule, encodeModule } from './ast-codec.ts';
export { RegoError, faultOf } from './errors.ts';
export type { RegoErrorAt, RegoErrorCode, RegoFault } from './errors.ts';
export { RegoLimitError, UNTRUSTED_LIMITS, mergeLimits, wallClockNs } from './limits.ts';
export type { LimitKind, RegoLimits } from './limits.ts';
export { BuiltinError, builtinError, operandError, registerBuiltins } from './builtins/registry.ts';
export type { BuiltinContext, BuiltinDef, BuiltinFn, RelationFn } from './builtins/registry.ts';
export { builtinCoverage, engineCapabilities, pinnedOpaCapabilities } from './builtins/capabilities.ts';
export type { Coverage, CoverageEntry, CoverageStatus, OpaCapabilities } from './builtins/capabilities.ts';
export * from './value.ts';
export * from './number-value.ts';
export * from './value-json.ts';
export * from './value-key.ts';
