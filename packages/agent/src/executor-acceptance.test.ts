// The executor's acceptance suite (issue 11): the real in-process path, only the model transport scripted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContextContributorFactory, ContextMode, ToolDefinition } from '@strata/context';
import { loadProviderRules } from '@strata/testing';
import { createModelClient, openAIOverflowError, ScriptedLanguageModel } from '@strata/model';
import { connectMcpServer, loadSkills, registerStandardTools, skillCatalogContributorFactory, ToolRegistry } from '@strata/tools';
import type { AgentEvent } from './agent-events.js';
import { createAgentRun } from './create-agent-run.js';
import { inputLaneReducer } from './lanes/lane-reducers.js';
import { createDelegateTool } from './scopes/delegate-tool.js';
import { createReviewTool } from './scopes/review-tool.js';
import { acceptanceRun, answer, call, calls, occurrences, projection, readNotesTool, scriptedSummarizer, systemPrompt } from './testing/acceptance-fixtures.js';
import { assertProviderSafe, assertStepsWhole, settlesWithin, signalled } from './testing/run-fixtures.js';

const rules = await loadProviderRules();
const PLAN = { items: [{ step: 'read the notes', status: 'in_progress' }, { step: 'report the temperature', status: 'pending' }] };

/** An artifact writer from "another package": its results feed the Artifact lane through a reducer. */
const writeArtifactTool: ToolDefinition = {
  name: 'write_artifact',
  description: 'Saves a named artifact of this run.',
  parameters: { type: 'object', properties: { name: { type: 'string' }, content: { type: 'string' } }, required: ['name', 'content'] },
  concurrencySafe: true,
  execute: (input) => ({ content: `saved ${(input as { name: string }).name}` }),
};
const artifactReducer = inputLaneReducer({ tool: 'write_artifact', lane: 'artifact', keyField: 'name' });

for (const mode of ['dynamic', 'shadow', 'legacy'] as const satisfies readonly ContextMode[]) {
  test(`mode ${mode}: the model receives exactly the input the trace records`, async () => {
    const run = acceptanceRun({ script: [call('n1', 'read_notes', { page: 1 }), answer('21.5 C')], tools: [readNotesTool], env: { STRATA_CONTEXT_MODE: mode } });
    const result = await createAgentRun({ id: 'lab', legacySystemPrompt: 'You are the legacy lab assistant.', sections: { identity: 'You are Strata.' } }, run.bindings, { contextId: `mode-${mode}`, prompt: 'What temperature?' }).execute();
    assert.equal(result.stopReason, 'completed');
    assert.equal(run.traces.length, 2);
    run.traces.forEach((trace, index) => {
      assert.equal(trace.mode, mode);
      assert.deepEqual(run.received[index]!.messages, trace.llmInput.messages, 'the exact input the model client received');
      assert.deepEqual(run.received[index]!.tools, trace.llmInput.tools);
    });
    const [first] = run.traces;
    assert.equal(first!.selectedPath, mode === 'dynamic' ? 'dynamic' : 'legacy');
    assert.equal(systemPrompt(first!).includes('You are the legacy lab assistant.'), mode !== 'dynamic');
    assert.equal(first!.renderedContext === null, mode === 'legacy', 'shadow traces the dynamic candidate, legacy has none');
    if (mode === 'shadow') assert.ok(first!.renderedContext!.systemPrompt.includes('You are Strata.'));
    assertProviderSafe(rules, run.traces);
  });
}

