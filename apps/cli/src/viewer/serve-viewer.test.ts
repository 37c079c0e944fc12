import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../run-cli.js';
import { serveViewer } from './serve-viewer.js';

test('trace serve: the page on 127.0.0.1, and its turn list follows traces as they are written', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'strata-serve-'));
  const quiet = { write: () => true };
  assert.equal(await runCli(['examples', '--out', 'out'], { stdout: quiet, stderr: quiet, env: {}, cwd: directory }), 0);
  const live = join(directory, 'live');
  const server = await serveViewer({ directory: live, port: 0 });
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const turns = async () => ((await (await fetch(new URL('turns.json', server.url))).json()) as { turns: unknown[] }).turns.length;
    assert.equal(await turns(), 0, 'no trace yet: an empty page, not an error');
    const page = await (await fetch(server.url)).text();
    assert.match(page, /"followUrl":"\/turns\.json"/);
    // A run writes its traces: the next poll sees them.
    const [example] = (await readdir(join(directory, 'out'), { withFileTypes: true })).filter((entry) => entry.isDirectory());
    await cp(join(directory, 'out', example!.name), join(live, example!.name), { recursive: true });
    const written = (await readdir(join(live, example!.name), { recursive: true })).filter((name) => /(^|\/)turn-\d+\.json$/.test(name)).length;
    assert.equal(await turns(), written);
    assert.equal((await fetch(new URL('other', server.url))).status, 404);
  } finally {
    await server.close();
  }
});
