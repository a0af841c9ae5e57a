/**
 * The audit report as ONE self-contained HTML file: inline CSS, inline SVG pictures (rendered
 * from DOT in-process by svg.ts), no script, and a Content-Security-Policy that forbids loading
 * anything from anywhere, so the file reads the same offline, attached to a ticket or archived.
 */
import { SIGN_COLOURS } from './connectome-dot.ts';
import { auditSections } from './findings-text.ts';
import type { AuditReport } from './report.ts';

export interface ReportPictures {
  readonly governance: { readonly svg: string; readonly truncated: boolean };
  /** The declared connectome, or null when it could not be built (the report says why). */
  readonly connectome: { readonly svg: string; readonly truncated: boolean } | { readonly unavailable: string };
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const CSS = `
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:2rem;color:#222;max-width:1400px}
h1{margin-bottom:.2rem} h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
code{font-size:.85em;background:#f3f3f3;padding:0 .2em}
table{border-collapse:collapse;margin:.5rem 0} td,th{border:1px solid #ccc;padding:.25rem .6rem;text-align:left;vertical-align:top}
th{background:#f5f5f5} .n{text-align:right}
.violation{color:#c62828;font-weight:600} .authorized{color:#b26a00}
.picture{border:1px solid #ddd;overflow:auto;max-height:900px;padding:.5rem;background:#fff}
.picture svg{max-width:100%;height:auto}
.legend span{display:inline-block;margin-right:1.2rem} .swatch{display:inline-block;width:1.6em;height:.35em;vertical-align:middle;margin-right:.3em}
.note{color:#555;font-style:italic} ul.evidence{margin:.1rem 0 .5rem 0;color:#444;font-size:.9em}
`;

function swatch(colour: string, label: string): string {
  return `<span><i class="swatch" style="background:${colour}"></i>${esc(label)}</span>`;
}

export function renderHtml(r: AuditReport, pictures: ReportPictures): string {
  const c = r.counts;
  const parts: string[] = [];
  parts.push(
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<title>toolgate audit report</title>',
    `<style>${CSS}</style></head><body>`,
    '<h1>toolgate audit report</h1>',
    `<p>governance digest <code>${esc(r.governance_digest)}</code><br>catalog digest <code>${esc(r.catalog_digest)}</code></p>`,
    `<p>status <strong>${esc(r.status)}</strong> (${r.blocking_findings.length} blocking finding${r.blocking_findings.length === 1 ? '' : 's'})</p>`,
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

  parts.push('<h2 id="governance-graph">Governance graph</h2>');
  parts.push(`<p class="legend">${swatch('#d32f2f', 'DENY path: violation')}${swatch('#ef8f00', 'DENY path: authorized by an expected exception')}${swatch('#9e9e9e', 'other authored edge')}</p>`);
  if (pictures.governance.truncated) parts.push('<p class="note">The estate is too large to draw whole: only the DENY paths are drawn.</p>');
  parts.push(`<figure class="picture" id="governance-picture">${pictures.governance.svg}</figure>`);

  parts.push('<h2 id="connectome">Connectome (declared)</h2>');
  if ('unavailable' in pictures.connectome) {
    parts.push(`<p class="note" id="connectome-unavailable">No connectome picture: ${esc(pictures.connectome.unavailable)}</p>`);
  } else {
    parts.push(`<p class="legend">${Object.entries(SIGN_COLOURS).map(([s, col]) => swatch(col, `sign ${s}`)).join('')}</p>`);
    parts.push('<p class="note">toolgate writes only <code>unset</code> signs; other signs come from a consumer sign policy.</p>');
    if (pictures.connectome.truncated) parts.push('<p class="note">The connectome is too large to draw whole: only servers and signed edges are drawn.</p>');
    parts.push(`<figure class="picture" id="connectome-picture">${pictures.connectome.svg}</figure>`);
  }

  parts.push('<h2 id="findings">Findings</h2>');
  for (const s of auditSections(r)) {
    parts.push(`<h3 id="audit-${s.audit}">${esc(s.audit)}: ${esc(s.title)} (<span data-finding-count="${s.audit}">${s.rows.length}</span>)</h3>`);
    if (s.rows.length === 0) parts.push('<p>None.</p>');
    else {
      parts.push('<ul>');
      for (const f of s.rows) parts.push(`<li>${esc(f.summary)}<ul class="evidence">${f.evidence.map((e) => `<li>${esc(e)}</li>`).join('')}</ul></li>`);
      parts.push('</ul>');
    }
  }

  parts.push('<h2 id="exposure">Per-agent exposure</h2><table><thead><tr><th>agent</th><th>granted</th><th>violations</th><th>authorized</th><th>drifted</th><th>unmapped</th><th>unbacked</th><th>DENY policies reached</th></tr></thead><tbody>');
  for (const e of r.exposure) {
    parts.push(
      `<tr data-agent="${esc(e.agent)}"><td>${esc(e.agent)}</td><td class="n">${e.granted}</td><td class="n${e.violations ? ' violation' : ''}">${e.violations}</td><td class="n">${e.authorized_but_governed}</td><td class="n">${e.drifted.length}</td><td class="n">${e.unmapped.length}</td><td class="n">${e.unbacked.length}</td><td>${esc(e.policies_reached.join(', ')) || '-'}</td></tr>`,
    );
  }
  parts.push('</tbody></table>');
  for (const e of r.exposure) {
    if (e.deny_paths.length === 0) continue;
    parts.push(`<h3>${esc(e.agent)}: DENY paths</h3><ul>`);
    for (const p of e.deny_paths) {
      const cls = p.classification === 'violation' ? 'violation' : 'authorized';
      parts.push(`<li><span class="${cls}">${esc(p.classification)}</span> <code>${esc(p.path)}</code>${p.exception_reason ? ` (exception: ${esc(p.exception_reason)})` : ''}</li>`);
    }
    parts.push('</ul>');
  }

  parts.push('<h2 id="notices">Notices</h2>');
  if (r.notices.length === 0) parts.push('<p>None.</p>');
  else parts.push(`<ul>${r.notices.map((n) => `<li>${esc(n.kind)} at ${esc(n.at)}: ${esc(n.message)}</li>`).join('')}</ul>`);
  parts.push('</body></html>', '');
  return parts.join('\n');
}
