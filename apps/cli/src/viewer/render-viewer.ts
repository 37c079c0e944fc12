// The trace viewer: one self-contained HTML file (no network, works from
// file://). uPlot, a well-kept charting library, is inlined from the
// installed package when the page is rendered; everything else is the data
// and a small script that fills the panels.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { ContextTraceV5 } from '@strata/context';
import { compactionSummary, compactionWhy, diffTurns, receiptLines, windowReceiptLines, sectionOutcomes, tokensByPart, type TraceRun } from '../trace/read-traces.js';

const require = createRequire(import.meta.url);

/** One part of a turn's window, against the cap. */
export interface WindowPart {
  readonly name: string;
  readonly tokens: number;
}

/** What the chart and the run list show of one turn; small, so thousands load at once. */
export interface ViewerTurn {
  readonly contextId: string;
  /** The folder of the run's context folder (a replay's policy), '' at the top. */
  readonly group: string;
  readonly turn: number;
  readonly recoveryAttempt: number | null;
  readonly path: string;
  readonly tokens: ReturnType<typeof tokensByPart>;
  /**
   * The window by part: tools, the system prompt not attributed to a
   * contributor, each contributor's admitted content, call-local data not
   * attributed, history, and what is free under the cap.
   */
  readonly parts: readonly WindowPart[] | null;
  /** The provider's reported input tokens, when the trace carries them. */
  readonly reportedInputTokens: number | null;
  /** Null when the turn did not compact (a pass that changed nothing does not count). */
  readonly compaction: { readonly summary: string; readonly why: string | null; readonly receipts: number } | null;
}

/** What the page shows when a turn is opened; loaded one turn at a time. */
export interface ViewerTurnDetail {
  readonly sections: ReturnType<typeof sectionOutcomes>;
  readonly diagnostics: ContextTraceV5['diagnostics'];
  readonly compaction: ContextTraceV5['compaction'];
  readonly receipts: readonly string[];
  /** The receipts of the stored outputs that left the window at this turn (listed in `<earlier_outputs>`), one line each. */
  readonly windowReceipts: readonly string[];
  readonly diff: ReturnType<typeof diffTurns> | null;
  readonly input: ContextTraceV5['llmInput'];
}

/** The window of a turn by part, summing to its cap (free is what is left, never negative). */
export function windowParts(trace: ContextTraceV5): WindowPart[] | null {
  const tokens = tokensByPart(trace);
  if (!tokens) return null;
  const contributors = Object.entries(trace.budget?.contributorTokens ?? {}).filter(([, used]) => used > 0);
  const attributed = contributors.reduce((sum, [, used]) => sum + used, 0);
  // Contributors' content lies in the system prompt and the call-local data; what is left of both is unattributed.
  const unattributedSystem = Math.max(0, tokens.system - attributed);
  const unattributedData = Math.max(0, tokens.data - Math.max(0, attributed - tokens.system));
  return [
    { name: 'system', tokens: unattributedSystem },
    { name: 'tools', tokens: tokens.tools },
    ...contributors.map(([id, used]) => ({ name: `contributor ${id}`, tokens: used })),
    { name: 'data', tokens: unattributedData },
    { name: 'history', tokens: tokens.history },
    { name: 'free', tokens: Math.max(0, tokens.window - tokens.total) },
  ];
}

export function viewerTurns(runs: readonly TraceRun[]): ViewerTurn[] {
  return runs.flatMap((run) =>
    run.turns.map(({ trace }): ViewerTurn => {
      const summary = compactionSummary(trace);
      return {
        contextId: run.contextId,
        group: run.group ?? '',
        turn: trace.turn,
        recoveryAttempt: trace.recoveryAttempt,
        path: trace.selectedPath,
        tokens: tokensByPart(trace),
        parts: windowParts(trace),
        reportedInputTokens: reportedInput(trace),
        compaction: summary === null ? null : { summary, why: compactionWhy(trace), receipts: trace.compaction.receipts?.length ?? trace.compaction.compactedOutputRefs.length },
      };
    }),
  );
}