test('every trace phase is filled, planProgress included; the goal is a protected run-contract section; lanes reach the model as data', async () => {
  const run = acceptanceRun({
    script: [call('plan1', 'update_plan', PLAN), calls(['n1', 'read_notes', { page: 1 }], ['a1', 'write_artifact', { name: 'table', content: 'T = 21.5 C' }]), answer('21.5 C')],
    tools: [readNotesTool, writeArtifactTool],
  });
  const result = await createAgentRun({ id: 'lab', sections: { identity: 'You are Strata.' }, laneReducers: [artifactReducer] }, run.bindings, { contextId: 'phases', prompt: 'Read the notes and report the temperature.' }).execute();
  assert.equal(result.stopReason, 'completed');
  const last = run.traces.at(-1)!;
  assert.ok(last.budget && last.collection && last.admitted && last.renderedContext && last.compaction && last.llmInput);
  assert.deepEqual(last.contributors.map((record) => record.contributorId).sort(), ['active_skills', 'artifact_state', 'delegation_state', 'deferred-tools', 'goal-snapshot', 'memory_state', 'plan_state', 'profile-sections', 'review_state'].sort());
  assert.deepEqual(last.planProgress, { toolCallId: 'plan1', anchorFound: true, laterModelSteps: 1, completedNonPlanToolResults: 2 });
  assert.equal(run.traces[0]!.planProgress, null, 'no plan before update_plan');
  // The request is still in the history, which the window keeps: no goal snapshot copies it (see the compaction test below).
  assert.ok(!last.renderedContext.sectionIds.includes('run_contract.goal'));
  assert.ok(last.llmInput.messages.some((message) => message.role === 'user' && message.content === 'Read the notes and report the temperature.'));
  assert.match(projection(last, 'plan_state')!, /1\. \[in_progress\] read the notes\n2\. \[pending\] report the temperature/);
  assert.match(projection(last, 'artifact_state')!, /"table"/);
  assert.ok(last.llmInput.messages.filter((message) => message.role === 'user' && message.content.includes('<context_message')).every((message) => message.role === 'user' && message.hidden === true && message.authority === 'data_only'));
  assertProviderSafe(rules, run.traces);
});

test('a package registers its contributor through a factory: scoped, budgeted, wrapped as data', async () => {
  const memoryFactory: ContextContributorFactory = {
    id: 'memory.context',
    create: ({ scope }) => ({ id: 'memory.snapshot', scopes: [scope], contribute: async (request) => ({ attachments: [{ id: 'memory.snapshot', source: 'memory', trust: 'trusted_data', content: `remembered for ${request.contextId}: calibrate first` }] }) }),
  };
  const run = acceptanceRun({ script: [answer('ok')] });
  await createAgentRun({ id: 'lab', contributors: [memoryFactory] }, run.bindings, { contextId: 'package', prompt: 'Hello' }).execute();
  const [trace] = run.traces;
  assert.ok(trace!.contributors.some((record) => record.contributorId === 'memory.snapshot' && record.status === 'ok'));
  assert.ok(trace!.llmInput.messages.some((message) => message.role === 'user' && /<attachment id="memory\.snapshot" source="memory" trust="trusted_data" authority="data_only">\nremembered for package: calibrate first/.test(message.content)));
  assert.ok(!systemPrompt(trace!).includes('calibrate first'), 'data never enters the system prompt');
});

test('model-facing budgets: contributed messages over the data budget are cut, the newest kept, with diagnostics', async () => {
  const run = acceptanceRun({
    script: [call('plan1', 'update_plan', { items: Array.from({ length: 40 }, (_, index) => ({ step: `measure sample ${index} twice and compare`, status: 'pending' })) }), call('m1', 'remember', { key: 'unit', value: 'celsius' }), answer('ok')],
    tools: [{ name: 'remember', description: 'Remembers a fact.', parameters: { type: 'object', properties: { key: { type: 'string' }, value: { type: 'string' } } }, execute: () => ({ content: 'remembered' }) }],
    env: { STRATA_CONTEXT_DATA_BUDGET_TOKENS: '140', STRATA_CONTEXT_CONTRIBUTED_MESSAGE_TOKENS: '100' },
  });
  await createAgentRun({ id: 'lab', laneReducers: [inputLaneReducer({ tool: 'remember', lane: 'memory', keyField: 'key' })] }, run.bindings, { contextId: 'budgets', prompt: 'Plan it.' }).execute();
  const last = run.traces.at(-1)!;
  assert.equal(last.budget!.contributedMessageTokens, 140);
  assert.equal(last.budget!.contributedMessageSizeTokens, 100);
  assert.ok(last.admitted!.diagnostics.some((diagnostic) => diagnostic.subject === 'plan_state' && diagnostic.code === 'CONTEXT_MESSAGE_TRUNCATED'));
  assert.ok(projection(last, 'memory_state')?.includes('celsius'), 'the memory lane, contributed last, is kept whole');
  assertProviderSafe(rules, run.traces);
});

