// The trace viewer: one self-contained HTML file (no network, works from
// file://). uPlot, a well-kept charting library, is inlined from the
// installed package when the page is rendered; everything else is the data
// and a small script that fills the panels.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { ContextTraceV5 } from '@strata/context';
import { compactionSummary, diffTurns, sectionOutcomes, tokensByPart, type TraceRun } from '../trace/read-traces.js';

const require = createRequire(import.meta.url);

/** What the page shows of one turn; computed here so the page does no arithmetic of its own. */
export interface ViewerTurn {
  readonly contextId: string;
  readonly turn: number;
  readonly recoveryAttempt: number | null;
  readonly path: string;
  readonly tokens: ReturnType<typeof tokensByPart>;
  /** The provider's reported input tokens, when the trace carries them. */
  readonly reportedInputTokens: number | null;
  readonly sections: ReturnType<typeof sectionOutcomes>;
  readonly diagnostics: ContextTraceV5['diagnostics'];
  readonly compaction: { readonly summary: string | null; readonly trace: ContextTraceV5['compaction'] };
  readonly diff: ReturnType<typeof diffTurns> | null;
  readonly input: ContextTraceV5['llmInput'];
}

export function viewerTurns(runs: readonly TraceRun[]): ViewerTurn[] {
  return runs.flatMap((run) =>
    run.turns.map(({ trace }, index): ViewerTurn => ({
      contextId: run.contextId,
      turn: trace.turn,
      recoveryAttempt: trace.recoveryAttempt,
      path: trace.selectedPath,
      tokens: tokensByPart(trace),
      reportedInputTokens: reportedInput(trace),
      sections: sectionOutcomes(trace),
      diagnostics: trace.diagnostics,
      compaction: { summary: compactionSummary(trace), trace: trace.compaction },
      diff: index === 0 ? null : diffTurns(run.turns[index - 1]!.trace, trace),
      input: trace.llmInput,
    })),
  );
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
}

