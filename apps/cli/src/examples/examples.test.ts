import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toOpenAIChat, type ContextTraceV5 } from '@strata/context';
import { loadProviderRules } from '@strata/testing';
import { exampleDirectory, runDelegationExample, runLongExample, runShortExample, type ExampleSummary } from './index.js';

const rules = await loadProviderRules();
// SCIENCE_AGENT_CONTEXT_EXAMPLE_DIR=.tmp/context-examples (or STRATA_CONTEXT_EXAMPLE_DIR) exports the examples there.
const exported = exampleDirectory(process.env);

async function inDirectory<T>(name: string, run: (outDir: string) => Promise<T>): Promise<T> {
  if (exported) return run(join(exported, name));
  const outDir = await mkdtemp(join(tmpdir(), `strata-example-${name}-`));
  try {
    return await run(outDir);
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

async function checkExample(outDir: string, summary: ExampleSummary): Promise<void> {
  assert.equal(summary.stopReason, 'completed');
  for (const [check, passed] of Object.entries(summary.checks)) assert.equal(passed, true, `${summary.example}: ${check}`);
  assert.deepEqual(JSON.parse(await readFile(join(outDir, 'summary.json'), 'utf8')), summary);
  assert.ok(summary.traceFiles.length >= summary.turns);
  for (const file of summary.traceFiles) {
    const trace = JSON.parse(await readFile(join(outDir, file), 'utf8')) as ContextTraceV5;
    assert.equal(trace.schemaVersion, 5);
    if (!rules) continue;
    const chat = toOpenAIChat(trace.llmInput.messages);
    assert.deepEqual(rules.violations(chat, 'openai'), [], file);
    assert.deepEqual(rules.violations(chat, 'anthropic'), [], file);
  }
}

test('the short example: a plan, a tool call, an answer; traces and a summary', async () => {
  await inDirectory('short', async (outDir) => {
    const summary = await runShortExample({ outDir });
    await checkExample(outDir, summary);
    assert.deepEqual(summary.planProgress, { toolCallId: 'plan1', anchorFound: true, laterModelSteps: 1, completedNonPlanToolResults: 1 });
  });
});

test('the long example crosses the compaction threshold and keeps plan, goal and skill references', async () => {
  await inDirectory('long', async (outDir) => {
    const summary = await runLongExample({ outDir });
    await checkExample(outDir, summary);
    assert.ok(summary.compactions >= 1);
  });
});

test('the delegation example: a sub-agent and a reviewer, each with its own traces', async () => {
  await inDirectory('delegation', async (outDir) => {
    const summary = await runDelegationExample({ outDir });
    await checkExample(outDir, summary);
    assert.deepEqual(summary.contextIds, ['example-delegation', 'example-delegation/subagent/d1', 'example-delegation/reviewer/r1']);
  });
});

test('examples are reproducible: the same run writes the same bytes', async () => {
  const [first, second] = await Promise.all([mkdtemp(join(tmpdir(), 'strata-example-a-')), mkdtemp(join(tmpdir(), 'strata-example-b-'))]);
  try {
    const summary = await runShortExample({ outDir: first });
    await runShortExample({ outDir: second });
    for (const file of [...summary.traceFiles, 'summary.json']) assert.equal(await readFile(join(first, file), 'utf8'), await readFile(join(second, file), 'utf8'), file);
  } finally {
    await rm(first, { recursive: true, force: true });
    await rm(second, { recursive: true, force: true });
  }
});

test('the example directory: STRATA_CONTEXT_EXAMPLE_DIR first, then the documented alias', () => {
  assert.equal(exampleDirectory({ SCIENCE_AGENT_CONTEXT_EXAMPLE_DIR: '/a' }), '/a');
  assert.equal(exampleDirectory({ STRATA_CONTEXT_EXAMPLE_DIR: '/b', SCIENCE_AGENT_CONTEXT_EXAMPLE_DIR: '/a' }), '/b');
  assert.equal(exampleDirectory({}), undefined);
});
