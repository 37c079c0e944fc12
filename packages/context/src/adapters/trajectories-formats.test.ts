// The formats of issue 23: each fixture of ours (packages/context/fixtures/trajectories)
// and each shared set imports with 0 refused records, and every history it gives passes
// the canonical check and, after the composer's repair, the provider-rules oracle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadProviderRules, sharedDirectory } from '@strata/testing';
import { checkCanonicalHistory } from '../canonical-history-check.js';
import { ContextInputError } from '../errors/context-input-error.js';
import { isTaskAnchorCandidate } from '../history-units.js';
import { DefaultContextMessageComposer } from '../message-composer.js';
import type { AssistantMessage, CanonicalMessage, ToolResultMessage } from '../messages.js';
import { fromOpenAIChat, toOpenAIChat } from './openai-chat.js';
import { detectTrajectoryFormat, fromSweAgentTrajectory, fromTauBenchRun, importTrajectories, type ImportedTrajectory } from './trajectories.js';
import { fromClaudeCodeSession } from './trajectories-claude-code.js';
import { fromCodexRollout } from './trajectories-codex.js';
import { fromLlamaFactoryRecord } from './trajectories-llama-factory.js';
import { fromMiniSweAgentTrajectory } from './trajectories-mini-swe-agent.js';
import { fromOpenHandsEvents } from './trajectories-openhands.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/trajectories/', import.meta.url));
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const rules = await loadProviderRules();

const roles = (history: readonly CanonicalMessage[]) => history.map((message) => message.role);
const assistants = (history: readonly CanonicalMessage[]) => history.filter((message): message is AssistantMessage => message.role === 'assistant');
const results = (history: readonly CanonicalMessage[]) => history.filter((message): message is ToolResultMessage => message.role === 'tool');

/** A history every provider accepts once the composer has made it valid (orphans as data, interrupted calls answered). */
function assertReplayable(trajectory: ImportedTrajectory, where: string): void {
  checkCanonicalHistory(trajectory.messages);
  const composed = new DefaultContextMessageComposer({ maskStoredResults: false }).compose({ history: trajectory.messages, messages: [], attachments: [] }).history;
  if (!rules) return;
  const chat = toOpenAIChat(composed);
  assert.deepEqual(rules.violations(chat, 'openai'), [], `${where} ${trajectory.record}: OpenAI rules`);
  assert.deepEqual(rules.violations(chat, 'anthropic'), [], `${where} ${trajectory.record}: Anthropic rules`);
}

/** Imports a file's text: no record refused, every history replayable; the trajectories. */
function importClean(text: string, where: string): readonly ImportedTrajectory[] {
  const imported = importTrajectories(text);
  assert.deepEqual(imported.errors.map((error) => error.message), [], `${where}: refused records`);
  for (const trajectory of imported.trajectories) assertReplayable(trajectory, where);
  return imported.trajectories;
}

const EXPECTED_FORMATS: Readonly<Record<string, string>> = {
  'mini-swe-agent-v2-toolcall.traj.json': 'mini-swe-agent',
  'mini-swe-agent-v2-text.traj.json': 'mini-swe-agent',
  'openhands-events.json': 'openhands',
  'claude-code-session.jsonl': 'claude-code',
  'codex-rollout.jsonl': 'codex',
  'tau-bench-few-shot.jsonl': 'tau-bench',
  'llama-factory-dpo.json': 'sharegpt',
  'llama-factory-dpo-v1.jsonl': 'llama-factory',
  'deepseek-reasoner-chat.json': 'openai',
};

test('every fixture of ours is detected by content, has 0 refused records and replays valid for both providers', () => {
  const names = readdirSync(FIXTURES).filter((name) => name !== 'prompts-only.json').sort();
  assert.deepEqual(names, Object.keys(EXPECTED_FORMATS).sort(), 'each fixture has its expected format here');
  for (const name of names) {
    const trajectories = importClean(fixture(name), name);
    assert.ok(trajectories.length > 0, name);
    for (const trajectory of trajectories) assert.equal(trajectory.format, EXPECTED_FORMATS[name], `${name} ${trajectory.record}`);
    // Each format's fixture has tool calls and their results (but the preference ones, which are plain answers or one call).
    const calls = trajectories.flatMap((trajectory) => assistants(trajectory.messages).flatMap((message) => message.toolCalls ?? []));
    const answered = new Set(trajectories.flatMap((trajectory) => results(trajectory.messages).map((result) => result.toolCallId)));
    if (name !== 'llama-factory-dpo.json') assert.ok(calls.some((call) => answered.has(call.id)), `${name}: a call with its result`);
  }
});

