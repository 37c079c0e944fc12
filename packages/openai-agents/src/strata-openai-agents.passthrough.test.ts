import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, Runner, Usage, setTracingDisabled, tool, type AgentInputItem, type Model, type ModelRequest, type ModelResponse } from '@openai/agents-core';
import type { ContextTraceV5, TraceSink } from '@strata/context';
import { agentItemsAsOpenAIChat, loadProviderRules } from '@strata/testing';
import { importAgentItems } from './agents-history.js';
import { createStrataOpenAIAgents } from './strata-openai-agents.js';

setTracingDisabled(true);

/** A web search the provider ran (as the Responses API reports it), in the SDK's item shape. */
const WEB_SEARCH: AgentInputItem = { type: 'hosted_tool_call', id: 'ws_1', name: 'web_search_call', status: 'completed', providerData: { type: 'web_search_call', id: 'ws_1', action: { type: 'search', query: 'late shipments policy' } } } as AgentInputItem;
const FILE_SEARCH: AgentInputItem = { type: 'hosted_tool_call', id: 'fs_1', name: 'file_search_call', status: 'completed', output: 'policy.pdf: shipments later than 5 days are late', providerData: { type: 'file_search_call', id: 'fs_1', queries: ['late'] } } as AgentInputItem;
const CODE: AgentInputItem = { type: 'hosted_tool_call', id: 'ci_1', name: 'code_interpreter_call', status: 'completed', arguments: 'print(7 * 2)', output: '14', providerData: { type: 'code_interpreter_call', id: 'ci_1', container_id: 'cntr_1' } } as AgentInputItem;
const MCP: AgentInputItem = { type: 'hosted_tool_call', id: 'mcp_1', name: 'lookup', status: 'completed', arguments: '{"id":7}', output: 'record 7: late', providerData: { type: 'mcp_call', id: 'mcp_1', server_label: 'records' } } as AgentInputItem;
const COMPUTER: AgentInputItem = { type: 'computer_call', callId: 'cu_1', id: 'cu_1', status: 'completed', action: { type: 'screenshot' } } as AgentInputItem;
const SCREENSHOT: AgentInputItem = { type: 'computer_call_result', callId: 'cu_1', output: { type: 'computer_screenshot', data: `data:image/png;base64,${Buffer.alloc(30_000, 7).toString('base64')}` } } as AgentInputItem;
/** An earlier exchange: hosted calls and a computer action between the user's question and the answer. */
const EARLIER: AgentInputItem[] = [
  { role: 'user', content: 'What counts as late?' },
  WEB_SEARCH,
  FILE_SEARCH,
  COMPUTER,
  SCREENSHOT,
  { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Later than 5 days.' }] },
];
/** The task, with an image and a file given by provider file id. */
const TASK: AgentInputItem = { role: 'user', content: [{ type: 'input_text', text: 'Audit record 7 with this scan, then hand over to the writer.' }, { type: 'input_image', image: { id: 'file-scan7' } }, { type: 'input_file', file: { id: 'file-policy' } }] } as AgentInputItem;

/** Auditor: a code interpreter run and a tool call, an MCP call, then the handoff; the writer answers. */
class HandingOverModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly log: ModelRequest[]) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    this.log.push(request);
    const usage = new Usage({ requests: 1, inputTokens: 100 * this.log.length, outputTokens: 5, totalTokens: 100 * this.log.length + 5 });
    const step = this.requests.length;
    if (this.requests[0]!.systemInstructions === 'You write reports.') return { usage, output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Report: record 7 is late.' }] }] };
    if (step === 1) return { usage, output: [CODE as never, { type: 'function_call', callId: 'call-1', name: 'fetch_record', arguments: '{"id":7}', status: 'completed' }] };
    if (step === 2) return { usage, output: [MCP as never, { type: 'function_call', callId: 'call-2', name: 'transfer_to_writer', arguments: '{}', status: 'completed' }] };
    throw new Error(`the auditor was called ${step} times`);
  }
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed in this test');
  }
}

