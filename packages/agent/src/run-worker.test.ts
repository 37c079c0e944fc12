import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadBlackboardTool, createRunWorkerTool, MemoryBlackboardStore, type BlackboardStore } from '@strata/blackboard';
import { WORKED_NARRATOR_MESSAGES, WORKED_NARRATOR_TASK, WORKED_SHARED_CONTEXT, workedEntries, workedSkills } from '@strata/testing';
import { resolveContextConfiguration } from '@strata/context';
import { createModelClient, ScriptedLanguageModel, type ScriptedTurn } from '@strata/model';
import { createMemoryStores } from '@strata/store';
import { ToolRegistry } from '@strata/tools';
import { createAgentRun } from './create-agent-run.js';
import { workerModelFromClient } from './worker-model-adapter.js';

const NOW = new Date('2026-01-02T03:04:05.000Z');

async function snapshot(store: BlackboardStore) {
  return { entries: await store.query(['**']), revision: await store.headRevision() };
}

function agentRun(agentScript: ScriptedTurn[], workerScript: ScriptedTurn[]) {
  const board = new MemoryBlackboardStore({ entries: workedEntries(), now: () => NOW });
  const worker = new ScriptedLanguageModel(workerScript);
  const registry = new ToolRegistry();
  registry.register(createRunWorkerTool({ store: board, skills: workedSkills(), model: workerModelFromClient(createModelClient({ model: worker, retry: { maxAttempts: 1 } })), sharedContext: WORKED_SHARED_CONTEXT }));
  registry.register(createReadBlackboardTool({ store: board }));
  const stores = createMemoryStores();
  const agent = new ScriptedLanguageModel(agentScript);
  const run = createAgentRun({ id: 'director' }, { model: createModelClient({ model: agent }), tools: registry, outputStore: stores.toolOutputs, configuration: resolveContextConfiguration({}) }, { contextId: 'story', prompt: '继续故事。' });
  return { board, worker, agent, run };
}

const callWorker: ScriptedTurn = { parts: [{ type: 'tool-call', id: 'w1', name: 'run_worker', input: { skill: 'narrator', task: WORKED_NARRATOR_TASK } }] };
const peek: ScriptedTurn = { parts: [{ type: 'tool-call', id: 'r1', name: 'read_blackboard', input: { patterns: ['核心.*'] } }] };

test('run_worker end to end with the scripted model: the worker sees exactly its contract and writes its output tags', async () => {
  const { board, worker, run } = agentRun([peek, callWorker, { parts: [{ type: 'text', text: '叙述已写好。' }] }], [{ parts: [{ type: 'text', text: '他低声说：“叫我老周。”' }] }]);
  const result = await run.execute();
  assert.equal(result.stopReason, 'completed');
  assert.equal(worker.calls.length, 1);
  // The worker's prompt, as the provider received it, is exactly the contract's messages: nothing the agent read leaks in.
  const prompt = worker.calls[0]!.prompt.map((message) => ({ role: message.role, content: typeof message.content === 'string' ? message.content : message.content.map((part) => ('text' in part ? part.text : '')).join('') }));
  assert.deepEqual(prompt, WORKED_NARRATOR_MESSAGES.map((message) => ({ role: message.role, content: message.content })));
  const written = (await board.query(['运行.叙述'])).at(-1)!;
  assert.equal(written.content, '他低声说：“叫我老周。”');
  assert.deepEqual(written.author, { kind: 'worker', name: 'narrator' });
  const toolResult = result.finalMessages.find((message) => message.role === 'tool' && message.toolCallId === 'w1');
  assert.ok(toolResult && toolResult.role === 'tool' && toolResult.outputRef, 'the worker result is stored like any tool result');
});

test('a failed worker model call is an error result and leaves the blackboard unchanged', async () => {
  const { board, run } = agentRun([callWorker, { parts: [{ type: 'text', text: '失败了。' }] }], [{ throws: new Error('connection refused') }]);
  const before = await snapshot(board);
  const result = await run.execute();
  assert.equal(result.stopReason, 'completed');
  const toolResult = result.finalMessages.find((message) => message.role === 'tool')!;
  assert.ok(toolResult.role === 'tool' && toolResult.isError === true);
  assert.deepEqual(await snapshot(board), before);
});
