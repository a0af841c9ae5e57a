/**
 * `print(...)` where a value is wanted, against the real `opa eval` (void-calls.ts): OPA refuses it
 * at compile time as `print(1) used as value`, and accepts it as a statement of its own.
 */
import { expect, it } from 'vitest';
import { describeWithOpa } from '../../helpers/opa.ts';
import { engineOutcome, evalOutcome, show, type Outcome } from '../../helpers/rego-differential.ts';

/** Where print is a value (refused) and where it is a statement (accepted), with constants and input only in its operands. */
const FORMS = [
  'p := print(1)',
  'p if { x := print("a") }',
  'p := [print(input.x)]',
  'p := {"k": print(1, 2)}',
  'p if { print(1) == true }',
  'p if { count([print(1)]) > 0 }',
  'p := [x | x := print(1)]',
  'p := print(["a", {"k": null}, {1, 2}, set()])',
  'p if { print(1) }',
  'p if { print(1)\n\tprint("x", input.y) }',
  'p := [x | x := 1; print(x)]',
  'p if { every x in [1] { print(x) } }',
];

function firstError(o: Outcome): string {
  if (o.kind !== 'error') return '';
  const first = o.message.split('\n')[0] ?? '';
  return first.slice(first.indexOf(`${o.codes[0]}: `));
}

describeWithOpa('print used as a value, against opa eval', () => {
  it('each form: refused with OPA\'s code and message, or answered as OPA answers', () => {
    const disagree: string[] = [];
    for (const body of FORMS) {
      const c = { modules: [{ name: 'm0.rego', text: `package t\n${body}\n` }], query: 'x := data.t.p' };
      const [ours, opa] = [engineOutcome(c), evalOutcome(c)];
      const same = ours.kind === 'error' ? firstError(ours) === firstError(opa) : opa.kind === 'results' && ours.results.join('\n') === opa.results.join('\n');
      if (!same) disagree.push(`${body}\n  engine: ${show(ours)}\n  opa:    ${show(opa)}`);
    }
    expect(disagree).toEqual([]);
  }, 60_000);
});
