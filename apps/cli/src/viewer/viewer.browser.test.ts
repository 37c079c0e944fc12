import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '../run-cli.js';
import { readTraceDirectory } from '../trace/read-traces.js';

const CHROMIUM = '/usr/bin/chromium';
/** Kept after the run (git-ignored): the screenshot of the viewer. */
const ARTIFACTS = resolve('.tmp', 'test-artifacts');

const absent = !existsSync(CHROMIUM);
if (absent) console.log(`# notice: ${CHROMIUM} is absent; skipping the viewer browser test (apt-get install chromium)`);

test('the viewer of the examples in Chromium: every turn on the timeline, a click shows sections and the model input', { skip: absent ? 'chromium is absent' : false }, async () => {
  const { chromium } = await import('playwright-core');
  const directory = await mkdtemp(join(tmpdir(), 'strata-viewer-'));
  const quiet = { write: () => true };
  assert.equal(await runCli(['examples', '--out', 'out'], { stdout: quiet, stderr: quiet, env: {}, cwd: directory }), 0);
  const runs = await readTraceDirectory(join(directory, 'out'));
  const turns = runs.reduce((sum, run) => sum + run.turns.length, 0);
  // The timeline lists runs by context id, then turns: the first entry whose trace admitted a section, and that section.
  const position = runs.flatMap((run) => run.turns).findIndex((turn) => (turn.trace.admitted?.sections.length ?? 0) > 0);
  assert.ok(position >= 0, 'some turn of the examples admits a section');
  const admitted = runs.flatMap((run) => run.turns)[position]!.trace.admitted!.sections[0]!.id;
  const userData = await mkdtemp(join(tmpdir(), 'strata-chromium-'));
  const browser = await chromium.launchPersistentContext(userData, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(pathToFileURL(join(directory, 'out', 'report.html')).href);
    assert.equal(await page.locator('#timeline li.turn').count(), turns);
    assert.equal(await page.locator('#chart canvas').count() > 0, true, 'uPlot drew the chart');
    await page.locator('#timeline li.turn button').nth(position).click();
    assert.ok((await page.locator('#detail .sections').textContent() ?? '').includes(admitted), `the sections of entry ${position + 1} name ${admitted}`);
    await page.locator('#detail details.model-input summary').click();
    assert.match(await page.locator('#detail details.model-input pre').textContent() ?? '', /"messages"/);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'viewer.png'), fullPage: true });
    assert.deepEqual(errors, []);
    assert.deepEqual(requests.filter((url) => !url.startsWith('file:')), [], 'no network');
  } finally {
    await browser.close();
    await rm(userData, { recursive: true, force: true });
  }
});
