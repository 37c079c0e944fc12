import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ContextTraceV5 } from '@strata/context';
import { runCli } from '../run-cli.js';
import { readTraceDirectory, type TraceRun } from '../trace/read-traces.js';
import { serveViewer } from './serve-viewer.js';

const CHROMIUM = '/usr/bin/chromium';
/** Kept after the run (git-ignored): the screenshots of the viewer. */
const ARTIFACTS = resolve('.tmp', 'test-artifacts');
const SHARED = process.env.STRATA_SHARED_DIR;

const absent = !existsSync(CHROMIUM);
if (absent) console.log(`# notice: ${CHROMIUM} is absent; skipping the viewer browser tests (apt-get install chromium)`);
const noShared = SHARED === undefined || !existsSync(join(SHARED, 'data', 'tau-bench', 'gpt-4o-airline.json'));
if (noShared) console.log('# notice: STRATA_SHARED_DIR with data/tau-bench is absent; skipping the 2,000-turn viewer test');

const quiet = { write: () => true };

async function withBrowser<T>(run: (browser: import('playwright-core').BrowserContext) => Promise<T>): Promise<T> {
  const { chromium } = await import('playwright-core');
  const userData = await mkdtemp(join(tmpdir(), 'strata-chromium-'));
  const browser = await chromium.launchPersistentContext(userData, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    return await run(browser);
  } finally {
    await browser.close();
    await rm(userData, { recursive: true, force: true });
  }
}

/** The runs in the order the page lists them: by folder, then context id. */
function pageOrder(runs: readonly TraceRun[]): TraceRun[] {
  const key = (run: TraceRun) => [run.group ?? '', run.contextId] as const;
  return [...runs].sort((a, b) => (key(a)[0] === key(b)[0] ? (key(a)[1] < key(b)[1] ? -1 : 1) : key(a)[0] < key(b)[0] ? -1 : 1));
}

test('the viewer of the examples in Chromium: the first run on the timeline, a click shows sections, the window by part and the model input', { skip: absent ? 'chromium is absent' : false }, async () => {
  const directory = await mkdtemp(join(tmpdir(), 'strata-viewer-'));
  assert.equal(await runCli(['examples', '--out', 'out'], { stdout: quiet, stderr: quiet, env: {}, cwd: directory }), 0);
  // A run with a turn that admits a section, chosen through the filter.
  const first = pageOrder(await readTraceDirectory(join(directory, 'out'))).find((run) => run.turns.some((turn) => (turn.trace.admitted?.sections.length ?? 0) > 0));
  assert.ok(first, 'some run of the examples admits a section');
  const position = first.turns.findIndex((turn) => (turn.trace.admitted?.sections.length ?? 0) > 0);
  const admitted = first.turns[position]!.trace.admitted!.sections[0]!.id;
  await withBrowser(async (browser) => {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(pathToFileURL(join(directory, 'out', 'report.html')).href);
    await page.locator('#filter').fill(first.contextId);
    assert.equal(await page.locator('#timeline li.turn').count(), first.turns.length);
    assert.equal(await page.locator('#chart canvas').count() > 0, true, 'uPlot drew the chart');
    await page.locator('#timeline li.turn button').nth(position).click();
    assert.ok((await page.locator('#detail .sections').textContent() ?? '').includes(admitted), `the sections of turn ${position + 1} name ${admitted}`);
    assert.ok(await page.locator('#detail .breakdown tr.part').count() >= 3, 'the window by part');
    await page.locator('#detail details.model-input summary').click();
    assert.match(await page.locator('#detail details.model-input pre').textContent() ?? '', /"messages"/);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'viewer.png'), fullPage: true });
    assert.deepEqual(errors, []);
    assert.deepEqual(requests.filter((url) => !url.startsWith('file:')), [], 'no network');
  });
});

/**
 * A replay of the shared tau-bench airline trajectories under the `pressure`
 * policy (over 2,000 real turns in 200 runs), and one run of 2,000 turns
 * repeating the real steps of the swe-agent replay, which compacts.
 */
async function largeReplay(directory: string): Promise<{ traces: string; long: TraceRun }> {
  const traces = join(directory, 'traces');
  const replay = (args: string[]) => runCli(['replay', ...args, '--policy', 'pressure', '--json'], { stdout: quiet, stderr: quiet, env: {}, cwd: directory });
  assert.equal(await replay([join(SHARED!, 'data', 'tau-bench', 'gpt-4o-airline.json'), '--window', '4000', '--trace-dir', 'traces']), 0);
  assert.equal(await replay([join(SHARED!, 'data', 'swe-agent', 'marshmallow-1867.function_calling_replace_from_source.traj'), '--window', '2000', '--trace-dir', 'steps']), 0);
  const [steps] = await readTraceDirectory(join(directory, 'steps'));
  assert.ok(steps!.turns.some((turn) => (turn.trace.compaction.receipts?.length ?? 0) > 0), 'the swe-agent replay compacts');
  const folder = join(traces, 'repeated', 'long-run');
  await mkdir(folder, { recursive: true });
  for (let turn = 1; turn <= 2_000; turn += 1) {
    const step = steps!.turns[(turn - 1) % steps!.turns.length]!.trace;
    const trace: ContextTraceV5 = { ...step, contextId: 'long-run', turn };
    await writeFile(join(folder, `turn-${String(turn).padStart(4, '0')}.json`), JSON.stringify(trace));
  }
  const long = (await readTraceDirectory(folder))[0]!;
  return { traces, long };
}