test('parallel tools finishing out of order: results and lane updates in declared order', async () => {
  const fastDone = signalled();
  const slow: ToolDefinition = { ...writeArtifactTool, name: 'write_slow', execute: async (input) => (await fastDone.promise, { content: `saved ${(input as { name: string }).name}` }) };
  const fast: ToolDefinition = { ...writeArtifactTool, execute: (input) => (setImmediate(() => fastDone.resolve()), { content: `saved ${(input as { name: string }).name}` }) };
  const run = acceptanceRun({ script: [calls(['c1', 'write_slow', { name: 'first', content: 'a' }], ['c2', 'write_artifact', { name: 'second', content: 'b' }]), answer('done')], tools: [slow, fast] });
  const events: AgentEvent[] = [];
  const result = await createAgentRun({ id: 'lab', laneReducers: [artifactReducer, inputLaneReducer({ tool: 'write_slow', lane: 'artifact', keyField: 'name' })] }, run.bindings, { contextId: 'parallel', prompt: 'Save both.', onEvent: (event) => events.push(event) }).execute();
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(events.filter((event) => event.type === 'tool-call-end').map((event) => event.type === 'tool-call-end' && event.call.id), ['c2', 'c1'], 'they finished out of order');
  assert.deepEqual(events.filter((event) => event.type === 'lane-update').map((event) => event.type === 'lane-update' && event.call.id), ['c1', 'c2'], 'lanes changed in declared order');
  assert.deepEqual(result.finalMessages.filter((message) => message.role === 'tool').map((message) => message.role === 'tool' && message.toolCallId), ['c1', 'c2']);
  assert.match(projection(run.traces.at(-1)!, 'artifact_state')!, /"first"[\s\S]*"second"/);
  assertStepsWhole(result.finalMessages);
});

test('the loop guard answers repeated identical calls with a guard message, and past its bound stops the run', async () => {
  let count = 0;
  const same = () => call(`r${(count += 1)}`, 'read_notes', { page: 1 });
  const run = acceptanceRun({ script: [same(), same(), same(), same(), same(), answer('never')], tools: [readNotesTool] });
  const result = await createAgentRun({ id: 'lab' }, run.bindings, { contextId: 'loop', prompt: 'Read page 1.' }).execute();
  assert.equal(result.stopReason, 'loop-guard');
  const guarded = result.finalMessages.filter((message) => message.role === 'tool' && message.isError && message.content.includes('TOOL_CALL_REPEATED'));
  assert.equal(guarded.length, 3);
  assert.ok(result.diagnostics.some((diagnostic) => diagnostic.code === 'AGENT_LOOP_GUARD'));
  assert.equal(run.model.calls.length, 5, 'no model call after the guard stopped the run');
  assert.ok(run.traces[3]!.llmInput.messages.some((message) => message.role === 'tool' && message.content.includes('called with identical arguments')), 'the model read the guard message');
});

test('one overflow: exactly one forced retry of the same turn', async () => {
  const run = acceptanceRun({ script: [{ throws: openAIOverflowError() }, answer('fine')] });
  const events: AgentEvent[] = [];
  const result = await createAgentRun({ id: 'lab' }, run.bindings, { contextId: 'overflow', prompt: 'Hi', onEvent: (event) => events.push(event) }).execute();
  assert.equal(result.stopReason, 'completed');
  assert.equal(run.model.calls.length, 2);
  assert.deepEqual(events.filter((event) => event.type === 'overflow-recovery').length, 1);
  assert.deepEqual(run.traces.map((trace) => [trace.turn, trace.recoveryAttempt]), [[1, null], [1, 1]]);
  // The retry is traced as a recovery; its forced pass found nothing to compact in a one-message history, so it is not a compaction.
  assert.equal(run.traces[1]!.compaction.recovery?.attempt, 1);
  assert.equal(run.traces[1]!.compaction.reason, null);
});