/** The detail of every turn, in the order of `viewerTurns`. */
export function viewerDetails(runs: readonly TraceRun[]): ViewerTurnDetail[] {
  return runs.flatMap((run) => run.turns.map((_, index) => viewerDetail(run, index)));
}

/** The detail of a run's turn at `index`. */
export function viewerDetail(run: TraceRun, index: number): ViewerTurnDetail {
  const { trace } = run.turns[index]!;
  return {
    sections: sectionOutcomes(trace),
    diagnostics: trace.diagnostics,
    compaction: trace.compaction,
    receipts: receiptLines(trace),
    windowReceipts: windowReceiptLines(trace, index === 0 ? undefined : run.turns[index - 1]!.trace),
    diff: index === 0 ? null : diffTurns(run.turns[index - 1]!.trace, trace),
    input: trace.llmInput,
  };
}

/** The detail of the turn at `position` in the order of `viewerTurns`, or undefined past the end. */
export function viewerDetailAt(runs: readonly TraceRun[], position: number): ViewerTurnDetail | undefined {
  let left = position;
  for (const run of runs) {
    if (left < run.turns.length) return viewerDetail(run, left);
    left -= run.turns.length;
  }
  return undefined;
}

/** The input tokens the provider reported for the turn's call, when the run recorded its model call. */
function reportedInput(trace: ContextTraceV5): number | null {
  return trace.modelCall?.usage?.inputTokens ?? null;
}

/** JSON that is safe inside a `<script>` element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

export interface RenderViewerOptions {
  /** Set by `trace serve`: the page polls this URL for new turns. */
  readonly followUrl?: string;
  /**
   * Set by `trace serve`: turn details are fetched from `<detailUrl><position>`
   * when opened, so the page holds only the summaries. Without it every
   * turn's detail is embedded, as text parsed when the turn is opened.
   */
  readonly detailUrl?: string;
}

