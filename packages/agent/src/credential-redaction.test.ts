import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveContextConfiguration, type ContextTraceV5, type ToolDefinition } from '@strata/context';
import { CREDENTIAL_SAMPLES, credentialSampleText, leakedCredentials, loadProviderRules } from '@strata/testing';
import { createModelClient, ScriptedLanguageModel, type ScriptedTurn } from '@strata/model';
import { createFileTraceSink, openSqliteStores } from '@strata/store';
import { ToolRegistry } from '@strata/tools';
import { createAgentRun } from './create-agent-run.js';
import type { AgentEvent } from './agent-events.js';
import { assertProviderSafe } from './testing/run-fixtures.js';

const rules = await loadProviderRules();
/** Printed beside the credentials: found in every store, it shows the search reads what was stored. */
const CANARY = 'canary-3f9e1c';
const sample = (shape: string) => CREDENTIAL_SAMPLES.find((entry) => entry.shape === shape)!;
const leakyText = `${CANARY}\n${credentialSampleText()}\n`;

/** Tools that print every credential shape: as a result, streamed in pieces cut through the secrets, as an error result, and thrown. */
function leakyTools(received: unknown[] = []): ToolDefinition[] {
  const parameters = { type: 'object', properties: { key: { type: 'string' } } } as const;
  return [
    { name: 'leak_output', description: 'Prints configuration.', parameters, execute: (input) => (received.push(input), { content: leakyText }) },
    {
      name: 'leak_stream',
      description: 'Streams configuration.',
      parameters,
      execute: () => ({
        content: '',
        stream: (async function* () {
          for (let at = 0; at < leakyText.length; at += 7) yield leakyText.slice(at, at + 7);
        })(),
      }),
    },
    { name: 'leak_error', description: 'Fails verbosely.', parameters, execute: () => ({ content: `request failed\n${leakyText}`, isError: true }) },
    {
      name: 'leak_throw',
      description: 'Throws verbosely.',
      parameters,
      execute: () => {
        throw new Error(`upstream refused ${CANARY}: ${credentialSampleText()}`);
      },
    },
  ];
}

/** A turn calling every leaky tool, its text and one call's arguments carrying credentials too; then an answer that quotes one. */
const script: ScriptedTurn[] = [
  {
    parts: [
      { type: 'text', text: `Checking with ${sample('OpenAI key').secret.slice(0, 9)}` },
      { type: 'text', text: `${sample('OpenAI key').secret.slice(9)} first.` },
      { type: 'tool-call', id: 'c1', name: 'leak_output', input: { key: sample('Anthropic key').secret } },
      { type: 'tool-call', id: 'c2', name: 'leak_stream', input: {} },
      { type: 'tool-call', id: 'c3', name: 'leak_error', input: {} },
      { type: 'tool-call', id: 'c4', name: 'leak_throw', input: {} },
    ],
  },
  { parts: [{ type: 'text', text: `Done; the token was ${sample('GitHub token').secret}.` }] },
];

/** Every file under a directory, raw. */
async function filesUnder(directory: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.set(join(entry.parentPath, entry.name), await readFile(join(entry.parentPath, entry.name)));
  }
  return files;
}

async function leakyRun(options: { readonly environment?: Record<string, string>; readonly received?: unknown[] }) {
  const directory = await mkdtemp(join(tmpdir(), 'strata-redaction-'));
  const stores = openSqliteStores({ path: join(directory, 'strata.db') });
  const tools = new ToolRegistry();
  for (const definition of leakyTools(options.received)) tools.register(definition);
  const model = new ScriptedLanguageModel(script);
  const events: AgentEvent[] = [];
  const run = createAgentRun(
    { id: 'leaky' },
    {
      model: createModelClient({ model }),
      tools,
      outputStore: stores.toolOutputs,
      sessionStore: stores.sessions,
      traceSink: createFileTraceSink({ directory: join(directory, 'traces') }),
      configuration: resolveContextConfiguration({ STRATA_CONTEXT_WINDOW_TOKENS: '32000', ...options.environment }),
    },
    { contextId: 'leaky-run', prompt: 'Read the configuration and tell me what you found.', onEvent: (event) => events.push(event) },
  );
  const result = await run.execute();
  // The database and its write-ahead log as they are while the store is open, then the file after it closed.
  const open = await filesUnder(directory);
  await stores.close();
  const closed = await filesUnder(directory);
  return { directory, result, events, model, open, closed };
}