test('abort mid-tool and the idle timeout end the run with their reasons; the step is closed as interrupted', async () => {
  const started = signalled();
  const hanging: ToolDefinition = { name: 'hang', description: 'Waits for its signal.', parameters: { type: 'object' }, execute: (_input, context) => (started.resolve(), new Promise((_resolve, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason)))) };
  const cancelled = acceptanceRun({ script: [call('h1', 'hang', {})], tools: [hanging] });
  const controller = new AbortController();
  const running = createAgentRun({ id: 'lab' }, cancelled.bindings, { contextId: 'abort', prompt: 'Wait.', signal: controller.signal }).execute();
  await started.promise;
  controller.abort(new Error('user cancelled'));
  const aborted = await running;
  assert.equal(aborted.stopReason, 'cancelled');
  assert.ok(aborted.finalMessages.some((message) => message.role === 'tool' && message.toolCallId === 'h1' && message.isError));
  assertStepsWhole(aborted.finalMessages);

  const idle = acceptanceRun({ script: [{ parts: [{ type: 'text', text: 'thinking' }, { type: 'hang' }] }] });
  const stalled = createAgentRun({ id: 'lab', idleTimeoutMs: 5_000 }, idle.bindings, { contextId: 'idle', prompt: 'Go.' }).execute();
  await settlesWithin(Promise.resolve(), 20);
  assert.ok(idle.clock.fire(5_000) >= 1);
  assert.equal((await stalled).stopReason, 'idle-timeout');
});

test('a sub-agent and a reviewer: own context ids, scopes and budgets; summaries and verdicts come back into the Delegation and Review lanes', async () => {
  const child = acceptanceRun({ script: [call('cn1', 'read_notes', { page: 2 }), answer('Page 2 says the sample was stable at 21.5 C.')], tools: [readNotesTool], env: { STRATA_CONTEXT_WINDOW_TOKENS: '16000' } });
  const reviewer = acceptanceRun({ script: [answer('```json\n{"verdict": "approve", "summary": "The table matches the notes.", "issues": []}\n```')], env: { STRATA_CONTEXT_WINDOW_TOKENS: '8000' } });
  const main = acceptanceRun({
    script: [call('d1', 'delegate', { task: 'Read page 2 of the notes and summarise it.' }), call('a1', 'write_artifact', { name: 'table', content: 'T = 21.5 C (pages 1-2)' }), call('r1', 'review', { artifacts: ['table'], criteria: 'agreement with the notes' }), answer('Reviewed: 21.5 C.')],
    tools: [writeArtifactTool, createDelegateTool({ profile: { id: 'reader' }, bindings: child.bindings }), createReviewTool({ profile: { id: 'checker', sections: { identity: 'You review artifacts.' } }, bindings: reviewer.bindings })],
  });
  const result = await createAgentRun({ id: 'lead', laneReducers: [artifactReducer] }, main.bindings, { contextId: 'team', prompt: 'Find and check the temperature.' }).execute();
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual([...new Set(child.traces.map((trace) => [trace.contextId, trace.scope].join(' ')))], ['team/subagent/d1 subagent']);
  assert.equal(child.traces[0]!.budget!.inputCapTokens, 16_000, 'the child has its own budget');
  // The child's task is its first user message; a goal attachment copies it only once compaction removes it.
  assert.ok(child.traces[0]!.llmInput.messages.some((message) => message.role === 'user' && message.content.includes('Read page 2 of the notes and summarise it.')), "the child's request is its task");
  assert.ok(!systemPrompt(child.traces[0]!).includes('Read page 2'), 'a model-written task never enters the system prompt');
  assert.deepEqual([...new Set(reviewer.traces.map((trace) => [trace.contextId, trace.scope].join(' ')))], ['team/reviewer/r1 reviewer']);
  assert.ok(JSON.stringify(reviewer.traces[0]!.llmInput.messages).includes('T = 21.5 C (pages 1-2)'), 'the reviewer read the named artifact');
  const delegated = result.finalMessages.find((message) => message.role === 'tool' && message.toolCallId === 'd1');
  assert.ok(delegated?.role === 'tool' && delegated.content === 'Page 2 says the sample was stable at 21.5 C.');
  const reviewed = result.finalMessages.find((message) => message.role === 'tool' && message.toolCallId === 'r1');
  assert.deepEqual(reviewed?.role === 'tool' && JSON.parse(reviewed.content), { artifacts: ['table'], verdict: 'approve', summary: 'The table matches the notes.', issues: [] });
  const last = main.traces.at(-1)!;
  assert.match(projection(last, 'delegation_state')!, /Page 2 says the sample was stable/);
  assert.match(projection(last, 'review_state')!, /The table matches the notes\./);
  assert.ok(!child.traces.some((trace) => projection(trace, 'delegation_state')), 'a sub-agent has no delegation lane of its own');
  assertProviderSafe(rules, [...main.traces, ...child.traces, ...reviewer.traces]);
});

