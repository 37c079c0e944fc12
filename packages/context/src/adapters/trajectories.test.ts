import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContextInputError } from '../errors/context-input-error.js';
import { buildHistoryUnits, isTaskAnchorCandidate } from '../history-units.js';
import type { CanonicalMessage } from '../messages.js';
import { detectTrajectoryFormat, fromSweAgentTrajectory, fromTauBenchTranscript, importTrajectories, UNRECORDED_TOOL_NAME } from './trajectories.js';

// Fixtures of our own, one per format, small enough to read.

const OPENAI = [
  { role: 'system', content: 'You are an airline agent.' },
  { role: 'user', content: 'Cancel reservation ABC123.' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_reservation', arguments: '{"id":"ABC123"}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: '{"id":"ABC123","status":"booked"}' },
  { role: 'assistant', content: 'Reservation ABC123 is cancelled.' },
];

const ANTHROPIC = {
  system: 'You are a coding agent.',
  messages: [
    { role: 'user', content: 'List the files.' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'tu1', name: 'ls', input: { path: '.' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'a.txt\nb.txt' }] },
    { role: 'assistant', content: 'Two files: a.txt and b.txt.' },
  ],
};

const TAU_TRANSCRIPT = [
  'user: Hi, I want to change my flight HAT001.',
  'assistant: None',
  'tool: {"flight": "HAT001",',
  '  "status": "available"}',
  'assistant: Your flight HAT001 is available.',
  'user: Thanks.',
  'assistant: You are welcome.',
].join('\n');

/** SWE-agent's text form: thought and action on the assistant, the observation as the next user entry. */
const SWE_TEXT = {
  history: [
    { role: 'system', content: 'SETTING: a shell.', agent: 'primary' },
    { role: 'user', content: 'ISSUE: the parser drops a colon.', agent: 'primary' },
    { role: 'assistant', content: 'Let me look.\n```\nfind_file parser.py\n```', thought: 'Let me look.', action: 'find_file parser.py\n', agent: 'primary' },
    { role: 'user', content: 'Found 1 matches for "parser.py": src/parser.py', agent: 'primary', message_type: 'observation' },
    { role: 'assistant', content: 'Open it.', thought: 'Open it.', action: 'open src/parser.py', agent: 'primary' },
    { role: 'user', content: `[File: src/parser.py]\n${'x = 1\n'.repeat(200)}`, agent: 'primary', message_type: 'observation' },
    { role: 'assistant', content: 'Done.', thought: 'Done.', action: 'submit', agent: 'primary' },
    { role: 'user', content: 'Submitted.', agent: 'primary' },
  ],
};

const SWE_CALLS = {
  history: [
    { role: 'system', content: 'SETTING: a shell.' },
    { role: 'user', content: 'ISSUE: fix it.' },
    { role: 'assistant', content: 'Look.', thought: 'Look.', action: 'ls', tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] },
    { role: 'tool', content: 'README.md', tool_call_ids: ['call_a'] },
  ],
};

const SHAREGPT = {
  conversations: [
    { from: 'human', value: 'Convert 10 USD to EUR.' },
    { from: 'function_call', value: '{"name": "convert", "arguments": {"amount": 10, "from": "USD", "to": "EUR"}}' },
    { from: 'observation', value: '{"result": 9.2}' },
    { from: 'gpt', value: '10 USD is 9.20 EUR.' },
  ],
  tools: '[]',
};

const roles = (history: readonly CanonicalMessage[]) => history.map((message) => message.role);

test('each format is detected from its content alone', () => {
  assert.equal(detectTrajectoryFormat(OPENAI), 'openai');
  assert.equal(detectTrajectoryFormat({ messages: OPENAI }), 'openai');
  assert.equal(detectTrajectoryFormat(ANTHROPIC), 'anthropic');
  assert.equal(detectTrajectoryFormat(ANTHROPIC.messages), 'anthropic');
  assert.equal(detectTrajectoryFormat({ task_id: 1, reward: 1, traj: OPENAI }), 'tau-bench');
  assert.equal(detectTrajectoryFormat({ messages_display: TAU_TRANSCRIPT }), 'tau-bench');
  assert.equal(detectTrajectoryFormat(SWE_TEXT), 'swe-agent');
  assert.equal(detectTrajectoryFormat(SHAREGPT), 'sharegpt');
  assert.equal(detectTrajectoryFormat({ rows: [] }), undefined);
  assert.equal(detectTrajectoryFormat(42), undefined);
});

