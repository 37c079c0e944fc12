import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SessionStore } from '@strata/context';
import { loadProviderRules, dropSchema, postgresTestTarget } from '@strata/testing';
import { createPostgresStores, openSqliteStores, type Stores } from '@strata/store';
import { assertProviderSafe, assertStepsWhole } from './testing/run-fixtures.js';
import type { ChildReport, ChildRequest, StoreTarget } from './testing/session-child.js';

const rules = await loadProviderRules();
const CHILD = fileURLToPath(new URL('./testing/session-child.js', import.meta.url));
const STEPS = 8;

/** One forked process on the session, spoken to over its IPC channel. */
function startChild(): { child: ChildProcess; next: () => Promise<ChildReport>; send: (request: ChildRequest) => void } {
  const child = fork(CHILD, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const queue: ChildReport[] = [];
  const waiting: Array<(report: ChildReport) => void> = [];
  child.on('message', (report: ChildReport) => {
    const take = waiting.shift();
    if (take) take(report);
    else queue.push(report);
  });
  child.on('exit', (code) => {
    for (const take of waiting.splice(0)) take({ type: 'failed', error: `child exited with ${code}` });
  });
  const next = (): Promise<ChildReport> => {
    const report = queue.shift();
    return report ? Promise.resolve(report) : new Promise((resolve) => waiting.push(resolve));
  };
  return { child, next, send: (request) => void child.send(request) };
}

function expect<T extends ChildReport['type']>(report: ChildReport, type: T): Extract<ChildReport, { type: T }> {
  assert.equal(report.type, type, JSON.stringify(report).slice(0, 2_000));
  return report as Extract<ChildReport, { type: T }>;
}

/**
 * Two processes on one session: an agent that compacts, and a writer that
 * appends whenever the agent is inside a tool call or a summary (the two
 * moments the issue found messages lost or split).
 */
async function twoWriters(target: StoreTarget, open: () => Stores): Promise<void> {
  const contextId = 'shared-session';
  const writer = startChild();
  const agent = startChild();
  try {
    writer.send({ type: 'start-writer', target, contextId });
    expect(await writer.next(), 'ready');
    agent.send({ type: 'start-agent', target, contextId, steps: STEPS });
    const foreign: string[] = [];
    const pauses = { tool: 0, summarizer: 0 };
    let finished: Extract<ChildReport, { type: 'finished' }> | undefined;
    while (!finished) {
      const report = await agent.next();
      if (report.type === 'finished') {
        finished = report;
        break;
      }
      const paused = expect(report, 'paused');
      pauses[paused.at] += 1;
      const text = `foreign-${foreign.length + 1}: a note from the other process`;
      writer.send({ type: 'append', text });
      expect(await writer.next(), 'appended');
      foreign.push(text);
      agent.send({ type: 'continue' });
    }
    assert.equal(finished.stopReason, 'completed', finished.error);
    assert.equal(pauses.tool, STEPS);
    assert.ok(pauses.summarizer >= 1, 'the agent compacted while the other process wrote');
    assert.ok(finished.diagnostics.includes('AGENT_SESSION_CONFLICT'), 'a compaction met the other writer and was made again');

    const stores = open();
    try {
      const sessions: SessionStore = stores.sessions;
      const newest = (await sessions.load(contextId))!;
      const text = JSON.stringify(newest.messages);
      const lost = foreign.map((message) => message.split(':')[0]!).filter((marker) => !new RegExp(`${marker}\\b`).test(text));
      assert.deepEqual(lost, [], 'no foreign message is lost (each is verbatim or named by a checkpoint)');
      assert.deepEqual(newest.messages, finished.finalMessages, 'the stored session is the last writer\'s finalMessages');
      for (const version of await sessions.versions(contextId)) {
        assertStepsWhole((await sessions.loadVersion(contextId, version))!.messages, `version ${version}`);
      }
    } finally {
      await stores.close();
    }
    assertProviderSafe(rules, finished.traces);
  } finally {
    writer.send({ type: 'close' });
    agent.child.disconnect();
    await Promise.all([writer, agent].map(({ child }) => (child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined)));
  }
}

test('two processes on one SQLite session, one an agent that compacts: nothing lost, no step split', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'strata-two-writers-'));
  try {
    const path = join(directory, 'strata.db');
    await twoWriters({ kind: 'sqlite', path }, () => openSqliteStores({ path }));
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('two processes on one PostgreSQL session, one an agent that compacts: nothing lost, no step split', async (context) => {
  const target = postgresTestTarget();
  if (target.skip !== undefined) {
    console.log(`# notice: skipping the PostgreSQL two-process test: ${target.skip}`);
    context.skip(target.skip);
    return;
  }
  try {
    await twoWriters({ kind: 'postgres', url: target.url, schema: target.schema }, () => createPostgresStores({ connectionString: target.url, schema: target.schema }));
  } finally {
    await dropSchema(target.url, target.schema);
  }
});
