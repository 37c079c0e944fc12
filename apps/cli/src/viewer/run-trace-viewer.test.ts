import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../run-cli.js';
import { readTraceDirectory } from '../trace/read-traces.js';
import { runTraceViewer, traceRunsOf } from './run-trace-viewer.js';

test('a service run\'s trace documents become the viewer\'s runs, and its page follows the run', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'strata-run-viewer-'));
  const quiet = { write: () => true };
  assert.equal(await runCli(['examples', '--out', 'out'], { stdout: quiet, stderr: quiet, env: {}, cwd: directory }), 0);
  const runs = await readTraceDirectory(join(directory, 'out', 'delegation'));
  // As the service's run log returns them: documents only, in any order, with something that is not a trace.
  const documents = [...runs.flatMap((run) => run.turns.map((turn) => turn.trace))].reverse();
  const rebuilt = traceRunsOf([...documents, { not: 'a trace' }]);
  assert.deepEqual(rebuilt.map((run) => [run.contextId, run.turns.map((turn) => turn.trace.turn)]), runs.map((run) => [run.contextId, run.turns.map((turn) => turn.trace.turn)]));
  const page = await runTraceViewer.page(documents, '/runs/r1/view/turns.json?key=k');
  assert.match(page, /"followUrl":"\/runs\/r1\/view\/turns\.json\?key=k"/);
  assert.match(page, /uPlot/);
  const turns = runTraceViewer.turns(documents) as { turns: unknown[] };
  assert.equal(turns.turns.length, documents.length);
});