test('a JSON array of messages, JSONL of conversations and an array of records each import', () => {
  const single = importTrajectories(JSON.stringify(OPENAI));
  assert.deepEqual(single.trajectories.map((t) => [t.record, t.format, t.messages.length]), [['record', 'openai', 5]]);
  const jsonl = importTrajectories(`${JSON.stringify({ messages: OPENAI })}\n\n${JSON.stringify(OPENAI)}\n`);
  assert.deepEqual(jsonl.trajectories.map((t) => t.record), ['line 1', 'line 3']);
  const records = importTrajectories(JSON.stringify([{ traj: OPENAI }, SHAREGPT, ANTHROPIC]));
  assert.deepEqual(records.trajectories.map((t) => `${t.record} ${t.format}`), ['[0] tau-bench', '[1] sharegpt', '[2] anthropic']);
  const [, shareGpt, anthropic] = records.trajectories;
  assert.deepEqual(roles(shareGpt!.messages), ['user', 'assistant', 'tool', 'assistant']);
  assert.deepEqual(roles(anthropic!.messages), ['system', 'user', 'assistant', 'tool', 'assistant']);
});

test('tau-bench messages_display: None turns become calls, tool turns their results, multi-line text kept', () => {
  const history = fromTauBenchTranscript(TAU_TRANSCRIPT);
  assert.deepEqual(roles(history), ['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
  const call = history[1];
  assert.ok(call?.role === 'assistant');
  assert.deepEqual(call.toolCalls, [{ id: 'call_2', name: UNRECORDED_TOOL_NAME, input: {} }]);
  assert.deepEqual(history[2], { role: 'tool', toolCallId: 'call_2', toolName: UNRECORDED_TOOL_NAME, content: '{"flight": "HAT001",\n  "status": "available"}' });
  assert.throws(() => fromTauBenchTranscript('hello\nuser: hi'), (error) => ContextInputError.isInstance(error) && error.culprit === 'messages_display');
  assert.throws(() => fromTauBenchTranscript('user: hi\ntool: out'), /messages_display turn 2/);
});

test('SWE-agent text form imports as call + result pairs: the observation is maskable and never the anchor', () => {
  const history = fromSweAgentTrajectory(SWE_TEXT);
  assert.deepEqual(roles(history), ['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool']);
  assert.deepEqual(history[2], { role: 'assistant', content: 'Let me look.', toolCalls: [{ id: 'call_2', name: 'find_file', input: { command: 'find_file parser.py' } }] });
  const observation = history[5];
  assert.ok(observation?.role === 'tool');
  assert.deepEqual([observation.toolCallId, observation.toolName], ['call_4', 'open']);
  // The task stays the anchor: the user message, not the latest observation.
  assert.equal(history.findLast(isTaskAnchorCandidate), history[1]);
  // Every unit is closed: each call has its result.
  assert.ok(buildHistoryUnits(history).every((unit) => unit.pendingCallIds.length === 0));
});

test('SWE-agent with tool_calls still reads tool_call_ids', () => {
  const history = fromSweAgentTrajectory(SWE_CALLS);
  assert.deepEqual(history.at(-1), { role: 'tool', toolCallId: 'call_a', toolName: 'bash', content: 'README.md' });
});

test('a malformed record is named with its field, and the other records still import', () => {
  const bad = { traj: [{ role: 'user', content: 'hi' }, { role: 'robot', content: 'x' }] };
  const result = importTrajectories(JSON.stringify([{ traj: OPENAI }, bad, SHAREGPT]));
  assert.equal(result.trajectories.length, 2);
  assert.equal(result.errors.length, 1);
  assert.equal(result.errors[0]!.culprit, '[1]: traj[1].role');
  assert.match(result.errors[0]!.message, /^\[1\]: traj\[1\]\.role: expected/);
  const jsonl = importTrajectories(`${JSON.stringify(SHAREGPT)}\n{"conversations": [\n`);
  assert.deepEqual([jsonl.trajectories.length, jsonl.errors[0]!.culprit], [1, 'line 2: record']);
});

test('an explicit format is applied to every record; a wrong one is an error per record', () => {
  const result = importTrajectories(JSON.stringify(SHAREGPT), { format: 'swe-agent' });
  assert.equal(result.trajectories.length, 0);
  assert.equal(result.errors[0]!.culprit, 'record: history');
});

test('an empty file, a truncated JSON file and a file of no known format each throw one input error', () => {
  const fails = (text: string, pattern: RegExp) => assert.throws(() => importTrajectories(text), (error) => ContextInputError.isInstance(error) && pattern.test(error.message));
  fails('', /the file is empty/);
  fails('  \n', /the file is empty/);
  fails(JSON.stringify(OPENAI).slice(0, 60), /not JSON: .*truncated/);
  fails('[]', /no trajectories/);
  fails(JSON.stringify([{ a: 1 }, { b: 2 }]), /no record of a known trajectory format/);
});