test('the viewer of a replay of more than 2,000 turns: loads under 3 s, a turn opens under 200 ms from the chart and the keys, with its window by part and receipts', { skip: absent ? 'chromium is absent' : noShared ? 'shared data absent' : false, timeout: 300_000 }, async () => {
  const directory = await mkdtemp(join(tmpdir(), 'strata-viewer-large-'));
  const { traces, long } = await largeReplay(directory);
  const runs = await readTraceDirectory(traces);
  const total = runs.reduce((sum, run) => sum + run.turns.length, 0);
  assert.ok(total >= 4_000, `${total} turns`);
  // Replay folders are named after the file and the record: no percent escapes.
  const folders = await readdir(join(traces, 'pressure'));
  assert.ok(folders.length >= 100 && folders.every((name) => /^gpt-4o-airline\.\d+\.pressure$/.test(name)), folders.slice(0, 3).join(', '));
  // A compacted turn in the middle of the chart, away from its edges.
  const compacted = long.turns.findIndex((turn, index) => index >= 1_000 && (turn.trace.compaction.receipts?.length ?? 0) > 0);
  const receipts = long.turns[compacted]!.trace.compaction.receipts!.length;
  const server = await serveViewer({ directory: traces, port: 0 });
  try {
    await withBrowser(async (browser) => {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
      await page.goto(server.url);
      await page.waitForFunction(() => performance.getEntriesByName('strata-viewer-ready').length > 0);
      // From the start of navigation to a drawn chart and run list, on the page's clock.
      const { ready, response } = (await page.evaluate(`({ ready: performance.getEntriesByName('strata-viewer-ready')[0].startTime, response: performance.getEntriesByType('navigation')[0].responseEnd })`)) as { ready: number; response: number };
      console.log(`# viewer of ${total} turns in ${runs.length} runs ready in ${ready.toFixed(0)} ms (page received at ${response.toFixed(0)} ms)`);
      assert.ok(ready < 3_000, `ready in ${ready} ms`);
      const labels = await page.locator('#run option').allTextContents();
      assert.equal(labels.length, runs.length);
      assert.ok(labels.every((text) => !text.includes('%') && !text.includes('../')), 'readable labels');
      // The filter narrows the runs; then the long run is chosen.
      await page.locator('#filter').fill('long-run');
      assert.equal(await page.locator('#run option').count(), 1);
      assert.equal(await page.locator('#timeline li.turn').count(), 2_000);

      const opened = async () => {
        await page.waitForFunction(() => performance.getEntriesByName('strata-turn-open').length > 0);
        const measures = await page.evaluate(() => { const all = performance.getEntriesByName('strata-turn-open'); performance.clearMeasures('strata-turn-open'); return all.map((entry) => entry.duration); });
        return measures.at(-1)!;
      };
      await opened();
      // A click on the chart's bar of the compacted turn opens it.
      const box = (await page.locator('#chart .u-over').boundingBox())!;
      await page.mouse.click(box.x + (box.width * (compacted + 0.5)) / 2_000, box.y + box.height - 2);
      const chartOpen = await opened();
      const position = Number(await page.locator('#detail').getAttribute('data-position'));
      const shownTurn = Number((await page.locator('#timeline button.selected').textContent())!.slice(1));
      assert.ok(Math.abs(shownTurn - (compacted + 1)) <= 1, `the click opened turn ${shownTurn}, near ${compacted + 1}`);
      // The keys go to the compacted turn exactly.
      for (let step = shownTurn; step < compacted + 1; step += 1) await page.keyboard.press('ArrowRight');
      for (let step = shownTurn; step > compacted + 1; step -= 1) await page.keyboard.press('ArrowLeft');
      if (shownTurn !== compacted + 1) await opened();
      await page.waitForFunction(`document.querySelector('#timeline button.selected')?.textContent === '#${compacted + 1}' && document.querySelector('#detail')?.dataset.position === '${position - shownTurn + compacted + 1}'`);
      await page.waitForSelector('#detail .receipts li');
      assert.equal(await page.locator('#detail .receipts li').count(), receipts);
      assert.match(await page.locator('#detail .receipts').textContent() ?? '', /read_tool_output\(\{"ref":"out_/);
      assert.match(await page.locator('#detail .compaction .why').textContent() ?? '', /token-pressure at \d+ tokens, [\d.]+% of the 2000-token cap \(threshold \d+\)/);
      assert.ok(await page.locator('#detail .breakdown tr.part').count() >= 3);
      assert.equal(await page.locator('#detail .breakdown tr.free').count(), 1);
      // Keyboard steps, each timed in the page.
      const keyOpens: number[] = [];
      for (let step = 0; step < 5; step += 1) {
        await page.keyboard.press('ArrowRight');
        keyOpens.push(await opened());
      }
      console.log(`# turn opened from the chart in ${chartOpen.toFixed(1)} ms; by the keys in ${keyOpens.map((ms) => ms.toFixed(1)).join(', ')} ms`);
      for (const ms of [chartOpen, ...keyOpens]) assert.ok(ms < 200, `a turn opened in ${ms} ms`);
      // Integer turn ticks only.
      const ticks = (await page.locator('#chart .u-axis').first().textContent()) ?? '';
      assert.doesNotMatch(ticks, /\d\.\d/);
      await mkdir(ARTIFACTS, { recursive: true });
      const shot = join(ARTIFACTS, 'viewer-2000-turns.png');
      await page.screenshot({ path: shot, fullPage: true });
      console.log(`# screenshot: ${shot}`);
      assert.deepEqual(errors, []);
    });
  } finally {
    await server.close();
    await rm(directory, { recursive: true, force: true });
  }
});