export async function renderViewerHtml(runs: readonly TraceRun[], options: RenderViewerOptions = {}): Promise<string> {
  const [uplotScript, uplotStyle] = await Promise.all([
    readFile(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    readFile(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  ]);
  const data = { turns: viewerTurns(runs), followUrl: options.followUrl ?? null };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'">
<title>Strata traces</title>
<style>${uplotStyle}</style>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header><h1>Strata traces</h1><p id="summary"></p></header>
<section id="chart"></section>
<p class="legend">Stacked bars: input tokens by part (system, tools, data, history) as Strata counted them; line: the window; dots: the provider's reported input tokens where recorded.</p>
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
#timeline { display: flex; flex-wrap: wrap; gap: 4px; list-style: none; padding: 0; }
#timeline li button { font: inherit; padding: 2px 8px; border: 1px solid #999; background: #f4f4f4; cursor: pointer; }
#timeline li button.compacted { border-color: #b35900; }
#timeline li button.selected { background: #234; color: #fff; }
#detail h2 { font-size: 1.1rem; }
#detail table { border-collapse: collapse; }
#detail td, #detail th { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top; }
pre { white-space: pre-wrap; word-break: break-word; background: #f8f8f8; padding: 6px; max-height: 30rem; overflow: auto; }
.legend { color: #555; font-size: 12px; }
`;

// The page script: plain DOM, no framework; text always set through textContent.
const PAGE_SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById('strata-data').textContent);
  var turns = data.turns;
  function el(tag, text, cls) { var node = document.createElement(tag); if (text !== undefined) node.textContent = text; if (cls) node.className = cls; return node; }
  function label(t) { return t.contextId + ' #' + t.turn + (t.recoveryAttempt ? ' (recovery ' + t.recoveryAttempt + ')' : ''); }
  document.getElementById('summary').textContent = turns.length + ' turns in ' + new Set(turns.map(function (t) { return t.contextId; })).size + ' runs';

  function drawChart() {
    var chart = document.getElementById('chart');
    chart.textContent = '';
    if (turns.length === 0 || typeof uPlot === 'undefined') return;
    var xs = turns.map(function (_, i) { return i + 1; });
    var part = function (name) { return turns.map(function (t) { return t.tokens ? t.tokens[name] : 0; }); };
    var system = part('system'), tools = part('tools'), dataPart = part('data'), history = part('history');
    var stack = [system];
    [tools, dataPart, history].forEach(function (series) { var below = stack[stack.length - 1]; stack.push(series.map(function (v, i) { return v + below[i]; })); });
    var bars = uPlot.paths.bars({ size: [0.6, 60] });
    var colors = ['#4c78a8', '#f58518', '#54a24b', '#b279a2'];
    var names = ['system', 'tools', 'data', 'history'];
    var series = [{ label: 'turn' }];
    var values = [xs];
    for (var i = names.length - 1; i >= 0; i--) { series.push({ label: names[i] + ' (stacked)', fill: colors[i], stroke: colors[i], paths: bars, points: { show: false } }); values.push(stack[i]); }
    series.push({ label: 'window', stroke: '#d62728', dash: [6, 4], points: { show: false } });
    values.push(turns.map(function (t) { return t.tokens ? t.tokens.window : null; }));
    series.push({ label: 'provider reported', stroke: '#000', width: 0, points: { show: true, size: 6 } });
    values.push(turns.map(function (t) { return t.reportedInputTokens; }));
    new uPlot({ width: Math.min(1100, window.innerWidth - 40), height: 300, series: series, scales: { x: { time: false } }, axes: [{ label: 'turn' }, { label: 'input tokens' }] }, values, chart);
  }

  function table(rows, header) {
    var t = el('table');
    var head = el('tr'); header.forEach(function (h) { head.appendChild(el('th', h)); }); t.appendChild(head);
    rows.forEach(function (row) { var tr = el('tr'); row.forEach(function (c) { tr.appendChild(el('td', String(c))); }); t.appendChild(tr); });
    return t;
  }

  function show(index) {
    var t = turns[index];
    document.querySelectorAll('#timeline button').forEach(function (b, i) { b.classList.toggle('selected', i === index); });
    var detail = document.getElementById('detail');
    detail.textContent = '';
    detail.appendChild(el('h2', label(t) + ' - ' + t.path + ' path'));
    if (t.tokens) detail.appendChild(el('p', 'input ' + t.tokens.total + ' of ' + t.tokens.window + ' tokens: system ' + t.tokens.system + ', tools ' + t.tokens.tools + ', data ' + t.tokens.data + ', history ' + t.tokens.history + (t.reportedInputTokens === null ? '' : '; provider reported ' + t.reportedInputTokens)));
    var sections = el('div', undefined, 'sections');
    sections.appendChild(el('h3', 'Sections'));
    sections.appendChild(table([['admitted', t.sections.admitted.join(', ') || '-'], ['truncated', t.sections.truncated.join(', ') || '-'], ['dropped', t.sections.dropped.join(', ') || '-']], ['outcome', 'sections']));
    detail.appendChild(sections);
    detail.appendChild(el('h3', 'Diagnostics'));
    detail.appendChild(t.diagnostics.length ? table(t.diagnostics.map(function (d) { return [d.code, d.severity, d.subject || '', d.message]; }), ['code', 'severity', 'subject', 'message']) : el('p', 'none'));
    detail.appendChild(el('h3', 'Compaction'));
    if (t.compaction.summary) {
      detail.appendChild(el('p', t.compaction.summary));
      var refs = t.compaction.trace.compactedOutputRefs.map(function (r) { return [r.id, r.lines === undefined ? '' : r.lines, r.chars === undefined ? '' : r.chars]; });
      if (refs.length) detail.appendChild(table(refs, ['reference', 'lines', 'chars']));
    } else detail.appendChild(el('p', 'none this turn'));
    detail.appendChild(el('h3', 'Diff with the previous turn'));
    if (t.diff) {
      var d = t.diff;
      detail.appendChild(table([
        ['sections added', d.sections.added.join(', ') || '-'], ['sections removed', d.sections.removed.join(', ') || '-'],
        ['messages added', d.messages.added], ['messages compacted', d.messages.compacted], ['messages removed', d.messages.removed], ['messages kept', d.messages.kept],
        ['tokens before', d.tokens.before ? d.tokens.before.total : '-'], ['tokens after', d.tokens.after ? d.tokens.after.total : '-']
      ], ['what', 'value']));
    } else detail.appendChild(el('p', 'first turn of its run'));
    var input = el('details', undefined, 'model-input');
    input.appendChild(el('summary', 'Model input: ' + t.input.messages.length + ' messages, ' + t.input.tools.length + ' tools'));
    input.appendChild(el('pre', JSON.stringify(t.input, null, 2)));
    detail.appendChild(input);
  }

  function drawTimeline() {
    var list = document.getElementById('timeline');
    list.textContent = '';
    turns.forEach(function (t, i) {
      var item = el('li', undefined, 'turn');
      var button = el('button', label(t), t.compaction.summary ? 'compacted' : '');
      button.addEventListener('click', function () { show(i); });
      item.appendChild(button);
      list.appendChild(item);
    });
  }

  drawTimeline();
  drawChart();
  if (data.followUrl) {
    setInterval(function () {
      fetch(data.followUrl).then(function (r) { return r.json(); }).then(function (next) {
        if (next.turns.length !== turns.length) { turns = next.turns; drawTimeline(); drawChart(); document.getElementById('summary').textContent = turns.length + ' turns (following)'; }
      }).catch(function () {});
    }, 1000);
  }
})();
`;