const SHARED_SETS = ['tau-bench/gpt-4o-airline.json', 'swe-agent', 'llama-factory'];
const shared = sharedDirectory();

test('every shared set (tau-bench, SWE-agent, LLaMA-Factory incl. reason_tool_use jsonl) has 0 refused records and replays valid', { skip: shared ? false : '../shared is absent' }, (t) => {
  const files = SHARED_SETS.flatMap((set) => {
    const path = join(shared!, 'data', set);
    return set.endsWith('.json') ? [path] : readdirSync(path).filter((name) => /\.(json|jsonl|traj)$/.test(name)).map((name) => join(path, name));
  });
  assert.ok(files.some((file) => file.endsWith('reason_tool_use_demo_50.jsonl')));
  for (const file of files) {
    const trajectories = importClean(readFileSync(file, 'utf8'), file);
    t.diagnostic(`${file.slice(shared!.length + 1)}: ${trajectories.length} conversations, 0 refused`);
  }
});

test('mini-SWE-agent v2: the exit record ends the run and is no message; an action it cut short stays open; an unknown role is named', () => {
  const toolcall = JSON.parse(fixture('mini-swe-agent-v2-toolcall.traj.json')) as { messages: unknown[] };
  const history = fromMiniSweAgentTrajectory(toolcall);
  assert.ok(history.every((message) => !message.content.includes('diff --git')), 'the submission is no model input');
  assert.deepEqual(roles(history), ['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant']);
  assert.deepEqual(assistants(history).at(-1)!.toolCalls!.map((call) => call.id), ['call_04_Wm1d']);
  // DeepSeek's reasoning is kept, unsigned.
  assert.deepEqual(assistants(history)[0]!.reasoning, [{ text: 'The bug is about collapsing whitespace. Find where slugify is defined.' }]);
  // A bare list of messages ending in exit is mini-SWE-agent too.
  assert.equal(detectTrajectoryFormat(toolcall.messages), 'mini-swe-agent');
  const after = { ...toolcall, messages: [...toolcall.messages, { role: 'user', content: 'more' }] };
  assert.throws(() => fromMiniSweAgentTrajectory(after), (error) => ContextInputError.isInstance(error) && error.culprit === 'messages[11]' && /nothing after the exit record \(messages\[10\]\)/.test(error.message));
  const robot = { ...toolcall, messages: [toolcall.messages[0], { role: 'robot', content: 'x' }] };
  assert.throws(() => fromMiniSweAgentTrajectory(robot), { message: 'messages[1].role: expected "system", "user", "assistant", "tool" or "exit", got "robot"' });
  // Where exit is not known (OpenAI chat), the error names the record, the field and the role.
  const imported = importTrajectories(JSON.stringify([{ traj: [{ role: 'user', content: 'hi' }, { role: 'exit', content: 'Submitted' }] }, { traj: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] }]));
  assert.equal(imported.errors[0]!.message, '[0]: traj[1].role: expected "system", "developer", "user", "assistant" or "tool", got "exit"');
  // A role that is no plain name is still described by its kind only.
  assert.throws(() => fromOpenAIChat([{ role: 'x'.repeat(300), content: '' }]), /got string$/);
});

