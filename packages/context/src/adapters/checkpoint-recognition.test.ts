import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildHistoryUnits, isTaskAnchorCandidate } from '../history-units.js';
import type { CanonicalMessage } from '../messages.js';
import { fromAiSdkMessages } from './ai-sdk-messages.js';
import { fromAnthropicMessages } from './anthropic-messages.js';
import { fromOpenAIChat } from './openai-chat.js';
import { fromShareGPT } from './trajectories.js';

function assertCheckpoint(message: CanonicalMessage | undefined, text: string): void {
  assert.ok(message && message.role === 'user' && message.checkpoint === true && message.hidden === true && message.authority === 'data_only', JSON.stringify(message));
  assert.ok(message.content.includes(text), 'the text is kept verbatim');
  assert.equal(isTaskAnchorCandidate(message), false, 'a checkpoint is never taken for the task');
}

test('OpenAI chat: name "summary", the marker key in metadata, and the text prefix are checkpoints; a plain message is not', () => {
  const history = fromOpenAIChat([
    { role: 'user', content: 'Find the bug.' },
    { role: 'system', name: 'summary', content: 'Done so far: read the logs.' },
    { role: 'user', content: 'Earlier work: tests pass.', metadata: { science_agent_summary_checkpoint: true } },
    { role: 'assistant', content: '[ScienceAgent summary checkpoint]\nEvidence: stack trace in module A.' },
    { role: 'user', content: 'Thanks, go on.', name: 'alice' },
  ]);
  assert.deepEqual(history[0], { role: 'user', content: 'Find the bug.' });
  assertCheckpoint(history[1], 'Done so far: read the logs.');
  assertCheckpoint(history[2], 'Earlier work: tests pass.');
  assertCheckpoint(history[3], 'Evidence: stack trace in module A.');
  assert.equal(history[4]!.role === 'user' && history[4]!.checkpoint, undefined);
  assert.equal(buildHistoryUnits(history).length > 0, true);
});

test('AI SDK, Anthropic and ShareGPT imports recognise the original checkpoints too', () => {
  const aiSdk = fromAiSdkMessages([
    { role: 'user', content: 'Task.' },
    { role: 'user', content: 'State of work.', providerOptions: { scienceAgent: { science_agent_summary_checkpoint: true } } },
  ]);
  assertCheckpoint(aiSdk[1], 'State of work.');
  const anthropic = fromAnthropicMessages({ messages: [{ role: 'user', content: 'Task.' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: '[ScienceAgent summary checkpoint] decisions: use B.' }] });
  assertCheckpoint(anthropic[2], 'decisions: use B.');
  const shareGpt = fromShareGPT({ conversations: [{ from: 'human', value: 'Task.' }, { from: 'gpt', value: '<science_agent_summary_checkpoint>next: run tests</science_agent_summary_checkpoint>' }] });
  assertCheckpoint(shareGpt[1], 'next: run tests');
});

test('a tool result or an assistant message with calls is never a checkpoint', () => {
  const history = fromOpenAIChat([
    { role: 'user', content: 'Task.' },
    { role: 'assistant', content: '[ScienceAgent summary checkpoint]', name: 'summary', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c1', name: 'summary', content: '[ScienceAgent summary checkpoint] listing' },
  ]);
  assert.equal(history[1]!.role, 'assistant');
  assert.equal(history[2]!.role, 'tool');
});