test('an external wait (a sub-agent) that outlasts the run deadline does not fail the run; cancelling the parent cancels its child', async () => {
  const gate = signalled();
  const started = signalled();
  const slowTool: ToolDefinition = { name: 'slow', description: 'Waits for the test.', parameters: { type: 'object' }, execute: async (_input, context) => (started.resolve(), await Promise.race([gate.promise, new Promise((_resolve, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason)))]), { content: 'slow done' }) };
  const child = acceptanceRun({ script: [call('s1', 'slow', {}), answer('child finished')], tools: [slowTool] });
  const parent = acceptanceRun({ script: [call('d1', 'delegate', { task: 'Do the slow thing.' }), answer('parent finished')], tools: [createDelegateTool({ profile: { id: 'worker' }, bindings: child.bindings })] });
  const running = createAgentRun({ id: 'lead', runTimeoutMs: 1_000 }, parent.bindings, { contextId: 'wait', prompt: 'Delegate.' }).execute();
  await started.promise;
  assert.equal(parent.clock.fire(1_000), 0, 'the run deadline is paused while the child works');
  gate.resolve();
  assert.equal((await running).stopReason, 'completed');

  const hangingChild = acceptanceRun({ script: [call('s1', 'slow', {})], tools: [{ ...slowTool, execute: (_input, context) => (started2.resolve(), new Promise((_resolve, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason)))) }] });
  const started2 = signalled();
  const cancelling = acceptanceRun({ script: [call('d1', 'delegate', { task: 'Wait forever.' })], tools: [createDelegateTool({ profile: { id: 'worker' }, bindings: hangingChild.bindings })] });
  const controller = new AbortController();
  const cancelled = createAgentRun({ id: 'lead' }, cancelling.bindings, { contextId: 'cancel', prompt: 'Delegate.', signal: controller.signal }).execute();
  await started2.promise;
  controller.abort(new Error('user cancelled'));
  assert.equal((await cancelled).stopReason, 'cancelled');
  const childSession = await hangingChild.stores.sessions.load('cancel/subagent/d1');
  assert.ok(childSession!.messages.some((message) => message.role === 'tool' && message.toolCallId === 's1' && message.isError), "the child's step was closed as interrupted");
});