export async function renderViewerHtml(runs: readonly TraceRun[], options: RenderViewerOptions = {}): Promise<string> {
  const [uplotScript, uplotStyle] = await Promise.all([
    readFile(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    readFile(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  ]);
  const details = options.detailUrl === undefined ? viewerDetails(runs).map((detail) => JSON.stringify(detail)) : null;
  const data = { turns: viewerTurns(runs), details, detailUrl: options.detailUrl ?? null, followUrl: options.followUrl ?? null };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'">
<title>Strata traces</title>
<style>${uplotStyle}</style>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header><h1>Strata traces</h1><p id="summary"></p></header>
<nav id="runs-panel"><label>Filter <input id="filter" type="search" placeholder="file, record or policy"></label> <label>Run <select id="run"></select></label> <label><input id="show-cap" type="checkbox"> chart up to the cap</label></nav>
<section id="chart"></section>
<p class="legend">Stacked bars: input tokens by part as Strata counted them; dashed line: the cap; dots: the provider's reported input tokens where recorded. Click a bar, or use the arrow keys, to open a turn.</p>
<ol id="timeline"></ol>
<section id="detail"><p>Click a turn.</p></section>
<script>${uplotScript.replace(/<\/script/gi, '<\\/script')}</script>
<script type="application/json" id="strata-data">${scriptJson(data)}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

const PAGE_STYLE = `
body { font: 14px system-ui, sans-serif; margin: 1.5rem; color: #222; }
h1 { font-size: 1.3rem; margin: 0; }
#runs-panel { margin: 0.5rem 0; }
#runs-panel select { max-width: 40rem; }
#timeline { display: flex; flex-wrap: wrap; gap: 2px; list-style: none; padding: 0; max-height: 8rem; overflow: auto; }
#timeline li button { font: 12px system-ui, sans-serif; padding: 1px 5px; border: 1px solid #999; background: #f4f4f4; cursor: pointer; }
#timeline li button.compacted { border-color: #b35900; background: #fde8d4; }
#timeline li button.selected { background: #234; color: #fff; }
#detail h2 { font-size: 1.1rem; }
#detail table { border-collapse: collapse; }
#detail td, #detail th { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top; }
.breakdown .bar { display: inline-block; height: 10px; min-width: 2px; background: #4c78a8; vertical-align: middle; }
.breakdown tr.free .bar { background: #ddd; }
pre { white-space: pre-wrap; word-break: break-word; background: #f8f8f8; padding: 6px; max-height: 30rem; overflow: auto; }
.legend { color: #555; font-size: 12px; }
`;

// The page script: plain DOM, no framework; text always set through textContent.
// One run at a time on the chart; a turn's detail is parsed (or fetched) only when it is opened.
const PAGE_SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById('strata-data').textContent);
  var turns = data.turns;
  var details = data.details;
  var runs = [];
  var current = { run: null, positions: [], index: -1, plot: null, request: 0 };
  var colors = { system: '#4c78a8', tools: '#f58518', data: '#54a24b', history: '#b279a2' };
  function el(tag, text, cls) { var node = document.createElement(tag); if (text !== undefined) node.textContent = text; if (cls) node.className = cls; return node; }
  function runLabel(r) { return (r.group ? r.group + ' / ' : '') + r.contextId + ' (' + r.positions.length + ' turns' + (r.compactions ? ', ' + r.compactions + ' compactions' : '') + ')'; }
  function turnLabel(t) { return '#' + t.turn + (t.recoveryAttempt ? ' (recovery ' + t.recoveryAttempt + ')' : ''); }

  function groupRuns() {
    var byKey = new Map();
    runs = [];
    turns.forEach(function (t, position) {
      var key = t.group + '\\u0000' + t.contextId;
      var r = byKey.get(key);
      if (!r) { r = { key: key, group: t.group, contextId: t.contextId, positions: [], compactions: 0 }; byKey.set(key, r); runs.push(r); }
      r.positions.push(position);
      if (t.compaction) r.compactions += 1;
    });
    runs.sort(function (a, b) { return a.group === b.group ? (a.contextId < b.contextId ? -1 : 1) : (a.group < b.group ? -1 : 1); });
  }

  function fillRuns() {
    var select = document.getElementById('run');
    var words = document.getElementById('filter').value.toLowerCase().split(/\\s+/).filter(Boolean);
    var kept = runs.filter(function (r) { var text = (r.group + ' ' + r.contextId).toLowerCase(); return words.every(function (w) { return text.indexOf(w) >= 0; }); });
    select.textContent = '';
    var groups = new Map();
    kept.forEach(function (r) {
      var parent = groups.get(r.group);
      if (!parent) { parent = el('optgroup'); parent.label = r.group || '(top)'; groups.set(r.group, parent); select.appendChild(parent); }
      var option = el('option', runLabel(r)); option.value = r.key; parent.appendChild(option);
    });
    document.getElementById('summary').textContent = turns.length + ' turns in ' + runs.length + ' runs' + (kept.length === runs.length ? '' : ', ' + kept.length + ' shown');
    var still = current.run && kept.some(function (r) { return r.key === current.run.key; });
    if (still) select.value = current.run.key; else selectRun(kept[0] || null);
  }

  function selectRun(r) {
    current.run = r; current.index = -1;
    drawChart(); drawTimeline();
    document.getElementById('detail').textContent = '';
    if (r) show(0);
  }

  function drawChart() {
    var chart = document.getElementById('chart');
    chart.textContent = '';
    current.plot = null;
    var r = current.run;
    if (!r || typeof uPlot === 'undefined') return;
    var rows = r.positions.map(function (p) { return turns[p]; });
    var xs = rows.map(function (_, i) { return i + 1; });
    var part = function (name) { return rows.map(function (t) { return t.tokens ? t.tokens[name] : 0; }); };
    var names = ['system', 'tools', 'data', 'history'];
    var stack = [];
    names.forEach(function (name, i) { var own = part(name); stack.push(i === 0 ? own : own.map(function (v, j) { return v + stack[i - 1][j]; })); });
    var bars = uPlot.paths.bars({ size: [0.7, 40] });
    var series = [{ label: 'turn', value: function (u, v) { return v == null ? '-' : turnLabel(rows[v - 1]); } }];
    var values = [xs];
    for (var i = names.length - 1; i >= 0; i--) { series.push({ label: names[i], fill: colors[names[i]], stroke: colors[names[i]], paths: bars, points: { show: false } }); values.push(stack[i]); }
    var caps = rows.map(function (t) { return t.tokens ? t.tokens.window : null; });
    series.push({ label: 'cap', stroke: '#d62728', dash: [6, 4], points: { show: false } });
    values.push(caps);
    series.push({ label: 'provider reported', stroke: '#000', width: 0, points: { show: true, size: 6 } });
    values.push(rows.map(function (t) { return t.reportedInputTokens; }));
    var used = Math.max.apply(null, stack[names.length - 1].concat(rows.map(function (t) { return t.reportedInputTokens || 0; })).concat([1]));
    var cap = Math.max.apply(null, caps.map(function (c) { return c || 0; }).concat([1]));
    // By default the scale fits what was used, so bars stay visible under a large cap.
    var top = document.getElementById('show-cap').checked ? cap * 1.05 : used * 1.15;
    var integerTicks = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];
    current.plot = new uPlot({
      width: Math.min(1100, window.innerWidth - 40), height: 300, series: series,
      scales: { x: { time: false, range: [0.5, xs.length + 0.5] }, y: { range: [0, top] } },
      axes: [{ label: 'turn', incrs: integerTicks, values: function (u, ticks) { return ticks.map(function (v) { return Number.isInteger(v) && rows[v - 1] ? String(rows[v - 1].turn) : ''; }); } }, { label: 'input tokens', size: 70 }],
      cursor: { drag: { x: false, y: false } }
    }, values, chart);
    // The bar under the pointer, from the click itself (the cursor may not have caught up with the pointer yet).
    current.plot.over.addEventListener('click', function (event) { var idx = current.plot.posToIdx(event.offsetX); if (idx != null && idx >= 0) show(idx); });
  }

  function drawTimeline() {
    var list = document.getElementById('timeline');
    list.textContent = '';
    if (!current.run) return;
    var fragment = document.createDocumentFragment();
    current.run.positions.forEach(function (p, i) {
      var t = turns[p];
      var item = el('li', undefined, 'turn');
      var button = el('button', turnLabel(t), t.compaction ? 'compacted' : '');
      button.dataset.index = String(i);
      item.appendChild(button);
      fragment.appendChild(item);
    });
    list.appendChild(fragment);
  }
  document.getElementById('timeline').addEventListener('click', function (event) { var b = event.target.closest('button'); if (b) show(Number(b.dataset.index)); });

  function table(rows, header, cls) {
    var t = el('table', undefined, cls);
    var head = el('tr'); header.forEach(function (h) { head.appendChild(el('th', h)); }); t.appendChild(head);
    rows.forEach(function (row) { var tr = el('tr'); row.forEach(function (c) { tr.appendChild(el('td', String(c))); }); t.appendChild(tr); });
    return t;
  }

  function breakdown(t) {
    var box = el('div', undefined, 'breakdown');
    box.appendChild(el('h3', 'Window by part'));
    if (!t.parts) { box.appendChild(el('p', 'not recorded (legacy path)')); return box; }
    var cap = t.tokens.window;
    // Bars are scaled to the largest part, so a few hundred tokens stay visible in a 100,000-token window; the share of the cap is written beside.
    var largest = Math.max.apply(null, t.parts.map(function (p) { return p.name === 'free' ? 0 : p.tokens; }).concat([1]));
    var tb = el('table');
    var head = el('tr'); ['part', 'tokens', 'of the cap', ''].forEach(function (h) { head.appendChild(el('th', h)); }); tb.appendChild(head);
    t.parts.forEach(function (p) {
      var tr = el('tr', undefined, p.name === 'free' ? 'free' : 'part');
      tr.appendChild(el('td', p.name)); tr.appendChild(el('td', String(p.tokens))); tr.appendChild(el('td', (100 * p.tokens / cap).toFixed(1) + '%'));
      var cell = el('td'); var bar = el('span', undefined, 'bar'); bar.style.width = Math.round(200 * Math.min(1, p.tokens / largest)) + 'px'; cell.appendChild(bar); tr.appendChild(cell);
      tb.appendChild(tr);
    });
    box.appendChild(tb);
    box.appendChild(el('p', 'input ' + t.tokens.total + ' of the ' + cap + '-token cap' + (t.reportedInputTokens === null ? '' : '; provider reported ' + t.reportedInputTokens)));
    return box;
  }

  // Fetched details, the most recent few; a turn's neighbours are fetched once it is shown, so the arrow keys open them at once.
  var fetched = new Map();
  function loadDetail(position) {
    if (details) return Promise.resolve(JSON.parse(details[position]));
    var known = fetched.get(position);
    if (known) return known;
    var loading = fetch(data.detailUrl + position).then(function (r) { if (!r.ok) throw new Error('turn ' + position + ': ' + r.status); return r.json(); });
    loading.catch(function () { fetched.delete(position); });
    fetched.set(position, loading);
    if (fetched.size > 64) fetched.delete(fetched.keys().next().value);
    return loading;
  }
  function prefetchAround(index) {
    if (details || !current.run) return;
    [index + 1, index - 1].forEach(function (i) { if (i >= 0 && i < current.run.positions.length) loadDetail(current.run.positions[i]); });
  }

  function show(index) {
    var r = current.run;
    if (!r || index < 0 || index >= r.positions.length) return;
    performance.mark('strata-turn-open-start');
    current.index = index;
    var position = r.positions[index];
    var t = turns[position];
    var request = ++current.request;
    var buttons = document.querySelectorAll('#timeline button');
    var previous = document.querySelector('#timeline button.selected');
    if (previous) previous.classList.remove('selected');
    if (buttons[index]) { buttons[index].classList.add('selected'); buttons[index].scrollIntoView({ block: 'nearest' }); }
    loadDetail(position).then(function (d) {
      if (request !== current.request) return;
      var detail = document.getElementById('detail');
      detail.textContent = '';
      detail.dataset.position = String(position);
      detail.appendChild(el('h2', r.contextId + ' ' + turnLabel(t) + ' - ' + t.path + ' path'));
      detail.appendChild(breakdown(t));
      var compaction = el('div', undefined, 'compaction');
      compaction.appendChild(el('h3', 'Compaction'));
      if (t.compaction) {
        compaction.appendChild(el('p', t.compaction.summary));
        if (t.compaction.why) compaction.appendChild(el('p', 'Why: ' + t.compaction.why, 'why'));
        var receipts = el('div', undefined, 'receipts');
        receipts.appendChild(el('h4', 'Receipts: what left the window (' + d.receipts.length + ')'));
        if (d.receipts.length) { var list = el('ol'); d.receipts.forEach(function (line) { list.appendChild(el('li', line)); }); receipts.appendChild(list); }
        else receipts.appendChild(el('p', 'not recorded (trace written before receipts)'));
        compaction.appendChild(receipts);
      } else compaction.appendChild(el('p', 'none this turn'));
      if (d.windowReceipts.length) {
        var windowed = el('div', undefined, 'window-receipts');
        windowed.appendChild(el('h4', 'Window cut: outputs that left the window this turn (' + d.windowReceipts.length + '), listed in <earlier_outputs>'));
        var cut = el('ol'); d.windowReceipts.forEach(function (line) { cut.appendChild(el('li', line)); }); windowed.appendChild(cut);
        compaction.appendChild(windowed);
      }
      detail.appendChild(compaction);
      var sections = el('div', undefined, 'sections');
      sections.appendChild(el('h3', 'Sections'));
      sections.appendChild(table([['admitted', d.sections.admitted.join(', ') || '-'], ['truncated', d.sections.truncated.join(', ') || '-'], ['dropped', d.sections.dropped.join(', ') || '-']], ['outcome', 'sections']));
      detail.appendChild(sections);
      detail.appendChild(el('h3', 'Diagnostics'));
      detail.appendChild(d.diagnostics.length ? table(d.diagnostics.map(function (x) { return [x.code, x.severity, x.subject || '', x.message]; }), ['code', 'severity', 'subject', 'message']) : el('p', 'none'));
      detail.appendChild(el('h3', 'Diff with the previous turn'));
      if (d.diff) {
        var f = d.diff;
        detail.appendChild(table([
          ['sections added', f.sections.added.join(', ') || '-'], ['sections removed', f.sections.removed.join(', ') || '-'],
          ['messages added', f.messages.added], ['messages compacted', f.messages.compacted], ['messages removed', f.messages.removed], ['messages kept', f.messages.kept],
          ['tokens before', f.tokens.before ? f.tokens.before.total : '-'], ['tokens after', f.tokens.after ? f.tokens.after.total : '-']
        ], ['what', 'value'], 'diff'));
      } else detail.appendChild(el('p', 'first turn of its run'));
      var input = el('details', undefined, 'model-input');
      var summary = el('summary', 'Model input: ' + d.input.messages.length + ' messages, ' + d.input.tools.length + ' tools');
      input.appendChild(summary);
      // The input's text is rendered only when it is unfolded.
      input.addEventListener('toggle', function () { if (input.open && !input.querySelector('pre')) input.appendChild(el('pre', JSON.stringify(d.input, null, 2))); });
      detail.appendChild(input);
      performance.mark('strata-turn-open-end');
      performance.measure('strata-turn-open', 'strata-turn-open-start', 'strata-turn-open-end');
      prefetchAround(index);
    }).catch(function (error) {
      if (request !== current.request) return;
      var detail = document.getElementById('detail');
      detail.textContent = '';
      detail.appendChild(el('p', 'could not load the turn: ' + error.message));
    });
  }

  document.addEventListener('keydown', function (event) {
    if (event.target && (event.target.tagName === 'INPUT' || event.target.tagName === 'SELECT')) return;
    if (event.key === 'ArrowRight' || event.key === 'ArrowDown') { event.preventDefault(); show(current.index + 1); }
    else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') { event.preventDefault(); show(current.index - 1); }
    else if (event.key === 'Home') show(0);
    else if (event.key === 'End' && current.run) show(current.run.positions.length - 1);
  });
  document.getElementById('filter').addEventListener('input', fillRuns);
  document.getElementById('run').addEventListener('change', function (event) { selectRun(runs.find(function (r) { return r.key === event.target.value; }) || null); });
  document.getElementById('show-cap').addEventListener('change', function () { var index = current.index; drawChart(); current.index = index; });

  groupRuns();
  fillRuns();
  performance.mark('strata-viewer-ready');
  if (data.followUrl) {
    setInterval(function () {
      fetch(data.followUrl).then(function (r) { return r.json(); }).then(function (next) {
        if (next.turns.length === turns.length) return;
        turns = next.turns;
        if (next.details) details = next.details;
        var key = current.run && current.run.key;
        groupRuns();
        current.run = runs.find(function (r) { return r.key === key; }) || null;
        fillRuns();
        if (current.run) { drawChart(); drawTimeline(); }
        document.getElementById('summary').textContent = turns.length + ' turns (following)';
      }).catch(function () {});
    }, 1000);
  }
})();
`;
