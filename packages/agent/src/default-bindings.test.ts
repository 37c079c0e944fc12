import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, type ContextTraceV5 } from '@strata/context';
import { createModelClient, ScriptedLanguageModel } from '@strata/model';
import { createAgentRun } from './create-agent-run.js';
import { createDefaultBindings } from './default-bindings.js';

test('with tracing on, each model turn writes a private v5 trace file under the data directory', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'strata-data-'));
  try {
    const model = createModelClient({ model: new ScriptedLanguageModel([{ parts: [{ type: 'tool-call', id: 'r', name: 'read_tool_output', input: { ref: 'out_missing' } }] }, { parts: [{ type: 'text', text: 'done' }] }]) });
    const defaults = await createDefaultBindings({ env: { STRATA_DATA_DIR: dataDir, SCIENCE_AGENT_CONTEXT_TRACE: '1' }, model });
    const result = await createAgentRun({ id: 'cli' }, defaults.bindings, { contextId: 'run/1', prompt: 'Read it.' }).execute();
    await defaults.close();
    assert.equal(result.stopReason, 'completed');
    const directory = join(dataDir, 'context-traces', 'run%2F1');
    const first = join(directory, 'turn-0001.json');
    assert.equal((await stat(first)).mode & 0o777, 0o600);
    assert.equal((await stat(directory)).mode & 0o777, 0o700);
    const trace = JSON.parse(await readFile(first, 'utf8')) as ContextTraceV5;
    assert.equal(trace.schemaVersion, 5);
    assert.equal(trace.turn, 1);
    assert.deepEqual(trace.renderedContext!.tools, ['read_tool_output', 'update_plan']);
    const second = JSON.parse(await readFile(join(directory, 'turn-0002.json'), 'utf8')) as ContextTraceV5;
    assert.ok(second.llmInput.messages.some((message) => message.role === 'tool' && message.isError), 'the unknown ref came back as a tool error');
    assert.ok((await stat(join(dataDir, 'strata.db'))).isFile(), 'the SQLite store is the default');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('bad settings are clear errors naming the variable', async () => {
  await assert.rejects(createDefaultBindings({ env: { SCIENCE_AGENT_EXECUTOR: 'jiuwenswarm' } }), (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'SCIENCE_AGENT_EXECUTOR');
  await assert.rejects(createDefaultBindings({ env: { STRATA_DATA_DIR: tmpdir() } }), (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'STRATA_MODEL');
  await assert.rejects(createDefaultBindings({ env: { STRATA_MODEL: 'gemini:pro' } }), (error: unknown) => ConfigurationError.isInstance(error) && /gemini/.test(error.message));
  await assert.rejects(createDefaultBindings({ env: { MODEL_MAX_TOKENS: 'lots' } }), (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'MODEL_MAX_TOKENS');
});

test("every setting reaches the run's bindings at the edge; the model's own limit seeds the max and the environment wins", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'strata-data-'));
  try {
    const model = createModelClient({ model: new ScriptedLanguageModel([]) });
    const seeded = await createDefaultBindings({ env: { STRATA_DATA_DIR: dataDir, STRATA_CONTEXT_WINDOW_ROUNDS: '12', SCIENCE_AGENT_CONTEXT_DATA_BUDGET_TOKENS: '900' }, model, modelContextTokens: 32_768 });
    await seeded.close();
    assert.equal(seeded.configuration.modelMaxTokens, 32_768);
    assert.equal(seeded.configuration.windowRounds, 12);
    assert.equal(seeded.bindings.configuration.contributedMessageTokens, 900);
    const overridden = await createDefaultBindings({ env: { STRATA_DATA_DIR: dataDir, MODEL_MAX_TOKENS: '64000' }, model, modelContextTokens: 32_768 });
    await overridden.close();
    assert.equal(overridden.configuration.modelMaxTokens, 64_000);
    await assert.rejects(createDefaultBindings({ env: { STRATA_DATA_DIR: dataDir, SCIENCE_AGENT_CONTEXT_SUMMARY_RETRIES: '0' }, model }), (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'SCIENCE_AGENT_CONTEXT_SUMMARY_RETRIES');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
