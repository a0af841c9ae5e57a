/**
 * Rules that conflict in OPA's rule tree, against the real `opa eval` (compiler-checks.ts
 * checkConflicts): a ground rule with rules inside its extent, a rule with a variable in its ref
 * with functions inside, kinds, arities, complete beside partial, several defaults, and the legal
 * neighbours of each. Refusals must have OPA's code and first line; legal modules OPA's answer.
 */
import { expect, it } from 'vitest';
import { describeWithOpa } from '../../helpers/opa.ts';
import { engineOutcome, evalOutcome, show, type Outcome } from '../../helpers/rego-differential.ts';

const FORMS = [
  'p := 1\np[1] := 2',
  'p := 1\np contains 1',
  'f(x) := 1\nf := 2',
  'f(x) := 1\nf(x, y) := 2',
  'p contains 1\np.q := 2',
  'p := 1\np[x] := 2 if { x := "a" }',
  'default p := 1\ndefault p := 2',
  'default c[true] := 1\ndefault c[true] := 2',
  'default c[true] := 1\ndefault c[false] := 2',
  'p.q.r := 1\np.q := 2\np := 3',
  'p[1] := 1\np[2] := 2',
  'p[1].a := 1\np[1] := 2',
  'p.q := 1\np := {}',
  'p.a.b := 1\np.a := 2',
  'f(x) := 1\np[x] := 1 if { x := 1 }\np.f(y) := 2',
  'p[x] := 1 if { x := "a" }\np.a := 2',
  'p contains 1\np[k] contains 2 if { k := "a" }',
  'p.q contains 1\np.r := 2',
  'p.q := 1\np.r := 2\np.s.t := 3',
  'input := 1',
  'data := 1',
];

function firstLine(o: Outcome): string {
  if (o.kind !== 'error') return '';
  const first = o.message.split('\n')[0] ?? '';
  // OPA is handed the module from a temp folder: a location in the message names the file alone
  return first.slice(first.indexOf(`${o.codes[0]}: `)).replace(/[^\s,]*\/(m0\.rego)/g, '$1');
}

describeWithOpa('rule conflicts against opa eval', () => {
  it('each form: refused with OPA\'s code and first line, or answered as OPA answers', () => {
    const disagree: string[] = [];
    for (const body of FORMS) {
      const c = { modules: [{ name: 'm0.rego', text: `package t\n${body}\n` }], query: 'x := data.t' };
      const [ours, opa] = [engineOutcome(c), evalOutcome(c)];
      const same = ours.kind === 'error' || opa.kind === 'error' ? ours.kind === 'error' && opa.kind === 'error' && firstLine(ours) === firstLine(opa) : ours.results.join('\n') === opa.results.join('\n');
      if (!same) disagree.push(`${body}\n  engine: ${show(ours)}\n  opa:    ${show(opa)}`);
    }
    expect(disagree).toEqual([]);
  }, 60_000);
});