test('a run whose tool outputs, tool errors, thrown errors and model output hold every credential shape keeps none of them: not in trace files, the SQLite file or its WAL, events, the result, nor any provider request', async () => {
  const { directory, result, events, model, open, closed } = await leakyRun({});
  try {
    assert.equal(result.stopReason, 'completed');
    const files = [...open, ...[...closed].map(([path, bytes]) => [`${path} (closed)`, bytes] as const)];
    assert.ok(files.some(([path]) => path.endsWith('strata.db-wal')), 'the WAL was read while the store was open');
    assert.ok(files.filter(([path]) => path.includes('traces')).length >= 2, 'a trace per turn was read');
    for (const [path, bytes] of files) {
      assert.deepEqual(leakedCredentials(bytes), [], path);
    }
    // The search reads what was stored: the canary printed beside the credentials is in the database and the traces.
    assert.ok(files.some(([path, bytes]) => path.includes('strata.db') && bytes.includes(CANARY)), 'the canary is in the SQLite file');
    assert.ok(files.some(([path, bytes]) => path.includes('traces') && bytes.includes(CANARY)), 'the canary is in a trace');
    assert.deepEqual(leakedCredentials(JSON.stringify(events)), [], 'events');
    assert.deepEqual(leakedCredentials(JSON.stringify(result, (_key, value: unknown) => (value instanceof Error ? { message: value.message, stack: value.stack } : value))), [], 'result');
    assert.equal(model.calls.length, 2);
    assert.deepEqual(leakedCredentials(JSON.stringify(model.calls)), [], 'provider requests');
    assert.ok(JSON.stringify(model.calls[1]).includes(CANARY), 'the second request carried the tool results');
    // Each leak is reported by kind and count, never by value.
    const redacted = result.diagnostics.filter((diagnostic) => diagnostic.code === 'AGENT_CREDENTIALS_REDACTED');
    assert.deepEqual(redacted.map((diagnostic) => diagnostic.subject).sort(), ['c1', 'c2', 'c3', 'c4']);
    assert.match(redacted[0]!.message, /private-key \(2\), url-password \(1\), bearer-token \(1\)/);
    assert.ok(events.some((event) => event.type === 'diagnostic' && event.diagnostic.message.includes("model's output carried credentials (anthropic-key (1), openai-key (1))")));
    assert.deepEqual(leakedCredentials(JSON.stringify(result.diagnostics)), []);
    // What was sent stays valid for both providers with the markers in it.
    assertProviderSafe(rules, [...closed].filter(([path]) => path.endsWith('.json')).map(([, bytes]) => JSON.parse(bytes.toString('utf8')) as ContextTraceV5));
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('redactToolOutputs false (STRATA_REDACT_TOOL_OUTPUTS=0): the provider and the tools get the values, while the SQLite file, the traces and the events keep markers', async () => {
  const received: unknown[] = [];
  const { directory, result, events, model, open, closed } = await leakyRun({ environment: { STRATA_REDACT_TOOL_OUTPUTS: '0' }, received });
  try {
    assert.equal(result.stopReason, 'completed');
    // The provider saw the tool outputs as they were (to use a key it must be able to read it).
    assert.deepEqual(leakedCredentials(JSON.stringify(model.calls[1])).sort(), CREDENTIAL_SAMPLES.map((entry) => entry.shape).sort());
    // The tool got the real value the model passed: the history holds its numbered marker.
    assert.deepEqual(received, [{ key: sample('Anthropic key').secret }]);
    for (const [path, bytes] of [...open, ...closed]) assert.deepEqual(leakedCredentials(bytes), [], path);
    assert.deepEqual(leakedCredentials(JSON.stringify(events)), [], 'events');
    assert.match(JSON.stringify(result.finalMessages), /\[REDACTED:anthropic-key#\d+\]/);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});
