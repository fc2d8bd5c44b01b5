// mucscale-loadgen report: draws SVG charts and tables from the RUNS array embedded above. No libraries.
(function () {
  'use strict';
  var COLORS = ['#1f6fd1', '#d1491f', '#2a9d3a', '#8e44ad', '#c7a000', '#00838f', '#6d4c41', '#e91e63'];
  var runs = window.RUNS || [];
  var root = document.getElementById('report');

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) { for (var k in attrs) { e.setAttribute(k, attrs[k]); } }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function svgEl(tag, attrs) {
    var e = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    return e;
  }
  function fmt(v, digits) {
    if (v === null || v === undefined || v < 0 || isNaN(v)) { return '–'; }
    if (Math.abs(v) >= 1000) { return Math.round(v).toLocaleString('en-US'); }
    return Number(v).toFixed(digits === undefined ? 2 : digits);
  }
  function niceMax(v) {
    if (v <= 0) { return 1; }
    var p = Math.pow(10, Math.floor(Math.log10(v)));
    var m = v / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }

  // lines: [{name, color, dash, pts: [[x, y], ...]}]
  function lineChart(parent, title, yUnit, lines) {
    var box = el('div', {'class': 'chart'});
    box.appendChild(el('h3', null, title));
    var W = 560, H = 240, L = 66, R = 12, T = 10, B = 30;
    var xmax = 1, ymax = 0;
    lines.forEach(function (l) {
      l.pts.forEach(function (p) { if (p[0] > xmax) { xmax = p[0]; } if (p[1] > ymax) { ymax = p[1]; } });
    });
    ymax = niceMax(ymax * 1.05);
    xmax = niceMax(xmax);
    var svg = svgEl('svg', {viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': title});
    var sx = function (x) { return L + (W - L - R) * x / xmax; };
    var sy = function (y) { return H - B - (H - T - B) * Math.max(0, y) / ymax; };
    var grid = svgEl('g', {'class': 'grid'}), axis = svgEl('g', {'class': 'axis'});
    for (var i = 0; i <= 4; i++) {
      var yv = ymax * i / 4, y = sy(yv);
      grid.appendChild(svgEl('line', {x1: L, x2: W - R, y1: y, y2: y}));
      var t = svgEl('text', {x: L - 6, y: y + 4, 'text-anchor': 'end'}); t.textContent = fmt(yv, yv < 10 ? 1 : 0); axis.appendChild(t);
      var xv = xmax * i / 4, x = sx(xv);
      var tx = svgEl('text', {x: x, y: H - B + 16, 'text-anchor': 'middle'}); tx.textContent = Math.round(xv) + 's'; axis.appendChild(tx);
    }
    axis.appendChild(svgEl('line', {x1: L, x2: W - R, y1: H - B, y2: H - B}));
    axis.appendChild(svgEl('line', {x1: L, x2: L, y1: T, y2: H - B}));
    var yl = svgEl('text', {x: 10, y: T + (H - T - B) / 2, transform: 'rotate(-90 10 ' + (T + (H - T - B) / 2) + ')', 'text-anchor': 'middle'});
    yl.textContent = yUnit; axis.appendChild(yl);
    svg.appendChild(grid); svg.appendChild(axis);
    lines.forEach(function (l) {
      if (!l.pts.length) { return; }
      var d = l.pts.map(function (p, j) { return (j ? 'L' : 'M') + sx(p[0]).toFixed(1) + ' ' + sy(p[1]).toFixed(1); }).join(' ');
      var path = svgEl('path', {d: d, fill: 'none', stroke: l.color, 'stroke-width': 1.8});
      if (l.dash) { path.setAttribute('stroke-dasharray', l.dash); }
      var tip = svgEl('title', {}); tip.textContent = l.name; path.appendChild(tip);
      svg.appendChild(path);
    });
    box.appendChild(svg);
    var legend = el('div', {'class': 'legend'});
    lines.forEach(function (l) {
      var s = el('span'); var sw = el('i'); sw.style.background = l.color; s.appendChild(sw);
      s.appendChild(document.createTextNode(l.name)); legend.appendChild(s);
    });
    box.appendChild(legend);
    parent.appendChild(box);
  }

  var LATENCY = {p50Ms: 1, p90Ms: 1, p99Ms: 1, p999Ms: 1, maxMs: 1};
  function series(run, field) {
    return (run.series || []).filter(function (p) {
      return p[field] !== undefined && p[field] >= 0 && (!LATENCY[field] || p.deliveriesPerSec > 0);
    })
      .map(function (p) { return [p.t, p[field]]; });
  }
  function table(parent, head, rows, classer) {
    var t = el('table'), tr = el('tr');
    head.forEach(function (h) { tr.appendChild(el('th', null, h)); });
    t.appendChild(tr);
    rows.forEach(function (r, ri) {
      var row = el('tr');
      r.forEach(function (c, ci) {
        var td = el('td', null, c);
        if (classer) { var k = classer(ri, ci, c); if (k) { td.className = k; } }
        row.appendChild(td);
      });
      t.appendChild(row);
    });
    parent.appendChild(t);
  }

  var multi = runs.length > 1;
  var title = multi ? 'mucscale-loadgen: comparison of ' + runs.length + ' runs'
                    : 'mucscale-loadgen: ' + runs[0].label + ' (' + runs[0].scenarioName + ')';
  document.title = title;
  root.appendChild(el('h1', null, title));
  root.appendChild(el('div', {'class': 'sub'}, runs.map(function (r) {
    return r.label + ': ' + r.scenarioName + ' against ' + r.target + ', started ' + r.startedAt + ', stopped by ' + r.stoppedBy;
  }).join(' · ')));

  // summary
  root.appendChild(el('h2', null, 'Summary'));
  var metrics = [
    ['users', function (s) { return fmt(s.users, 0); }],
    ['rooms (largest)', function (s) { return s.rooms + ' (' + s.largestRoom + ')'; }],
    ['logged in / joined', function (s) { return s.loggedIn + ' / ' + s.joined; }],
    ['messages sent', function (s) { return fmt(s.messagesSent, 0); }],
    ['deliveries / expected', function (s) { return fmt(s.deliveries, 0) + ' / ' + fmt(s.expectedDeliveries, 0); }],
    ['lost', function (s) { return String(s.lost); }],
    ['duplicates / reordered', function (s) { return s.duplicates + ' / ' + s.reordered; }],
    ['latency p50 ms', function (s) { return fmt(s.latencyMs.p50); }],
    ['latency p99 ms', function (s) { return fmt(s.latencyMs.p99); }],
    ['latency p99.9 ms', function (s) { return fmt(s.latencyMs.p999); }],
    ['latency max ms', function (s) { return fmt(s.latencyMs.max); }],
    ['best deliveries/s with p99 within threshold', function (s) { return fmt(s.maxDeliveriesPerSecPassing, 0) + ' (≤ ' + s.p99ThresholdMs + ' ms)'; }],
    ['generator CPU µs / delivery', function (s) { return fmt(s.genCpuUsPerDelivery); }],
    ['server CPU µs / delivery', function (s) { return fmt(s.serverCpuUsPerDelivery); }],
    ['server RSS max MB', function (s) { return fmt(s.serverRssMbMax, 0); }],
    ['server RSS kB / user', function (s) { return fmt(s.serverRssKbPerUser, 1); }],
    ['connect p50 / p99 ms', function (s) { return fmt(s.connectMs.p50) + ' / ' + fmt(s.connectMs.p99); }],
    ['join p50 / p99 ms', function (s) { return fmt(s.joinMs.p50) + ' / ' + fmt(s.joinMs.p99); }],
    ['joins/s (joined ÷ first join sent … last answered)', function (s) { return fmt(s.joinsPerSec, 0); }],
    ['join span ms', function (s) { return fmt(s.joinSpanMs, 1); }],
    ['owner join re-sends', function (s) { return String(s.ownerJoinResends); }],
    ['errors', function (s) { return String(s.errors); }]
  ];
  table(root, ['metric'].concat(runs.map(function (r) { return r.label; })),
    metrics.map(function (m) { return [m[0]].concat(runs.map(function (r) { return m[1](r.summary); })); }),
    function (ri, ci, c) { return ci > 0 && (metrics[ri][0] === 'lost' || metrics[ri][0] === 'errors') ? (c === '0' ? 'good' : 'bad') : null; });

  // charts
  root.appendChild(el('h2', null, 'Over time'));
  var charts = el('div', {'class': 'charts'});
  root.appendChild(charts);
  if (multi) {
    lineChart(charts, 'Delivery latency p99 (per second)', 'ms', runs.map(function (r, i) { return {name: r.label, color: COLORS[i % COLORS.length], pts: series(r, 'p99Ms')}; }));
    lineChart(charts, 'Delivery latency p50 (per second)', 'ms', runs.map(function (r, i) { return {name: r.label, color: COLORS[i % COLORS.length], pts: series(r, 'p50Ms')}; }));
    lineChart(charts, 'Deliveries per second', '/s', runs.map(function (r, i) { return {name: r.label, color: COLORS[i % COLORS.length], pts: series(r, 'deliveriesPerSec')}; }));
    lineChart(charts, 'Connections', 'sessions', runs.map(function (r, i) { return {name: r.label, color: COLORS[i % COLORS.length], pts: series(r, 'connections')}; }));
    lineChart(charts, 'Server CPU (% of one core)', '%', runs.map(function (r, i) { return {name: r.label, color: COLORS[i % COLORS.length], pts: series(r, 'serverCpuPct')}; }));
    lineChart(charts, 'Generator CPU (% of one core)', '%', runs.map(function (r, i) { return {name: r.label, color: COLORS[i % COLORS.length], pts: series(r, 'genCpuPct')}; }));
  } else {
    var r = runs[0];
    lineChart(charts, 'Delivery latency percentiles (per second)', 'ms', [
      {name: 'p50', color: COLORS[0], pts: series(r, 'p50Ms')}, {name: 'p90', color: COLORS[2], pts: series(r, 'p90Ms')},
      {name: 'p99', color: COLORS[1], pts: series(r, 'p99Ms')}, {name: 'max', color: '#999', dash: '4 3', pts: series(r, 'maxMs')}]);
    lineChart(charts, 'Messages and deliveries per second', '/s', [
      {name: 'deliveries/s', color: COLORS[0], pts: series(r, 'deliveriesPerSec')}, {name: 'sent/s', color: COLORS[1], pts: series(r, 'sentPerSec')}]);
    lineChart(charts, 'Connections and joins', 'clients', [
      {name: 'connections', color: COLORS[0], pts: series(r, 'connections')}, {name: 'logged in', color: COLORS[2], pts: series(r, 'loggedIn')},
      {name: 'joined', color: COLORS[1], pts: series(r, 'joined')}]);
    lineChart(charts, 'CPU (% of one core) and server RSS', '% / MB', [
      {name: 'generator CPU %', color: COLORS[0], pts: series(r, 'genCpuPct')}, {name: 'server CPU %', color: COLORS[1], pts: series(r, 'serverCpuPct')},
      {name: 'server RSS MB', color: COLORS[2], dash: '4 3', pts: series(r, 'serverRssMb')}]);
  }

  // levels
  root.appendChild(el('h2', null, 'Levels'));
  runs.forEach(function (r) {
    if (multi) { root.appendChild(el('h3', null, r.label)); }
    var rows = (r.levels || []).map(function (l) {
      return [l.kind === 'soak' ? 'soak' : 'level ' + l.level, fmt(l.ratePerSec, 0), fmt(l.seconds, 1), fmt(l.sent, 0), fmt(l.deliveries, 0),
        fmt(l.deliveriesPerSec, 0), fmt(l.p50Ms), fmt(l.p99Ms), fmt(l.p999Ms), fmt(l.maxMs), fmt(l.genCpuUsPerDelivery), fmt(l.serverCpuUsPerDelivery), l.passed ? 'pass' : 'FAIL'];
    });
    if (!rows.length) { root.appendChild(el('p', {'class': 'note'}, 'no message levels ran')); return; }
    table(root, ['phase', 'msg/s', 's', 'sent', 'deliveries', 'deliveries/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'gen µs/deliv', 'server µs/deliv', 'p99 check'], rows,
      function (ri, ci, c) { return ci === 12 ? (c === 'pass' ? 'good' : 'bad') : null; });
  });

  // errors
  root.appendChild(el('h2', null, 'Errors by kind'));
  runs.forEach(function (r) {
    var keys = Object.keys(r.errors || {});
    var p = el('p', {'class': 'note'}, (multi ? r.label + ': ' : '') + (keys.length ? keys.map(function (k) { return k + ' × ' + r.errors[k]; }).join(', ') : 'none'));
    root.appendChild(p);
    var ex = (r.summary.lossExamples || []);
    if (ex.length) { root.appendChild(el('p', {'class': 'note'}, 'loss examples: ' + ex.join('; '))); }
  });
  root.appendChild(el('p', {'class': 'note'}, 'Latency is measured from each message\u2019s scheduled send time (not the time it left the generator), so a stalled generator shows as latency instead of hiding it. Loss is exact: every sender numbers its messages, every receiver tracks which numbers arrived.'));
})();