test('deferred MCP tools with a real MCP server: the model is told they exist, discovers one, calls it from the next step; routing hints pre-promote; list_changed and cleaned output reach the next call', async () => {
  const fixture = fileURLToPath(new URL('./mcp/testing/fixture-server.js', import.meta.resolve('@strata/tools')));
  const connection = await connectMcpServer({ server: { name: 'lab', transport: { type: 'stdio', command: process.execPath, args: [fixture] } } });
  try {
    const registry = new ToolRegistry();
    const refreshed = signalled();
    const stop = connection.registerTools(registry, { onToolsChanged: () => refreshed.resolve() });
    const run = acceptanceRun({
      registry,
      script: [call('s1', 'search_tools', { query: 'echo' }), call('e1', 'mcp__lab__echo', { text: 'hello' }), calls(['g1', 'mcp__lab__get_weather', { city: 'Oslo' }], ['i1', 'mcp__lab__inject', {}]), answer('done')],
    });
    const result = await createAgentRun({ id: 'lab', routingHints: [{ words: ['weather', 'injection'], tools: ['mcp__lab__get_weather', 'mcp__lab__inject'] }] }, run.bindings, { contextId: 'mcp', prompt: 'Echo hello, then the weather in Oslo and the injection test.' }).execute();
    assert.equal(result.stopReason, 'completed');
    const [first, second] = run.traces;
    assert.match(systemPrompt(first!), /<section id="tools\.deferred"[\s\S]*- mcp__lab__echo\n/, 'the model was told the tool exists');
    assert.ok(!systemPrompt(first!).includes('Echo the given text back'), "the server's description is not in the system prompt");
    assert.match(projection(first!, 'tools.deferred') ?? '', /- mcp__lab__echo: Echo the given text back/, 'it is a data message');
    assert.ok(!first!.renderedContext!.tools.includes('mcp__lab__echo'));
    assert.ok(first!.renderedContext!.tools.includes('mcp__lab__get_weather'), 'the routing hint pre-promoted it');
    assert.ok(second!.renderedContext!.tools.includes('mcp__lab__echo'), 'promoted from the next model call');
    assert.ok(result.finalMessages.some((message) => message.role === 'tool' && message.toolCallId === 'e1' && message.content === 'hello'));
    const injected = result.finalMessages.find((message) => message.role === 'tool' && message.toolCallId === 'i1');
    assert.ok(injected?.role === 'tool' && !injected.content.includes('<system-reminder>') && !injected.content.includes('</tool_output>'), 'cleaned before it was stored');
    assert.ok(result.diagnostics.some((diagnostic) => diagnostic.code === 'AGENT_REMOTE_OUTPUT_NEUTRALISED' && diagnostic.subject === 'i1'));
    assertProviderSafe(rules, run.traces);

    // The server adds a tool: the next model call's deferred section names it.
    const grow = acceptanceRun({ registry, stores: run.stores, script: [call('g2', 'mcp__lab__grow', {}), answer('grown')] });
    registry.promote(['mcp__lab__grow']);
    await createAgentRun({ id: 'lab' }, grow.bindings, { contextId: 'mcp-grow', prompt: 'Grow.' }).execute();
    await refreshed.promise;
    assert.ok(!systemPrompt(grow.traces[0]!).includes('mcp__lab__late'));
    const after = acceptanceRun({ registry, stores: run.stores, script: [answer('seen')] });
    await createAgentRun({ id: 'lab' }, after.bindings, { contextId: 'mcp-after', prompt: 'Look.' }).execute();
    assert.match(systemPrompt(after.traces[0]!), /- mcp__lab__late\n/);
    assert.match(projection(after.traces[0]!, 'tools.deferred') ?? '', /- mcp__lab__late: A tool added after connecting/);
    stop();
  } finally {
    await connection.close();
  }
});