test('mini-SWE-agent text-based: actions become bash calls, observations their results, a format error stays a user turn', () => {
  const history = fromMiniSweAgentTrajectory(JSON.parse(fixture('mini-swe-agent-v2-text.traj.json')));
  assert.deepEqual(roles(history), ['system', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
  assert.deepEqual(assistants(history)[0]!.toolCalls, [{ id: 'call_2', name: 'bash', input: { command: 'ls /testbed/csvkit' } }]);
  assert.equal(history.findLast(isTaskAnchorCandidate), history[5], 'the format error is a user turn; observations never are');
  assert.ok(!results(history).some((result) => result.content.includes('EXACTLY ONE')));
});

test('OpenHands: calls of one model response are one step with their results; harness events left out; reasoning kept', () => {
  const events = JSON.parse(fixture('openhands-events.json')) as Array<Record<string, unknown>>;
  const history = fromOpenHandsEvents(events);
  assert.deepEqual(roles(history), ['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
  const first = assistants(history)[0]!;
  assert.deepEqual(first.toolCalls!.map((call) => [call.id, call.name]), [['toolu_01', 'execute_bash'], ['toolu_02', 'str_replace_editor']]);
  assert.deepEqual(first.toolCalls![1]!.input, { command: 'view', path: '/workspace/app/config.py' }, 'the arguments the model sent');
  assert.deepEqual(first.reasoning, [{ text: 'Two independent reads: list the repo and view the loader.' }]);
  assert.equal(history.at(-1)!.content, 'PORT is now parsed as an integer.');
  assert.ok(!history.some((message) => message.content.includes('workspace context')), 'recall is the harness');
  // Without function calling: the observation answers the action it is the cause of.
  const plain = fromOpenHandsEvents([
    { id: 1, source: 'user', action: 'message', args: { content: 'List files.' } },
    { id: 2, source: 'agent', action: 'run', args: { command: 'ls', thought: 'Look first.' } },
    { id: 3, source: 'agent', cause: 2, observation: 'run', content: 'a.txt', success: false },
  ]);
  assert.deepEqual(plain, [
    { role: 'user', content: 'List files.' },
    { role: 'assistant', content: 'Look first.', toolCalls: [{ id: 'call_2', name: 'run', input: { command: 'ls' } }] },
    { role: 'tool', toolCallId: 'call_2', toolName: 'run', content: 'a.txt', isError: true },
  ]);
  // An evaluation record's history and JSONL of events read the same.
  assert.deepEqual(fromOpenHandsEvents({ instance_id: 'x', history: events }), history);
  assert.deepEqual(importTrajectories(events.map((event) => JSON.stringify(event)).join('\n')).trajectories[0]!.messages, history);
  assert.throws(() => fromOpenHandsEvents([{ id: 1, source: 'agent', action: 'run', args: 'ls' }, 5]), { message: 'events[0]: event.args: expected an object of action arguments, got string' });
});

test('Claude Code: lines of one message id are one message, results follow it, a repeated line is read once, sidechains are their own threads', () => {
  const text = fixture('claude-code-session.jsonl');
  const history = fromClaudeCodeSession(text);
  assert.deepEqual(roles(history), ['user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
  const first = assistants(history)[0]!;
  assert.equal(first.content, "I'll read the cart module and its test.", 'the repeated line is read once');
  assert.deepEqual(first.toolCalls!.map((call) => call.id), ['toolu_01Read', 'toolu_02Grep']);
  assert.equal(first.reasoning!.length, 1);
  assert.ok(!history.some((message) => message.content.includes('every place that sums')), 'the sub-agent thread is not in the main history');
  const threads = importTrajectories(text).trajectories;
  assert.deepEqual(threads.map((thread) => thread.record), ['session', 'sidechain at line 11']);
  assert.deepEqual(roles(threads[1]!.messages), ['user', 'assistant', 'tool', 'assistant']);
  // A malformed line is named, and the rest of the session still imports.
  const lines = text.trimEnd().split('\n');
  lines[4] = lines[4]!.replace('"tool_use"', '"tool_usage"');
  const damaged = importTrajectories(lines.join('\n'));
  assert.deepEqual(damaged.errors.map((error) => error.culprit), ['line 5: message.content[0].type']);
  assert.match(damaged.errors[0]!.message, /got "tool_usage"$/);
  assert.equal(damaged.trajectories.length, 2);
  assert.throws(() => fromClaudeCodeSession(lines.join('\n')), (error) => ContextInputError.isInstance(error) && error.culprit === 'line 5: message.content[0].type');
});

test('Codex rollout: base instructions, response items in order, reasoning with its encrypted content, custom and local shell calls; events left out', () => {
  const history = fromCodexRollout(fixture('codex-rollout.jsonl'));
  assert.deepEqual(roles(history), ['system', 'system', 'user', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
  const [shell, patch, local] = assistants(history);
  assert.deepEqual(shell!.reasoning, [{ text: '**Locating the health handler**\n\nSearch the routes first.', providerMetadata: { openai: { reasoningEncryptedContent: 'gAAAAABo0-enc-reasoning-1' } } }]);
  assert.deepEqual(shell!.toolCalls![0]!.input, { command: ['bash', '-lc', "rg -n 'health' src"], workdir: '/home/dev/api' });
  assert.equal(typeof patch!.toolCalls![0]!.input, 'string', 'a custom tool call keeps its free text');
  assert.equal(local!.toolCalls![0]!.name, 'local_shell');
  assert.equal(results(history)[2]!.isError, true, 'an output with success false is an error');
  assert.equal(history.filter((message) => message.content.startsWith('The /health endpoint')).length, 1, 'event_msg repeats are left out');
  assert.throws(() => fromCodexRollout('{"type":"response_item","payload":{"type":"message","role":"critic","content":[]}}'), { message: 'line 1: payload.role: expected "user", "assistant", "developer" or "system", got "critic"' });
});

test('tau-bench few-shot turns that write text and call a tool keep both', () => {
  const [first, second] = importTrajectories(fixture('tau-bench-few-shot.jsonl')).trajectories;
  const caller = assistants(first!.messages)[1]!;
  assert.equal(caller.content, 'Thanks, let me look up your account.');
  assert.equal(caller.toolCalls!.length, 1);
  assert.deepEqual(roles(second!.messages), ['user', 'assistant', 'tool', 'assistant', 'user']);
  assert.equal(assistants(second!.messages)[0]!.content, 'Let me check that flight for you.');
});

test('preference data replays the chosen answer; a file with no agent turns at all is one clear error', () => {
  const [one, two] = importTrajectories(fixture('llama-factory-dpo.json')).trajectories;
  assert.deepEqual(one!.messages.at(-1), { role: 'assistant', content: 'A hash table maps keys to values by hashing each key to a bucket index, giving average O(1) lookup.' });
  assert.deepEqual(roles(two!.messages), ['user', 'assistant', 'user', 'assistant']);
  assert.ok(!JSON.stringify([one, two]).includes('rejected') && !JSON.stringify([one, two]).includes('Gute Nacht'));
  const v1 = importTrajectories(fixture('llama-factory-dpo-v1.jsonl')).trajectories;
  assert.equal(v1[0]!.messages.at(-1)!.content, 'Guten Morgen.');
  assert.throws(
    () => importTrajectories(fixture('prompts-only.json')),
    (error) => ContextInputError.isInstance(error) && error.code === 'CONTEXT_TRAJECTORY_NO_AGENT_TURNS' && error.culprit === 'file' && /^the file holds no agent turns: none of its 2 conversation\(s\) has an assistant message/.test(error.message),
  );
});

test('LLaMA-Factory v1: reasoning parts kept, one tool message answering several calls split per call', () => {
  const history = fromLlamaFactoryRecord({
    messages: [
      { role: 'user', content: [{ type: 'text', value: 'Areas for r=1 and r=2?' }] },
      { role: 'assistant', content: [{ type: 'reasoning', value: 'Two calls.' }, { type: 'tool_call', value: '{"name": "area", "arguments": {"r": 1}}' }, { type: 'tool_call', value: '{"name": "area", "arguments": {"r": 2}}' }] },
      { role: 'tool', content: [{ type: 'text', value: '[{"name": "area", "content": "3.14"}, {"name": "area", "content": "12.57"}]' }] },
      { role: 'assistant', content: [{ type: 'text', value: '3.14 and 12.57.' }] },
    ],
  });
  assert.deepEqual(results(history).map((result) => [result.toolCallId, result.content]), [['call_1_1', '3.14'], ['call_1_2', '12.57']]);
  assert.deepEqual(assistants(history)[0]!.reasoning, [{ text: 'Two calls.' }]);
});

test('reasoning_content is kept as reasoning in every importer of OpenAI-style messages', () => {
  const messages = [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: 'a', reasoning_content: 'thinking it over' },
  ];
  const reasoning = (history: CanonicalMessage[]) => assistants(history)[0]!.reasoning;
  for (const history of [fromOpenAIChat(messages), fromTauBenchRun({ traj: messages }), fromSweAgentTrajectory({ history: messages }), fromMiniSweAgentTrajectory({ messages, trajectory_format: 'mini-swe-agent-1.1' })]) {
    assert.deepEqual(reasoning(history), [{ text: 'thinking it over' }]);
  }
  assert.deepEqual(assistants(importTrajectories(fixture('deepseek-reasoner-chat.json')).trajectories[0]!.messages).map((message) => message.reasoning?.[0]?.text), ['Count lines with wc -l.', 'The tool said 7.']);
});
