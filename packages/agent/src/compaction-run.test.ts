import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveContextConfiguration, type ContextTraceV5, type ToolDefinition } from '@strata/context';
import { createModelClient, createModelSummarizer, ScriptedLanguageModel, type ScriptedTurn } from '@strata/model';
import { createMemoryStores } from '@strata/store';
import { ToolRegistry } from '@strata/tools';
import { createAgentRun } from './create-agent-run.js';

const notes: ToolDefinition = {
  name: 'read_notes',
  description: 'Reads lab notes (no stored reference is kept by this test tool).',
  parameters: { type: 'object', properties: { page: { type: 'integer' } }, required: ['page'] },
  execute: (input) => ({ content: `Page ${(input as { page: number }).page}: ` + 'the sample was stable at 21.5 C; '.repeat(40) }),
};

const checkpoint = ['## Completed work', '- read pages 1-6', '## Evidence', '- stable at 21.5 C', '## Decisions', '- none', '## Failed or abandoned directions', '- none', '## Pending conditions', '- none', '## Optional directions', '- none', '## Next step', '- answer the user'].join('\n');

test('under pressure a run summarizes old steps into a checkpoint, records a session version, and keeps its protected sections', async () => {
  const script: ScriptedTurn[] = [];
  for (let page = 1; page <= 8; page += 1) script.push({ parts: [{ type: 'tool-call', id: `p${page}`, name: 'read_notes', input: { page } }] });
  script.push({ parts: [{ type: 'text', text: 'The sample stayed at 21.5 C.' }] });
  const model = new ScriptedLanguageModel(script);
  const summarizerModel = new ScriptedLanguageModel(Array.from({ length: 10 }, () => ({ parts: [{ type: 'text' as const, text: checkpoint }] })));
  const stores = createMemoryStores();
  const registry = new ToolRegistry();
  registry.register(notes);
  const traces: ContextTraceV5[] = [];
  const result = await createAgentRun(
    // Results sent whole (no masked view), so the history reaches pressure.
    { id: 'lab', maskStoredResults: false, sections: { identity: 'You are a lab assistant.', governance: 'Never invent measurements.' } },
    {
      model: createModelClient({ model }),
      tools: registry,
      // Results go through a store that keeps no reference, so only summarizing can relieve pressure.
      outputStore: { put: async () => ({ id: 'none', chars: 0, lines: 0, bytes: 0 }), get: async () => undefined, close: async () => undefined },
      sessionStore: stores.sessions,
      traceSink: { write: async (document) => void traces.push(document.body as ContextTraceV5) },
      summarizer: createModelSummarizer({ client: createModelClient({ model: summarizerModel }) }),
      configuration: resolveContextConfiguration({ SCIENCE_AGENT_CONTEXT_WINDOW_TOKENS: '3000', SCIENCE_AGENT_CONTEXT_COMPACTION_PRESSURE_PERCENT: '80' }),
    },
    { contextId: 'lab-run', prompt: 'Read the notes and tell me the temperature.' },
  ).execute();
  assert.equal(result.stopReason, 'completed');
  assert.ok(summarizerModel.calls.length >= 1, 'the summarizer model was asked');
  assert.match(JSON.stringify(summarizerModel.calls[0]!.prompt), /Page 1: the sample was stable/, 'it received the transcript');
  const summarized = traces.find((trace) => trace.compaction.summarizedMessages > 0)!;
  assert.ok(summarized, 'a turn summarized old steps');
  assert.equal(summarized.compaction.summaryAttempts, 1);
  assert.ok(summarized.compaction.checkpointTokens! < summarized.compaction.summarySourceTokens!);
  const later = traces.at(-1)!;
  assert.ok(later.llmInput.messages.some((message) => message.role === 'user' && message.checkpoint && message.content.includes('## Next step\n- answer the user')));
  const system = later.llmInput.messages[0]!;
  assert.ok(system.role === 'system' && system.content.includes('<section id="profile.identity">') && system.content.includes('Never invent measurements.'));
  const versions = await stores.sessions.versions('lab-run');
  const compacted = await Promise.all(versions.map((version) => stores.sessions.loadVersion('lab-run', version)));
  assert.ok(compacted.some((version) => version?.compaction?.reason === 'token-pressure'), 'the session recorded the compaction as a version');
  assert.ok(result.finalMessages.some((message) => message.role === 'user' && message.checkpoint), 'the canonical history carries the checkpoint');
  assert.ok(result.finalMessages.some((message) => message.role === 'user' && message.content === 'Read the notes and tell me the temperature.'), 'the task anchor survives');
});
