import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAgentRun } from '../create-agent-run.js';
import { acceptanceRun, answer, call } from '../testing/acceptance-fixtures.js';
import { signalled } from '../testing/run-fixtures.js';
import { createDelegateTool, type SubagentRequest, type SubagentResult } from './delegate-tool.js';

test('runSubagent runs the child elsewhere: it gets the child context id, the sub-agent scope, the task and the parent signal; the parent deadline is paused while it waits', async () => {
  const requests: SubagentRequest[] = [];
  const finish = signalled<SubagentResult>();
  const asked = signalled();
  const delegate = createDelegateTool({
    profile: { id: 'helper', maxTurns: 3 },
    runSubagent: (request) => {
      requests.push(request);
      asked.resolve();
      return finish.promise;
    },
  });
  const parent = acceptanceRun({ script: [call('d1', 'delegate', { task: 'Count the pages.' }), answer('parent finished')], tools: [delegate] });
  const running = createAgentRun({ id: 'lead', runTimeoutMs: 1_000 }, parent.bindings, { contextId: 'durable', prompt: 'Delegate.' }).execute();
  await asked.promise;
  assert.equal(parent.clock.fire(1_000), 0, 'no run deadline runs while the child works');
  finish.resolve({ stopReason: 'completed', text: 'twelve pages', turns: 2 });
  const result = await running;
  assert.equal(result.stopReason, 'completed');
  const [request] = requests;
  assert.equal(requests.length, 1);
  assert.equal(request!.contextId, 'durable/subagent/d1');
  assert.deepEqual(request!.profile, { id: 'helper', maxTurns: 3, scope: 'subagent' });
  assert.equal(request!.task, 'Count the pages.');
  assert.equal(request!.signal.aborted, false);
  const delegated = result.finalMessages.find((message) => message.role === 'tool' && message.toolCallId === 'd1');
  assert.ok(delegated?.role === 'tool' && delegated.content === 'twelve pages' && delegated.isError !== true);
});

test('a sub-agent that stops without finishing is an error result the parent model reads', async () => {
  const delegate = createDelegateTool({ profile: { id: 'helper' }, runSubagent: async () => ({ stopReason: 'timeout', text: '', turns: 4 }) });
  const parent = acceptanceRun({ script: [call('d1', 'delegate', { task: 'Try.' }), answer('gave up')], tools: [delegate] });
  const result = await createAgentRun({ id: 'lead' }, parent.bindings, { contextId: 'failing', prompt: 'Delegate.' }).execute();
  const delegated = result.finalMessages.find((message) => message.role === 'tool' && message.toolCallId === 'd1');
  assert.ok(delegated?.role === 'tool' && delegated.isError === true);
  assert.match(String(delegated.content), /SUBAGENT_FAILED[\s\S]*timeout/);
});
