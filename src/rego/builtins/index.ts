/**
 * Loads every builtin family: each import registers its functions with `registry.ts` as a side effect.
 * One line per family file (`import './strings.ts';`). The evaluator imports this file once.
 * The bundled CLI (scripts/build.mjs) has this file replaced by one declaring each family's names
 * with a loader (registry.ts registerFamilyLoader), read from these lines in this order, so a run
 * there loads a family only when a policy it compiles names one of its builtins.
 */
import './core.ts';
import './aggregates.ts';
import './numbers.ts';
import './bits.ts';
import './strings.ts';
import './regex.ts';
import './glob.ts';
import './sets.ts';
import './arrays.ts';
import './objects.ts';
import './json-document.ts';
import './types.ts';
import './units.ts';
import './semver.ts';
import './time.ts';
import './encoding.ts';
import './net.ts';
import './graph.ts';
import './uuid.ts';
import './crypto.ts';
import './jwt.ts';
import './uri.ts';
import './template.ts';
import './x509.ts';
import './aws.ts';
import './json-schema.ts';
import './graphql.ts';
import './rego-module.ts';
import './rego-metadata.ts';
import './refused.ts';
import './compat.ts';
