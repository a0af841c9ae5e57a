/**
 * The audit report as ONE self-contained HTML file: inline CSS, the report data as JSON, and our
 * own small script (html-client.ts) that draws the agent, grant and policy views with search,
 * filters and per-agent / per-policy graphs on demand. The whole-estate pictures (laid out by
 * Graphviz in svg.ts) are inlined only when the estate is small enough to read them. A
 * Content-Security-Policy admits only that one script, by its hash, and loads nothing from
 * anywhere, so the file reads the same offline, attached to a ticket or archived.
 */
import { createHash } from 'node:crypto';
import { SIGN_COLOURS } from './connectome-dot.ts';
import { auditSections } from './findings-text.ts';
import { CLIENT_JS } from './html-client.ts';
import { CLIENT_CSS, EDGE_COLOURS, NODE_SHAPES } from './html-style.ts';
import type { ReportData } from './html-data.ts';
import { embedJson, escapeHtml as esc } from './html-embed.ts';
import type { AuditReport } from './report.ts';

/** A laid-out SVG, or why there is none (too large, or a catalog the connectome refuses). */
export type Picture = { readonly svg: string } | { readonly unavailable: string };

export interface ReportPictures {
  /** The whole governance graph, or why it is not drawn (too large: the per-agent views draw it in parts). */
  readonly governance: Picture;
  /** The declared (or given) connectome, or why it is not drawn. */
  readonly connectome: Picture;
}

function swatch(colour: string, label: string): string {
  return `<span><i class="swatch" style="background:${colour}"></i>${esc(label)}</span>`;
}

/** The node shapes the per-agent and per-policy graphs use, drawn as they are drawn there. */
function shapeLegend(): string {
  const w = 90;
  const h = 18;
  const item = (x: number, shape: string, label: string) => `<g transform="translate(${x},4)">${shape}<text x="${w + 6}" y="13" font-size="11" font-family="Helvetica,Arial,sans-serif">${esc(label)}</text></g>`;
  const s = (k: keyof typeof NODE_SHAPES) => `fill="${NODE_SHAPES[k].fill}" stroke="${NODE_SHAPES[k].stroke}" stroke-width="1.2"`;
  const oct = (k: keyof typeof NODE_SHAPES) => `<polygon ${s(k)} points="5,0 ${w - 5},0 ${w},5 ${w},${h - 5} ${w - 5},${h} 5,${h} 0,${h - 5} 0,5"/>`;
  const items = [
    item(0, `<rect ${s('agent')} width="${w}" height="${h}" rx="6"/>`, 'agent'),
    item(190, `<ellipse ${s('tool')} cx="${w / 2}" cy="${h / 2}" rx="${w / 2}" ry="${h / 2}"/>`, 'tool'),
    item(360, `<path ${s('resource')} d="M0 0h${w - 7}l7 7v${h - 7}h-${w}z"/>`, 'resource'),
    item(550, oct('policyDeny'), 'DENY policy'),
    item(760, oct('policyAllow'), 'ALLOW policy'),
  ];
  return `<svg id="shape-legend" role="img" aria-label="node shapes" viewBox="0 0 980 26" width="980" height="26">${items.join('')}</svg>`;
}

function picture(id: string, p: Picture): string {
  if ('unavailable' in p) return `<p class="note" id="${id}-unavailable">Not drawn: ${esc(p.unavailable)}</p>`;
  return `<figure class="picture" id="${id}">${p.svg}</figure>`;
}