test('past the compaction threshold a resumed history keeps its plan, goal and skill references, without duplicating the skill body', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'strata-skills-'));
  try {
    await mkdir(join(directory, 'spectra'));
    const body = Array.from({ length: 12 }, (_, index) => `Rule ${index}: calibrate the spectrometer before sample ${index}.`).join('\n');
    await writeFile(join(directory, 'spectra', 'SKILL.md'), `---\nname: spectra\ndescription: Analyse spectra.\n---\n${body}\n`);
    const catalog = await loadSkills(directory);
    const { summarizer } = scriptedSummarizer();
    const env = { STRATA_CONTEXT_WINDOW_TOKENS: '4200', STRATA_CONTEXT_DATA_BUDGET_TOKENS: '600', STRATA_CONTEXT_SUMMARY_RETRIES: '1', STRATA_CONTEXT_COMPACTION_PRESSURE_PERCENT: '80' };
    const goal = 'Analyse the spectra of samples A to F and report the strongest peak.';
    const first = acceptanceRun({ script: [call('k1', 'read_skill', { name: 'spectra' }), call('plan1', 'update_plan', PLAN), call('n1', 'read_notes', { page: 1 }), answer('Page 1 read.')], tools: [readNotesTool], env, summarizer });
    registerStandardTools({ registry: first.registry, skills: catalog });
    const profile = { id: 'lab', contributors: [skillCatalogContributorFactory({ catalog })] };
    assert.equal((await createAgentRun(profile, first.bindings, { contextId: 'long', prompt: goal }).execute()).stopReason, 'completed');

    // A new run over the stored history (lanes back-filled from it), long enough to compact the original request away.
    const script = [2, 3, 4, 5, 6, 7, 8].map((page) => call(`n${page}`, 'read_notes', { page }));
    const second = acceptanceRun({ script: [...script, call('k2', 'read_skill', { name: 'spectra' }), answer('Peak at 21.5.')], registry: first.registry, stores: first.stores, env, summarizer });
    const result = await createAgentRun(profile, second.bindings, { contextId: 'long', prompt: 'Continue with the remaining pages.' }).execute();
    assert.equal(result.stopReason, 'completed');
    assert.ok(!result.finalMessages.some((message) => message.role === 'user' && message.content === goal), 'the original request left the history');
    const lost = second.traces.find((trace) => trace.planProgress?.anchorFound === false);
    assert.ok(lost, 'a turn after compaction removed the update_plan call');
    assert.deepEqual(lost.planProgress, { toolCallId: 'plan1', anchorFound: false });
    const inHistory = (trace: (typeof second.traces)[number]) => trace.llmInput.messages.some((message) => message.role === 'user' && message.content === goal);
    assert.ok(second.traces.some((trace) => !inHistory(trace) && systemPrompt(trace).includes(goal)), 'once compacted away, the goal is in the run contract');
    for (const trace of second.traces) {
      assert.ok(inHistory(trace) || systemPrompt(trace).includes(goal), `turn ${trace.turn}: the goal is in the history or the run contract`);
      assert.ok(!(inHistory(trace) && systemPrompt(trace).includes(goal)), `turn ${trace.turn}: the goal is sent once`);
      assert.match(projection(trace, 'plan_state') ?? '', /\[in_progress\] read the notes/, `turn ${trace.turn}: the plan survives`);
      assert.ok(occurrences(trace, 'Rule 11: calibrate') <= 1, `turn ${trace.turn}: the skill body is never duplicated`);
      assert.ok(!systemPrompt(trace).includes('Rule 0: calibrate'), 'the body never enters the system prompt');
    }
    const reread = second.traces.find((trace) => projection(trace, 'active_skills')?.includes('Call read_skill for "spectra" again'));
    assert.ok(reread, 'once the body was compacted away, the model was told to read it again');
    const final = second.traces.at(-1)!;
    assert.match(projection(final, 'active_skills')!, /"spectra" \(revision sha256:[0-9a-f]{64}\): its instructions are in the conversation/);
    assert.equal(occurrences(final, 'Rule 11: calibrate'), 1);
    assert.deepEqual(result.version.skills.map((skill) => [skill.name, skill.toolCallId]), [['spectra', 'k2']]);
    assertProviderSafe(rules, [...first.traces, ...second.traces]);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('settings reach the run: window rounds trigger message-count compaction; an invalid value is an error naming the variable', async () => {
  const { summarizer, calls: summaries } = scriptedSummarizer();
  const script = [1, 2, 3, 4, 5, 6].map((page) => call(`n${page}`, 'read_notes', { page }));
  const run = acceptanceRun({ script: [...script, answer('done')], tools: [readNotesTool], env: { STRATA_CONTEXT_WINDOW_ROUNDS: '4' }, summarizer });
  const result = await createAgentRun({ id: 'lab' }, run.bindings, { contextId: 'rounds', prompt: 'Read six pages.' }).execute();
  assert.equal(result.stopReason, 'completed');
  assert.ok(run.traces.some((trace) => trace.compaction.reason === 'message-count'), 'the round trigger compacted');
  assert.ok(summaries() >= 1);
  assertProviderSafe(rules, run.traces);
  assert.throws(() => acceptanceRun({ script: [], env: { SCIENCE_AGENT_CONTEXT_WINDOW_ROUNDS: 'many' } }), /SCIENCE_AGENT_CONTEXT_WINDOW_ROUNDS must be a positive integer, got "many"/);
  assert.ok(createModelClient({ model: new ScriptedLanguageModel([]) }));
});
