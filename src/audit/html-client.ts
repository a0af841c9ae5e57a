/**
 * The HTML report's own script, inlined into the file (its style is html-style.ts): it reads the
 * report data (html-data.ts) from a JSON script element and draws the agent, grant and policy
 * tables, the search and filters, and a small layered graph of one agent or one policy when it is opened,
 * with wheel zoom, drag pan and a fit button. It only ever sets textContent and attributes, never
 * HTML, so an estate string cannot become markup. No network, no library.
 */
import { EDGE_COLOURS, NODE_SHAPES } from './html-style.ts';

// Plain ES5-style text: it runs in the reader's browser as written, not through our build.
export const CLIENT_JS = String.raw`(function () {
'use strict';
var D = JSON.parse(document.getElementById('report-data').textContent);
var NS = 'http://www.w3.org/2000/svg';
var CLS = ['', 'authorized', 'violation'];
var COL = { violation: '${EDGE_COLOURS.violation}', authorized: '${EDGE_COLOURS.authorized}', plain: '${EDGE_COLOURS.plain}' };
var SHAPE = ${JSON.stringify(NODE_SHAPES)};
var PAGE = 200;
var state = { q: '', violations: false, server: '', reason: '', limit: PAGE };

function el(tag, attrs, text) {
  var e = document.createElement(tag);
  if (attrs) for (var k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function sv(tag, attrs, text) {
  var e = document.createElementNS(NS, tag);
  if (attrs) for (var k in attrs) e.setAttribute(k, String(attrs[k]));
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function td(text, cls) { return el('td', cls ? { 'class': cls } : null, text); }
function ref(kind, id) {
  var a = el('a', { 'class': 'ref', href: '#' + kind + '=' + encodeURIComponent(id) }, id);
  return a;
}
function short(s, n) { return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; }

var policyAgents = D.policies.map(function () { return {}; });
D.agents.forEach(function (a) {
  a.violations = 0; a.rejected = 0;
  a.grants.forEach(function (g) { if (g[4] === 2) a.violations++; if (g[2] === 0) a.rejected++; });
  a.deny.forEach(function (p) { if (p[1] >= 0) { var m = policyAgents[p[1]]; m[a.id] = Math.max(m[a.id] || 0, p[3]); } });
});
var policyTargets = D.policies.map(function () { return []; });
Object.keys(D.bindings).forEach(function (t) { D.bindings[t].forEach(function (i) { policyTargets[i].push(t); }); });
var boundTools = {};
D.boundTools.forEach(function (t) { boundTools[t] = true; });
var toolsOfResource = {};
Object.keys(D.access).forEach(function (t) { D.access[t].forEach(function (r) { (toolsOfResource[r[0]] = toolsOfResource[r[0]] || []).push([t, r[1]]); }); });

var reasons = {};
D.agents.forEach(function (a) { a.grants.forEach(function (g) { if (g[3]) reasons[g[3]] = true; }); });
var serverSel = document.getElementById('server-filter');
D.servers.forEach(function (s, i) { serverSel.appendChild(el('option', { value: String(i) }, s)); });
var reasonSel = document.getElementById('reason-filter');
reasonSel.appendChild(el('option', { value: 'ELIGIBLE' }, 'eligible (no reason)'));
Object.keys(reasons).sort().forEach(function (r) { reasonSel.appendChild(el('option', { value: r }, r)); });

function grantPasses(a, g, q) {
  if (state.violations && g[4] !== 2) return false;
  if (state.server !== '' && String(g[1]) !== state.server) return false;
  if (state.reason === 'ELIGIBLE' && g[2] !== 1) return false;
  if (state.reason !== '' && state.reason !== 'ELIGIBLE' && g[3] !== state.reason) return false;
  if (q && a.id.toLowerCase().indexOf(q) < 0 && g[0].toLowerCase().indexOf(q) < 0) return false;
  return true;
}
function decisionCells(tr, g) {
  tr.appendChild(td(g[2] ? 'eligible' : 'rejected', g[2] ? 'eligible' : 'rejected'));
  tr.appendChild(td(g[3] || '-'));
  tr.appendChild(td(D.profile));
  var rev = td(D.revision === null ? 'no bundle given' : short(D.revision, 13));
  if (D.revision !== null) rev.setAttribute('title', D.revision);
  tr.appendChild(rev);
  tr.appendChild(td(CLS[g[4]] || '-', CLS[g[4]]));
}
function grantRow(a, g, withAgent) {
  var tr = el('tr', { 'data-agent': a.id, 'data-tool': g[0] });
  if (withAgent) { var c = el('td'); c.appendChild(ref('agent', a.id)); tr.appendChild(c); }
  tr.appendChild(td(g[0]));
  tr.appendChild(td(g[1] >= 0 ? D.servers[g[1]] : '-'));
  decisionCells(tr, g);
  return tr;
}
function fill(id, rows) {
  var body = document.querySelector('#' + id + ' tbody');
  body.textContent = '';
  var frag = document.createDocumentFragment();
  rows.forEach(function (r) { frag.appendChild(r); });
  body.appendChild(frag);
}

function renderTables() {
  var q = state.q;
  var agentRows = [], grantRows = [], matched = 0;
  D.agents.forEach(function (a) {
    var n = 0;
    a.grants.forEach(function (g) {
      if (!grantPasses(a, g, q)) return;
      n++; matched++;
      if (grantRows.length < state.limit) grantRows.push(grantRow(a, g, true));
    });
    if (n === 0) return;
    var tr = el('tr', { 'data-agent': a.id });
    var c = el('td'); c.appendChild(ref('agent', a.id)); tr.appendChild(c);
    tr.appendChild(td(a.grants.length, 'n'));
    tr.appendChild(td(n, 'n'));
    tr.appendChild(td(a.grants.length - a.rejected, 'n eligible'));
    tr.appendChild(td(a.rejected, 'n' + (a.rejected ? ' rejected' : '')));
    tr.appendChild(td(a.violations, 'n' + (a.violations ? ' violation' : '')));
    agentRows.push(tr);
  });
  fill('agents-table', agentRows);
  fill('grants-table', grantRows);
  document.getElementById('agents-shown').textContent = agentRows.length + ' of ' + D.agents.length + ' agents';
  document.getElementById('grants-shown').textContent = grantRows.length + ' shown of ' + matched + ' matching grants';
  document.getElementById('grants-more').hidden = grantRows.length >= matched;
  var policyRows = [];
  D.policies.forEach(function (p, i) {
    var reach = policyAgents[i], names = Object.keys(reach), viol = names.filter(function (n) { return reach[n] === 2; }).length;
    if (state.violations && viol === 0) return;
    if (q && p[0].toLowerCase().indexOf(q) < 0) return;
    var tr = el('tr', { 'data-policy': p[0] });
    var c = el('td'); c.appendChild(ref('policy', p[0])); tr.appendChild(c);
    tr.appendChild(td(p[1], p[1] === 'DENY' ? 'rejected' : 'eligible'));
    tr.appendChild(td(policyTargets[i].length, 'n'));
    tr.appendChild(td(names.length, 'n'));
    tr.appendChild(td(viol, 'n' + (viol ? ' violation' : '')));
    policyRows.push(tr);
  });
  fill('policies-table', policyRows);
  document.getElementById('policies-shown').textContent = policyRows.length + ' of ' + D.policies.length + ' policies';
}

// ---- one agent's or one policy's graph: four columns, agent -> tool -> resource -> policy ----
var MAX_NODES = 600, W = 210, H = 18, GAP = 6, XS = [0, 300, 600, 900];
function Graph() { this.cols = [[], [], [], []]; this.ids = {}; this.edges = {}; this.fromRight = false; }
Graph.prototype.node = function (col, kind, id, label) {
  var k = kind + ':' + id;
  if (!this.ids[k]) { this.ids[k] = { col: col, kind: kind, id: id, label: label || id }; this.cols[col].push(this.ids[k]); }
  return k;
};
Graph.prototype.edge = function (a, b, cls) {
  var k = a + '\u0000' + b, prev = this.edges[k];
  var rank = { plain: 0, authorized: 1, violation: 2 };
  if (!prev || rank[cls] > rank[prev.cls]) this.edges[k] = { from: a, to: b, cls: cls };
};
Graph.prototype.size = function () { return this.cols[0].length + this.cols[1].length + this.cols[2].length + this.cols[3].length; };
function policyNode(g, i) { return g.node(3, D.policies[i][1] === 'DENY' ? 'policyDeny' : 'policyAllow', D.policies[i][0]); }

function shape(n, x, y) {
  var s = SHAPE[n.kind], a = { fill: s.fill, stroke: s.stroke, 'stroke-width': 1.2 };
  if (n.kind === 'agent') { a.x = x; a.y = y; a.width = W; a.height = H; a.rx = 6; return sv('rect', a); }
  if (n.kind === 'tool') { a.cx = x + W / 2; a.cy = y + H / 2; a.rx = W / 2; a.ry = H / 2; return sv('ellipse', a); }
  if (n.kind === 'resource') { a.d = 'M' + x + ' ' + y + 'h' + (W - 7) + 'l7 7v' + (H - 7) + 'h-' + W + 'z'; return sv('path', a); }
  var c = 5;
  a.points = [[x + c, y], [x + W - c, y], [x + W, y + c], [x + W, y + H - c], [x + W - c, y + H], [x + c, y + H], [x, y + H - c], [x, y + c]].map(function (p) { return p.join(','); }).join(' ');
  return sv('polygon', a);
}

function drawGraph(g, host) {
  // Columns left to right; each node after the first column sits level with the mean of its
  // neighbours on the left (then pushed down so none overlap), which keeps most edges short.
  // A policy's graph is placed from its policy leftwards, so the policy and what it governs sit at the top.
  var pos = {}, near = {}, bottom = 0;
  Object.keys(g.edges).forEach(function (k) {
    var e = g.edges[k], a = g.fromRight ? e.from : e.to, b = g.fromRight ? e.to : e.from;
    (near[a] = near[a] || []).push(b);
  });
  var order = g.fromRight ? [3, 2, 1, 0] : [0, 1, 2, 3];
  order.forEach(function (ci) {
    var col = g.cols[ci];
    var want = col.map(function (n, ri) {
      var from = (near[n.kind + ':' + n.id] || []).filter(function (f) { return pos[f] !== undefined; });
      var y = from.length ? from.reduce(function (t, f) { return t + pos[f].y; }, 0) / from.length : ri * (H + GAP);
      return { n: n, y: y, ri: ri };
    });
    want.sort(function (a, b) { return a.y - b.y || a.ri - b.ri; });
    var next = 0;
    want.forEach(function (w) {
      var y = Math.max(next, w.y);
      pos[w.n.kind + ':' + w.n.id] = { x: XS[ci], y: y };
      next = y + H + GAP;
    });
    bottom = Math.max(bottom, next);
  });
  var width = XS[3] + W, height = Math.max(H + GAP, bottom);
  var svg = sv('svg', { viewBox: '0 0 ' + width + ' ' + height, preserveAspectRatio: 'xMidYMin meet', role: 'img' });
  var edges = sv('g', { 'class': 'edges' });
  Object.keys(g.edges).sort().forEach(function (k) {
    var e = g.edges[k], a = pos[e.from], b = pos[e.to];
    var x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2, mx = (x1 + x2) / 2;
    var p = sv('path', { d: 'M' + x1 + ' ' + y1 + 'C' + mx + ' ' + y1 + ' ' + mx + ' ' + y2 + ' ' + x2 + ' ' + y2, fill: 'none', stroke: COL[e.cls], 'stroke-width': e.cls === 'plain' ? 1 : 2.2, 'class': 'edge ' + e.cls });
    p.appendChild(sv('title', null, e.from + ' -> ' + e.to));
    edges.appendChild(p);
  });
  svg.appendChild(edges);
  var nodes = sv('g', { 'class': 'nodes' });
  g.cols.forEach(function (col) {
    col.forEach(function (n) {
      var k = n.kind + ':' + n.id, p = pos[k];
      var gr = sv('g', { 'class': 'node node_' + n.kind, 'data-id': n.id });
      gr.appendChild(sv('title', null, n.label));
      gr.appendChild(shape(n, p.x, p.y));
      gr.appendChild(sv('text', { x: p.x + 8, y: p.y + H / 2 + 4 }, short(n.label, 34)));
      if (n.kind === 'agent') gr.addEventListener('click', function () { location.hash = '#agent=' + encodeURIComponent(n.id); });
      if (n.kind === 'policyDeny' || n.kind === 'policyAllow') gr.addEventListener('click', function () { location.hash = '#policy=' + encodeURIComponent(n.id); });
      nodes.appendChild(gr);
    });
  });
  svg.appendChild(nodes);
  var box = el('div', { 'class': 'graph' });
  box.appendChild(svg);
  var tools = el('div', { 'class': 'tools' });
  box.appendChild(tools);
  host.appendChild(box);
  // A short graph gets a short box; a tall one the 70vh box, fitted to its width, to pan and zoom in.
  var bw = box.clientWidth || 800;
  box.style.height = Math.round(Math.max(160, Math.min(window.innerHeight * 0.7, height * bw / width + 16))) + 'px';
  panZoom(svg, tools, width, height);
}

function panZoom(svg, tools, width, height) {
  var vb;
  function set() { svg.setAttribute('viewBox', vb.join(' ')); }
  function fit() {
    var r = svg.getBoundingClientRect();
    var aspect = r.width > 0 ? r.height / r.width : 0.7;
    // Fit the width, or the whole graph when it is short enough to fit the box.
    vb = [0, 0, width, Math.max(height, width * aspect)];
    if (height > width * aspect * 3) vb = [0, 0, width, width * aspect];
    // On a narrow screen start on the first two columns at a readable size; the rest is a pan away.
    if (r.width > 0 && r.width < 700) vb = [0, 0, XS[1] + W + 20, (XS[1] + W + 20) * aspect];
    set();
  }
  function zoom(f, cx, cy) {
    var nw = vb[2] * f, nh = vb[3] * f;
    vb = [cx - (cx - vb[0]) * f, cy - (cy - vb[1]) * f, nw, nh];
    set();
  }
  function toGraph(ev) {
    var r = svg.getBoundingClientRect(), s = Math.max(vb[2] / r.width, vb[3] / r.height);
    return [vb[0] + (ev.clientX - r.left) * s, vb[1] + (ev.clientY - r.top) * s, s];
  }
  svg.addEventListener('wheel', function (ev) { ev.preventDefault(); var p = toGraph(ev); zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, p[0], p[1]); }, { passive: false });
  var drag = null;
  svg.addEventListener('pointerdown', function (ev) { drag = { x: ev.clientX, y: ev.clientY, vb: vb.slice(), s: toGraph(ev)[2] }; });
  window.addEventListener('pointerup', function () { drag = null; });
  svg.addEventListener('pointermove', function (ev) {
    if (!drag) return;
    vb = [drag.vb[0] - (ev.clientX - drag.x) * drag.s, drag.vb[1] - (ev.clientY - drag.y) * drag.s, drag.vb[2], drag.vb[3]];
    set();
  });
  [['fit', fit], ['+', function () { zoom(1 / 1.3, vb[0] + vb[2] / 2, vb[1] + vb[3] / 2); }], ['\u2212', function () { zoom(1.3, vb[0] + vb[2] / 2, vb[1] + vb[3] / 2); }]].forEach(function (b) {
    var btn = el('button', { type: 'button', 'class': 'zoom-' + (b[0] === 'fit' ? 'fit' : b[0] === '+' ? 'in' : 'out') }, b[0]);
    btn.addEventListener('click', b[1]);
    tools.appendChild(btn);
  });
  fit();
}

function agentGraph(a, denyOnly) {
  var g = new Graph(), root = g.node(0, 'agent', a.id);
  var cls = {};
  a.deny.forEach(function (p) {
    var t = g.node(1, 'tool', p[0]), c = CLS[p[3]], pol = p[1] >= 0 ? policyNode(g, p[1]) : null;
    g.edge(root, t, c);
    if (p[2] === '') { if (pol) g.edge(t, pol, c); }
    else { var r = g.node(2, 'resource', p[2]); g.edge(t, r, c); if (pol) g.edge(r, pol, c); }
  });
  if (denyOnly) return g;
  a.grants.forEach(function (gr) {
    var t = g.node(1, 'tool', gr[0]);
    g.edge(root, t, 'plain');
    (D.bindings[gr[0]] || []).forEach(function (i) { g.edge(t, policyNode(g, i), 'plain'); });
    (D.access[gr[0]] || []).forEach(function (x) {
      var r = g.node(2, 'resource', x[0]);
      g.edge(t, r, 'plain');
      (D.bindings[x[0]] || []).forEach(function (i) { g.edge(r, policyNode(g, i), 'plain'); });
    });
  });
  return g;
}

function policyGraph(i) {
  var g = new Graph(), pol = policyNode(g, i), id = D.policies[i][0];
  g.fromRight = true;
  policyTargets[i].forEach(function (t) {
    if (boundTools[t]) { g.edge(g.node(1, 'tool', t), pol, 'plain'); return; }
    var r = g.node(2, 'resource', t);
    g.edge(r, pol, 'plain');
    (toolsOfResource[t] || []).forEach(function (x) { g.edge(g.node(1, 'tool', x[0]), r, 'plain'); });
  });
  D.agents.forEach(function (a) {
    a.deny.forEach(function (p) {
      if (p[1] !== i) return;
      var c = CLS[p[3]], an = g.node(0, 'agent', a.id), t = g.node(1, 'tool', p[0]);
      g.edge(an, t, c);
      if (p[2] === '') g.edge(t, pol, c); else { var r = g.node(2, 'resource', p[2]); g.edge(t, r, c); g.edge(r, pol, c); }
    });
  });
  return { graph: g, id: id };
}

function graphInto(host, full, deny, what) {
  var g = state.violations ? deny() : full();
  var note = null;
  if (g.size() > MAX_NODES) { g = deny(); note = what + ' has too many nodes to draw whole: only its DENY paths are drawn.'; }
  if (note) host.appendChild(el('p', { 'class': 'note' }, note));
  if (g.size() > MAX_NODES) { host.appendChild(el('p', { 'class': 'note' }, 'Too large to draw (' + g.size() + ' nodes): see the table.')); return; }
  if (g.size() <= 1) { host.appendChild(el('p', { 'class': 'note' }, 'Nothing to draw.')); return; }
  drawGraph(g, host);
}

function table(headers, id) {
  var t = el('table', id ? { id: id } : null), h = el('tr');
  headers.forEach(function (x) { h.appendChild(el('th', null, x)); });
  var thead = el('thead'); thead.appendChild(h); t.appendChild(thead); t.appendChild(el('tbody'));
  return t;
}

function showDetail() {
  var host = document.getElementById('detail');
  host.textContent = '';
  var m = /^#(agent|policy)=(.*)$/.exec(location.hash);
  if (!m) return;
  var id = decodeURIComponent(m[2]);
  var close = el('a', { 'class': 'ref', href: '#explorer' }, 'close');
  if (m[1] === 'agent') {
    var a = D.agents.filter(function (x) { return x.id === id; })[0];
    if (!a) { host.appendChild(el('p', null, 'No agent ' + id)); return; }
    host.appendChild(el('h2', { id: 'detail-title' }, 'agent ' + a.id));
    host.appendChild(close);
    host.appendChild(el('p', null, a.grants.length + ' grants, ' + (a.grants.length - a.rejected) + ' eligible and ' + a.rejected + ' rejected by the gateway under profile ' + D.profile + '; ' + a.violations + ' with a DENY violation.'));
    graphInto(host, function () { return agentGraph(a, false); }, function () { return agentGraph(a, true); }, 'This agent');
    var t = table(['tool', 'server', 'gateway', 'reason', 'profile', 'bundle revision', 'DENY path'], 'detail-grants');
    var body = t.querySelector('tbody');
    a.grants.forEach(function (g) { if (grantPasses(a, g, '')) body.appendChild(grantRow(a, g, false)); });
    var wrap = el('div', { 'class': 'scroll' }); wrap.appendChild(t); host.appendChild(wrap);
  } else {
    var i = -1;
    D.policies.forEach(function (p, k) { if (p[0] === id) i = k; });
    if (i < 0) { host.appendChild(el('p', null, 'No policy ' + id)); return; }
    host.appendChild(el('h2', { id: 'detail-title' }, 'policy ' + id + ' (' + D.policies[i][1] + ')'));
    host.appendChild(close);
    var reach = policyAgents[i];
    host.appendChild(el('p', null, policyTargets[i].length + ' targets GOVERNED_BY it; reached by ' + Object.keys(reach).length + ' agents on a DENY path.'));
    graphInto(host, function () { return policyGraph(i).graph; }, function () {
      var g = new Graph(), pol = policyNode(g, i);
      g.fromRight = true;
      D.agents.forEach(function (a) { a.deny.forEach(function (p) { if (p[1] !== i || state.violations && p[3] !== 2) return; var c = CLS[p[3]], t = g.node(1, 'tool', p[0]); g.edge(g.node(0, 'agent', a.id), t, c); if (p[2] === '') g.edge(t, pol, c); else { var r = g.node(2, 'resource', p[2]); g.edge(t, r, c); g.edge(r, pol, c); } }); });
      return g;
    }, 'This policy');
    var t2 = table(['agent', 'DENY path'], 'detail-agents'), b2 = t2.querySelector('tbody');
    Object.keys(reach).sort().forEach(function (n) { var tr = el('tr', { 'data-agent': n }), c = el('td'); c.appendChild(ref('agent', n)); tr.appendChild(c); tr.appendChild(td(CLS[reach[n]], CLS[reach[n]])); b2.appendChild(tr); });
    var w2 = el('div', { 'class': 'scroll' }); w2.appendChild(t2); host.appendChild(w2);
  }
  host.scrollIntoView();
}

var timer = null;
document.getElementById('search').addEventListener('input', function (ev) {
  clearTimeout(timer);
  timer = setTimeout(function () { state.q = ev.target.value.trim().toLowerCase(); state.limit = PAGE; renderTables(); }, 120);
});
document.getElementById('violations-only').addEventListener('change', function (ev) { state.violations = ev.target.checked; state.limit = PAGE; renderTables(); showDetail(); });
serverSel.addEventListener('change', function () { state.server = serverSel.value; state.limit = PAGE; renderTables(); showDetail(); });
reasonSel.addEventListener('change', function () { state.reason = reasonSel.value; state.limit = PAGE; renderTables(); showDetail(); });
document.getElementById('grants-more').addEventListener('click', function () { state.limit += PAGE * 5; renderTables(); });
window.addEventListener('hashchange', showDetail);
renderTables();
showDetail();
document.documentElement.setAttribute('data-ready', 'true');
})();
`;
