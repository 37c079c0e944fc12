import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContextWorkspace, workspaceContributorFactory } from '@strata/context-workspace';
import { resolveContextConfiguration } from '@strata/context';
import { createModelClient, ScriptedLanguageModel } from '@strata/model';
import { createMemoryStores } from '@strata/store';
import { ToolRegistry } from '@strata/tools';
import { createAgentRun } from './create-agent-run.js';

test('the workspace reaches the model through the contributor bridge, as data, never in the system prompt', async () => {
  let clock = 0;
  const workspace = new ContextWorkspace({ now: () => clock });
  workspace.register({ blockName: 'sensor', source: 'lab', focusedOn: ['PERCEIVE'], blockContent: 'Temperature 21.5 C, humidity 40%.', compactBlock: 'Temp 21.5 C.', replaceFadeFactor: 10, timeFadeFactor: 1, activateFactor: 5 });
  workspace.register({ blockName: 'plan', source: 'planner', focusedOn: ['ACTION'], blockContent: 'Next: calibrate.', replaceFadeFactor: 10, timeFadeFactor: 1, activateFactor: 5 });
  clock = 60_000;
  const model = new ScriptedLanguageModel([{ parts: [{ type: 'text', text: 'It is 21.5 C.' }] }]);
  const stores = createMemoryStores();
  const result = await createAgentRun(
    { id: 'lab-agent', contributors: [workspaceContributorFactory({ workspace, domains: ['PERCEIVE'] })] },
    { model: createModelClient({ model }), tools: new ToolRegistry(), outputStore: stores.toolOutputs, configuration: resolveContextConfiguration({}) },
    { contextId: 'lab', prompt: 'How warm is the lab?' },
  ).execute();
  assert.equal(result.stopReason, 'completed');
  const prompt = JSON.stringify(model.calls[0]!.prompt);
  assert.match(prompt, /Temperature 21\.5 C, humidity 40%\./, 'the PERCEIVE block was sent');
  assert.doesNotMatch(prompt, /calibrate/, 'blocks of other domains were not');
  const system = model.calls[0]!.prompt.find((message) => message.role === 'system');
  assert.ok(!system || !JSON.stringify(system).includes('Temperature'), 'workspace data stays out of the system prompt');
  assert.match(prompt, /authority=\\"data_only\\"/);
});
