/**
 * strings.render_template against the real OPA: Go text/template's actions (`if` / `else if` /
 * `else`, `range` over arrays and objects with and without variables, `with`, `break` /
 * `continue`, variables, trimming, comments), its functions, fmt's printing of decoded JSON values
 * (`map[a:1]`, `[1 a]`, json.Number text) and a missing value shown as `<undefined>`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithOpa } from '../../../helpers/opa.ts';
import { BuiltinOracle, describeDisagreements } from '../../../helpers/builtin-oracle.ts';

const VARS: Record<string, unknown>[] = [
  { xs: ['a', 'b'], o: { b: 2, a: { c: [1, 2] } }, n: 0, f: 1.5, t: true, e: '', z: null, big: 12345678901234567890 },
  { xs: [], o: {}, n: 7, t: false, e: 'x' },
];

const TEMPLATES = [
  'plain text',
  '{{.xs}}|{{.o}}|{{.n}}|{{.f}}|{{.t}}|{{.e}}|{{.z}}|{{.missing}}|{{.big}}',
  '{{.o.a.c}} {{.o.b}} {{.o.missing}}',
  '{{range .xs}}<{{.}}>{{else}}none{{end}}',
  '{{range $i, $x := .xs}}{{if $i}},{{end}}{{$i}}={{$x}}{{end}}',
  '{{range $k, $v := .o}}{{$k}}:{{$v}};{{end}}',
  '{{range $v := .o}}[{{$v}}]{{end}}',
  '{{if .n}}n{{else}}no n{{end}} {{if .e}}e{{else if .t}}t{{else}}neither{{end}}',
  '{{with .o.a}}{{.c}}{{else}}nothing{{end}} {{with .missing}}x{{else}}gone{{end}}',
  '{{- .n -}}  trimmed  {{- .t }} | {{/* a comment */}} {{ .e -}} x',
  '{{$x := .xs}}{{len $x}} {{len .o}} {{len "héllo"}} {{if .xs}}{{index .xs 1}}{{end}} {{index .o "b"}}',
  '{{if and .t .n}}and{{end}}{{if or .e .t}}or{{end}}{{if not .e}}not{{end}}',
  '{{if eq .e ""}}empty{{end}} {{if ne 1 2}}ne{{end}} {{if lt 1 2}}lt{{end}} {{if ge "b" "a"}}ge{{end}}',
  '{{print 1 2 "a" "b" 3}} {{.xs | len}} {{print .t .n}}',
  '{{range .xs}}{{if eq . "b"}}{{break}}{{end}}{{.}}{{end}}|{{range .xs}}{{if eq . "a"}}{{continue}}{{end}}{{.}}{{end}}',
  '{{$y := 1}}{{range .xs}}{{$y = .}}{{end}}{{$y}} {{$.n}}',
];

describeWithOpa('strings.render_template against opa', () => {
  let oracle: BuiltinOracle;
  beforeAll(async () => {
    oracle = await BuiltinOracle.start([{ name: 'strings.render_template', arity: 2 }]);
  }, 30_000);
  afterAll(() => oracle?.stop());

  it(`agrees on ${TEMPLATES.length * VARS.length} renders`, async () => {
    const cases = TEMPLATES.flatMap((tpl) => VARS.map((vars) => ({ name: 'strings.render_template', args: [tpl, vars] })));
    const t = await oracle.compare(cases);
    expect(t.disagreements, describeDisagreements(t)).toEqual([]);
    expect(t.kinds.value).toBeGreaterThan(20);
  }, 60_000);
});