test('OpenAI Agents: hosted-tool items, computer actions, a handoff and file-id media pass through unchanged; the run ends with its answer, one trace per call with its usage', async () => {
  const rules = await loadProviderRules();
  const documents: ContextTraceV5[] = [];
  const traceSink: TraceSink = { async write(document) { documents.push(document.body as ContextTraceV5); } };
  const strata = createStrataOpenAIAgents({ budget: { inputCapTokens: 60_000 }, traceSink });
  const log: ModelRequest[] = [];
  const writer = new Agent({ name: 'writer', instructions: 'You write reports.', model: new HandingOverModel(log) });
  const fetchRecord = tool({
    name: 'fetch_record',
    description: 'Fetches one record by id.',
    parameters: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'], additionalProperties: false },
    strict: true,
    execute: async () => 'record 7: shipped 9 days after the order',
  });
  const auditor = new Agent({ name: 'auditor', instructions: 'You audit records.', model: new HandingOverModel(log), tools: [fetchRecord, strata.readToolOutput], handoffs: [writer] });
  const result = await new Runner({ callModelInputFilter: strata.callModelInputFilter }).run(auditor, [...EARLIER, TASK], { maxTurns: 6 });
  await strata.settled();

  assert.equal(result.finalOutput, 'Report: record 7 is late.');
  assert.equal(result.lastAgent?.name, 'writer');
  assert.equal(log.length, 3);
  const sent = log.map((request) => (request.input as AgentInputItem[]).map((item) => JSON.stringify(item)));
  const mustKeep = [...EARLIER, TASK].map((item) => JSON.stringify(item));
  for (const [index, items] of sent.entries()) {
    // The earlier exchange and the task reach every call as they were given, in order.
    assert.deepEqual(items.filter((item) => mustKeep.includes(item)), mustKeep, `request ${index + 1}: the given items unchanged`);
    if (rules) {
      // Provider-side items (hosted calls, computer actions) have no chat form: the oracle judges the rest.
      const chat = agentItemsAsOpenAIChat(log[index]!.systemInstructions, log[index]!.input as AgentInputItem[], { providerItems: 'skip' });
      assert.deepEqual(rules.violations(chat, 'openai'), [], `request ${index + 1} (openai)`);
      assert.deepEqual(rules.violations(chat, 'anthropic'), [], `request ${index + 1} (anthropic)`);
    }
  }
  // The model's own hosted calls come back on the next call, and the handoff's call and result reach the writer.
  assert.ok(sent[1]!.some((item) => item.includes('"code_interpreter_call"')), 'the code interpreter call is sent back');
  assert.ok(sent[2]!.some((item) => item.includes('"mcp_call"')), 'the MCP call is sent back');
  const handoff = (log[2]!.input as AgentInputItem[]).filter((item) => (item.type === 'function_call' || item.type === 'function_call_result') && item.callId === 'call-2');
  assert.deepEqual(handoff.map((item) => item.type), ['function_call', 'function_call_result'], 'the handoff reaches the writer as a call and its result');
  // One trace per call, each with the provider's count of that call beside ours (the last fed back at agent_end).
  assert.equal(documents.length, 3);
  assert.deepEqual(documents.map((trace) => trace.modelCall?.usage?.inputTokens), [100, 200, 300]);
  // The screenshot is charged as an image marker, not as 40,000 characters of base64 (the file by id is charged
  // as a file of unknown size, 32,000 tokens, the rule for a file given by URL).
  assert.ok(documents[0]!.budget!.totalTokens < 36_000, `charged ${documents[0]!.budget!.totalTokens}`);
});

test('OpenAI Agents: a computer or shell output that follows its step\'s function results travels in its call\'s turn, so no window keeps it without its call', async () => {
  const shell: AgentInputItem = { type: 'shell_call', callId: 'sh_1', status: 'completed', action: { commands: ['ls'] } } as AgentInputItem;
  const shellOutput: AgentInputItem = { type: 'shell_call_output', callId: 'sh_1', output: [{ stdout: 'a\nb', stderr: '', outcome: { type: 'exit', exitCode: 0 } }] } as AgentInputItem;
  const step = (index: number): AgentInputItem[] => [
    { type: 'function_call', callId: `fn-${index}`, name: 'fetch_record', arguments: `{"id":${index}}`, status: 'completed' },
    { ...COMPUTER, callId: `cu-${index}`, id: `cu-${index}` } as AgentInputItem,
    { ...shell, callId: `sh-${index}` } as AgentInputItem,
    // As the SDK appends a step's results: the function's first, then the computer's and the shell's.
    { type: 'function_call_result', callId: `fn-${index}`, name: 'fetch_record', status: 'completed', output: { type: 'text', text: `record ${index}: ${'x'.repeat(3_000)}` } } as AgentInputItem,
    { ...SCREENSHOT, callId: `cu-${index}` } as AgentInputItem,
    { ...shellOutput, callId: `sh-${index}` } as AgentInputItem,
  ];
  const items: AgentInputItem[] = [{ role: 'user', content: 'Audit every record.' }, ...Array.from({ length: 12 }, (_, index) => step(index)).flat()];
  const imported = importAgentItems(items);
  for (const [at, { message, origin }] of imported.entries()) {
    if (message.role !== 'assistant') continue;
    const types = (origin ?? []).map((item) => (item as { type?: string }).type);
    assert.deepEqual(types, ['function_call', 'computer_call', 'shell_call', 'computer_call_result', 'shell_call_output'], `turn ${at} holds its calls and their outputs`);
  }
  // Through the filter at a window that keeps a few steps: every passed-through output sent has its call before it.
  const strata = createStrataOpenAIAgents({ budget: { inputCapTokens: 6_000 }, contextId: 'split-outputs' });
  const { input } = await strata.callModelInputFilter({ modelData: { input: items, instructions: 'You audit.' }, agent: new Agent({ name: 'auditor' }), context: {} } as never);
  const called = new Set<unknown>();
  let outputs = 0;
  for (const item of input as Array<{ type?: string; callId?: unknown }>) {
    if (item.type === 'computer_call' || item.type === 'shell_call' || item.type === 'function_call') called.add(item.callId);
    if (item.type === 'computer_call_result' || item.type === 'shell_call_output' || item.type === 'function_call_result') {
      outputs += 1;
      assert.ok(called.has(item.callId), `${item.type} ${String(item.callId)} is sent after its call`);
    }
  }
  assert.ok(outputs > 0 && input.length < items.length, 'the window cut the history and kept some outputs');
});
