// qlessd dashboard: charts drawn as inline SVG, live counts and events
// over Server-Sent Events, confirmation of destructive forms. Every value
// from the store is put into the page as text (textContent), never as HTML.
(function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';
  var STATES = ['waiting', 'running', 'scheduled', 'stalled', 'depends', 'recurring', 'throttled'];

  function svg(tag, attrs, parent) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function html(tag, cls, text, parent) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(n) { return Number(n).toLocaleString('en-US'); }
  function niceMax(v) {
    if (v <= 0) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(v)));
    var steps = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];
    for (var i = 0; i < steps.length; i++) if (steps[i] * p >= v) return steps[i] * p;
    return 10 * p;
  }

  // barChart draws values as bars; label(i) names the x ticks to show,
  // tip(i) the tooltip of bar i.
  function barChart(box, values, label, tip) {
    box.textContent = '';
    var W = Math.max(box.clientWidth, 280), H = 180, L = 44, R = 8, T = 10, B = 24;
    var s = svg('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img' }, box);
    var max = niceMax(Math.max.apply(null, values.concat([0])));
    var ih = H - T - B, iw = W - L - R, bw = iw / Math.max(values.length, 1);
    [0, 0.5, 1].forEach(function (f) {
      var y = T + ih - f * ih;
      svg('line', { x1: L, x2: W - R, y1: y, y2: y, 'class': f === 0 ? 'axis' : 'grid' }, s);
      var t = svg('text', { x: L - 6, y: y + 4, 'text-anchor': 'end' }, s);
      t.textContent = fmt(Math.round(max * f * 100) / 100);
    });
    values.forEach(function (v, i) {
      var h = v / max * ih;
      if (v > 0) {
        var r = svg('rect', { x: L + i * bw + bw * 0.12, y: T + ih - h, width: Math.max(bw * 0.76, 1), height: Math.max(h, 1), 'class': 'bar' }, s);
        svg('title', {}, r).textContent = tip(i, v);
      }
      var l = label(i);
      if (l) {
        var t = svg('text', { x: L + i * bw + bw / 2, y: H - 6, 'text-anchor': 'middle' }, s);
        t.textContent = l;
      }
    });
    if (values.every(function (v) { return v === 0; })) {
      var t = svg('text', { x: L + iw / 2, y: T + ih / 2, 'text-anchor': 'middle' }, s);
      t.textContent = 'nothing yet';
    }
  }

  function hhmm(unix) {
    var d = new Date(unix * 1000);
    return ('0' + d.getUTCHours()).slice(-2) + ':' + ('0' + d.getUTCMinutes()).slice(-2);
  }

  function throughputChart(box, t) {
    var n = t.counts.length;
    barChart(box, t.counts, function (i) {
      if (i === n - 1) return 'now';
      if ((n - 1 - i) % 15 === 0) return '-' + (n - 1 - i) + 'm';
      return null;
    }, function (i, v) { return hhmm(t.start + i * 60) + ' UTC: ' + fmt(v) + ' completed'; });
  }

  // qless's histogram buckets: seconds 0-59, minutes 1-59, hours 1-23, days 1-6.
  function bucketName(i) {
    if (i < 60) return i + 's';
    if (i < 119) return (i - 59) + 'm';
    if (i < 142) return (i - 118) + 'h';
    return (i - 141) + 'd';
  }
  function histogramChart(box, h) {
    var last = 59;
    h.forEach(function (v, i) { if (v > 0 && i > last) last = i; });
    var values = h.slice(0, last + 1);
    var ticks = { 0: '0s', 30: '30s', 60: '1m', 89: '30m', 119: '1h', 130: '12h', 142: '1d' };
    barChart(box, values, function (i) { return ticks[i] || null; },
      function (i, v) { return bucketName(i) + ': ' + fmt(v) + ' jobs'; });
  }

  function readJSON(id) {
    var e = document.getElementById(id);
    if (!e) return null;
    try { return JSON.parse(e.textContent); } catch (err) { return null; }
  }

  var charts = [];
  function drawCharts() {
    charts = [];
    document.querySelectorAll('[data-chart]').forEach(function (box) {
      var kind = box.getAttribute('data-chart');
      var data = readJSON(box.getAttribute('data-source') || 'throughput-data');
      if (!data) return;
      var c = { box: box, kind: kind, data: data };
      charts.push(c);
      draw(c);
    });
  }
  function draw(c) {
    if (c.kind === 'throughput') throughputChart(c.box, c.data);
    else histogramChart(c.box, c.data || []);
  }

  function setCount(e, v) {
    var text = fmt(v);
    if (e.classList.contains('n')) e.classList.toggle('zero', !v);
    if (e.textContent === text) return;
    e.textContent = text;
    e.classList.remove('flash-up');
    void e.offsetWidth;
    e.classList.add('flash-up');
  }

  function queueRow(tbody, q) {
    var tr = html('tr', null, null, tbody);
    tr.setAttribute('data-queue', q.name);
    var a = html('a', null, q.name, html('td', null, null, tr));
    var base = '/queues/' + encodeURIComponent(q.name);
    a.href = base;
    STATES.forEach(function (s) {
      var c = html('a', 'n n-' + s, '', html('td', 'num', null, tr));
      c.setAttribute('data-count', s);
      c.href = base + '?state=' + s;
    });
    html('td', null, null, tr).setAttribute('data-paused', '');
    return tr;
  }

  function updateOverview(c) {
    var sums = { failed: c.failed_total };
    STATES.forEach(function (s) { sums[s] = 0; });
    c.queues.forEach(function (q) { STATES.forEach(function (s) { sums[s] += q[s]; }); });
    document.querySelectorAll('[data-sum]').forEach(function (e) {
      setCount(e, sums[e.getAttribute('data-sum')]);
    });
    var table = document.getElementById('queues');
    if (!table && c.queues.length) { location.reload(); return; }
    if (table) {
      var tbody = table.tBodies[0], rows = {};
      tbody.querySelectorAll('tr[data-queue]').forEach(function (tr) { rows[tr.getAttribute('data-queue')] = tr; });
      c.queues.forEach(function (q) {
        var tr = rows[q.name] || queueRow(tbody, q);
        tr.querySelectorAll('[data-count]').forEach(function (e) { setCount(e, q[e.getAttribute('data-count')]); });
        var p = tr.querySelector('[data-paused]');
        if (p && (p.textContent !== '') !== q.paused) {
          p.textContent = '';
          if (q.paused) html('span', 'state s-paused', 'paused', p);
        }
      });
      var qc = document.getElementById('queue-count');
      if (qc) qc.textContent = c.queues.length;
    }
    charts.forEach(function (ch) {
      if (ch.kind === 'throughput' && ch.box.id === 'throughput-chart') { ch.data = c.throughput; draw(ch); }
    });
  }

  function updateQueuePage(c) {
    var tabs = document.getElementById('queue-tabs');
    if (!tabs) return;
    var name = tabs.getAttribute('data-queue');
    c.queues.forEach(function (q) {
      if (q.name !== name) return;
      tabs.querySelectorAll('[data-tab-count]').forEach(function (e) { setCount(e, q[e.getAttribute('data-tab-count')]); });
    });
  }

  // The same line the failure cards show (exceptionLine in failure_summary.go).
  function exceptionLine(msg) {
    var lines = String(msg).split(/\r?\n/).map(function (l) { return l.trim(); }).filter(function (l) { return l !== ''; });
    if (!lines.length) return '';
    if (lines[0].indexOf('Traceback (most recent call last):') === 0 && lines.length > 1) return lines[lines.length - 1];
    return lines[0];
  }

  function describe(ev) {
    var kind = ev.channel.replace(/^ql:/, ''), m = null;
    if (ev.message.charAt(0) === '{') { try { m = JSON.parse(ev.message); } catch (e) { m = null; } }
    if (m) {
      kind = m.event || kind;
      var rest = [];
      if (m.queue) rest.push('queue ' + m.queue);
      if (m.to) rest.push('to ' + m.to);
      if (m.worker) rest.push('worker ' + m.worker);
      if (m.group) rest.push(m.group);
      if (m.message) rest.push(exceptionLine(m.message));
      if (m.option) rest.push(m.option + (m.value !== undefined ? ' = ' + m.value : ''));
      return { kind: kind, jid: m.jid, text: rest.join(' · ') };
    }
    return { kind: kind, jid: ev.message, text: ev.channel };
  }

  var seen = 0;
  function addEvents(batch) {
    var list = document.getElementById('events');
    if (!list) return;
    batch.events.forEach(function (ev) {
      var d = describe(ev), li = document.createElement('li');
      var t = new Date(ev.time * 1000);
      html('span', 'ev-time', t.toISOString().slice(11, 19), li);
      html('span', 'state ev-kind s-' + ({ put: 'waiting', popped: 'running', completed: 'complete', failed: 'failed',
        canceled: 'depends', lock_lost: 'stalled', stalled: 'stalled', advanced: 'scheduled' }[d.kind] || 'depends'), d.kind, li);
      var text = html('span', 'ev-text', null, li);
      if (d.jid) {
        var a = html('a', 'mono', d.jid, text);
        a.href = '/jobs/' + encodeURIComponent(d.jid);
        text.appendChild(document.createTextNode(' '));
      }
      html('span', 'muted', d.text, text);
      list.insertBefore(li, list.firstChild);
      seen++;
    });
    while (list.children.length > 50) list.removeChild(list.lastChild);
    var note = document.getElementById('events-note');
    if (note) note.textContent = batch.sampled ? 'busy server: a sample of its events every few seconds' :
      fmt(seen) + ' shown' + (batch.dropped ? ', ' + fmt(batch.dropped) + ' more just now not shown' : '');
  }

  function live() {
    if (!window.EventSource) return;
    var status = document.getElementById('live');
    var page = document.body.getAttribute('data-page');
    var es = new EventSource('/events');
    es.onopen = function () { status.textContent = 'live'; status.classList.add('on'); };
    es.onerror = function () { status.textContent = 'reconnecting'; status.classList.remove('on'); };
    es.addEventListener('counts', function (e) {
      var c = JSON.parse(e.data);
      var badge = document.getElementById('nav-failed');
      if (badge) badge.textContent = c.failed_total ? fmt(c.failed_total) : '';
      if (page === 'overview') updateOverview(c);
      if (page === 'queue') updateQueuePage(c);
      document.body.setAttribute('data-live-counts', String(Date.now()));
    });
    es.addEventListener('events', function (e) { addEvents(JSON.parse(e.data)); });
  }

  function confirmForms() {
    document.querySelectorAll('form[data-confirm]').forEach(function (f) {
      f.addEventListener('submit', function (e) {
        if (!window.confirm(f.getAttribute('data-confirm'))) e.preventDefault();
      });
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    drawCharts();
    confirmForms();
    live();
    var timer;
    window.addEventListener('resize', function () {
      clearTimeout(timer);
      timer = setTimeout(function () { charts.forEach(draw); }, 150);
    });
  });
})();
