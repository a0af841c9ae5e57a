/**
 * The HTML report's style, inlined into the file: the stylesheet, and the node shapes and edge
 * colours that both the server-drawn legend (html.ts) and the report's script (html-client.ts) use.
 */

export const NODE_SHAPES = {
  agent: { fill: '#dbe9ff', stroke: '#3b6fb6' },
  tool: { fill: '#f4f4f4', stroke: '#777777' },
  resource: { fill: '#fff8dc', stroke: '#a08a3c' },
  policyDeny: { fill: '#fde2e2', stroke: '#c62828' },
  policyAllow: { fill: '#e6f4e6', stroke: '#2e7d32' },
} as const;

export const EDGE_COLOURS = { violation: '#d32f2f', authorized: '#ef8f00', plain: '#9e9e9e' } as const;

export const CLIENT_CSS = `
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:1.5rem;color:#222}
h1{margin-bottom:.2rem} h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
code{font-size:.85em;background:#f3f3f3;padding:0 .2em;word-break:break-all}
table{border-collapse:collapse;margin:.5rem 0} td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top}
th{background:#f5f5f5;position:sticky;top:0} .n{text-align:right}
.violation{color:#c62828;font-weight:600} .authorized{color:#b26a00} .rejected{color:#c62828} .eligible{color:#2e7d32}
.controls{position:sticky;top:0;background:#fff;padding:.5rem 0;border-bottom:1px solid #ddd;z-index:2}
.controls label{margin-right:1rem} .controls input[type=search]{width:22rem}
.scroll{max-height:60vh;overflow:auto;border:1px solid #eee}
.picture{border:1px solid #ddd;overflow:auto;max-height:80vh;padding:.5rem;background:#fff}
.picture svg{max-width:100%;height:auto}
.graph{border:1px solid #ddd;height:70vh;background:#fff;position:relative;overflow:hidden}
.graph svg{width:100%;height:100%;cursor:grab;display:block}
.graph .tools{position:absolute;right:.5rem;bottom:.5rem} .graph .tools button{min-width:2.2rem}
.graph text{font-size:11px;font-family:Helvetica,Arial,sans-serif;pointer-events:none}
.graph g.node{cursor:pointer}
.legend span{display:inline-block;margin-right:1.2rem} .swatch{display:inline-block;width:1.6em;height:.35em;vertical-align:middle;margin-right:.3em}
.note{color:#555;font-style:italic} ul.evidence{margin:.1rem 0 .5rem 0;color:#444;font-size:.9em}
a.ref{color:#1a56a8;cursor:pointer;text-decoration:underline}
#detail:empty{display:none} #detail{border:2px solid #3b6fb6;padding:.5rem 1rem;margin:1rem 0}
`;