export function renderHtml(r: AuditReport, pictures: ReportPictures, data: ReportData): string {
  const c = r.counts;
  const script = CLIENT_JS;
  const scriptHash = createHash('sha256').update(script).digest('base64');
  const parts: string[] = [];
  parts.push(
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${scriptHash}'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>toolgate audit report</title>',
    `<style>${CLIENT_CSS}</style></head><body>`,
    '<h1>toolgate audit report</h1>',
    `<p>governance digest <code>${esc(r.governance_digest)}</code><br>catalog digest <code>${esc(r.catalog_digest)}</code></p>`,
    `<p>status <strong>${esc(r.status)}</strong> (${r.blocking_findings.length} blocking finding${r.blocking_findings.length === 1 ? '' : 's'})</p>`,
    `<p id="gateway">gateway decisions under profile <strong>${esc(data.profile)}</strong>, ${data.revision === null ? 'no compiled bundle given (pass --bundle to name its revision)' : `bundle revision <code>${esc(data.revision)}</code>`}</p>`,
    '<noscript><p class="note">The agent, grant and policy views need JavaScript; the counts, findings and notices below do not.</p></noscript>',
  );
  parts.push('<h2 id="counts">Counts</h2><table><tbody>');
  const counts: [string, number, string?][] = [
    ['servers', c.servers],
    ['tools exposed', c.tools_exposed],
    ['agents', c.agents],
    ['DENY policies', c.policies.DENY],
    ['ALLOW policies', c.policies.ALLOW],
    ['grants', c.grants],
    ['data access edges', c.data_access],
    ['GOVERNED_BY bindings', c.governed_by],
    ['expected exceptions', c.expected_exceptions],
    ['resources', c.resources],
    ['DENY violations', c.violations, 'violation'],
    ['authorized_but_governed', c.authorized_but_governed, 'authorized'],
    ...Object.entries(c.findings).map(([k, v]) => [`findings: ${k}`, v] as [string, number]),
  ];
  for (const [k, v, cls] of counts) parts.push(`<tr><th>${esc(k)}</th><td class="n${cls ? ` ${cls}` : ''}" data-count="${esc(k)}">${v}</td></tr>`);
  parts.push('</tbody></table>');

  parts.push(
    '<h2 id="explorer">Agents, grants and policies</h2>',
    '<div class="controls">',
    '<label>search <input type="search" id="search" placeholder="agent, tool or policy"></label>',
    '<label><input type="checkbox" id="violations-only"> violations only</label>',
    '<label>server <select id="server-filter"><option value="">all servers</option></select></label>',
    '<label>gateway reason <select id="reason-filter"><option value="">any decision</option></select></label>',
    '</div>',
    '<p class="legend">',
    shapeLegend(),
    '<br>',
    swatch(EDGE_COLOURS.violation, 'DENY path: violation'),
    swatch(EDGE_COLOURS.authorized, 'DENY path: authorized by an expected exception'),
    swatch(EDGE_COLOURS.plain, 'other authored edge'),
    '<span class="note">Open an agent or a policy to draw its graph; wheel zooms, drag pans.</span></p>',
    '<div id="detail"></div>',
    '<h3>Agents <span class="note" id="agents-shown"></span></h3>',
    '<div class="scroll"><table id="agents-table"><thead><tr><th>agent</th><th>grants</th><th>matching</th><th>eligible</th><th>rejected</th><th>violations</th></tr></thead><tbody></tbody></table></div>',
    '<h3>Grants <span class="note" id="grants-shown"></span></h3>',
    '<div class="scroll"><table id="grants-table"><thead><tr><th>agent</th><th>tool</th><th>server</th><th>gateway</th><th>reason</th><th>profile</th><th>bundle revision</th><th>DENY path</th></tr></thead><tbody></tbody></table></div>',
    '<button type="button" id="grants-more">show more grants</button>',
    '<h3>Policies <span class="note" id="policies-shown"></span></h3>',
    '<div class="scroll"><table id="policies-table"><thead><tr><th>policy</th><th>effect</th><th>targets</th><th>agents reaching it</th><th>violations</th></tr></thead><tbody></tbody></table></div>',
  );

  parts.push('<h2 id="governance-graph">Governance graph</h2>');
  parts.push(picture('governance-picture', pictures.governance));

  parts.push('<h2 id="connectome">Connectome</h2>');
  if (!('unavailable' in pictures.connectome)) {
    parts.push(`<p class="legend">${Object.entries(SIGN_COLOURS).map(([s, col]) => swatch(col, `sign ${s}`)).join('')}</p>`);
    parts.push('<p class="note">toolgate writes only <code>unset</code> signs; other signs come from a consumer sign policy.</p>');
  }
  parts.push(picture('connectome-picture', pictures.connectome));

  parts.push('<h2 id="findings">Findings</h2>');
  for (const s of auditSections(r)) {
    parts.push(`<h3 id="audit-${s.audit}">${esc(s.audit)}: ${esc(s.title)} (<span data-finding-count="${s.audit}">${s.rows.length}</span>)</h3>`);
    if (s.rows.length === 0) parts.push('<p>None.</p>');
    else {
      parts.push('<details><summary>show</summary><ul>');
      for (const f of s.rows) parts.push(`<li>${esc(f.summary)}<ul class="evidence">${f.evidence.map((e) => `<li>${esc(e)}</li>`).join('')}</ul></li>`);
      parts.push('</ul></details>');
    }
  }

  parts.push('<h2 id="notices">Notices</h2>');
  if (r.notices.length === 0) parts.push('<p>None.</p>');
  else parts.push(`<ul>${r.notices.map((n) => `<li>${esc(n.kind)} at ${esc(n.at)}: ${esc(n.message)}</li>`).join('')}</ul>`);
  parts.push(`<script type="application/json" id="report-data">${embedJson(data)}</script>`);
  parts.push(`<script>${script}</script>`);
  parts.push('</body></html>', '');
  return parts.join('\n');
}
