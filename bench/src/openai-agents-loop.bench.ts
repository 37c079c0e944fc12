// Strata's callModelInputFilter in an OpenAI Agents SDK run, beside the run without a filter (the SDK
// has no local policy of its own): 30 model steps over real 2-9 KB tool outputs at a 24,000-token budget.
import { Agent, Runner, Usage, setTracingDisabled, tool, type AgentInputItem, type CallModelInputFilter, type Model, type ModelRequest, type ModelResponse } from '@openai/agents-core';
import { exactTokenEstimatorFor, type ToolSchema } from '@strata/context';
import { createStrataOpenAIAgents, importAgentItems } from '@strata/openai-agents';
import { createMemorySessionStore, createMemoryToolOutputStore, derivedToolOutputId } from '@strata/store';
import { loadProviderRules, type ProviderRules } from '@strata/testing';
import { LOOP_BUDGET_TOKENS, LOOP_STEPS, LOOP_SYSTEM, LOOP_TASK, loopToolOutputs, measureLoop, type LoopRow, type MeasuredRequest } from './host-loop-measure.js';
import { table } from './measure.js';

const READ_OUTPUT_SCHEMA: ToolSchema = {
  name: 'read_output',
  description: 'Reads the next tool output by its index.',
  parameters: { type: 'object', properties: { index: { type: 'integer' } }, required: ['index'], additionalProperties: false },
};

/** A fake `Model`: one `read_output` call per step, an answer on the last; records every request. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const step = this.requests.length;
    const usage = new Usage();
    if (step >= LOOP_STEPS) return { usage, output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Listed.' }] }] };
    return {
      usage,
      output: [
        { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `Reading output ${step}.` }] },
        { type: 'function_call', callId: `call-${step}`, name: 'read_output', arguments: JSON.stringify({ index: step }), status: 'completed' },
      ],
    };
  }
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed in this benchmark');
  }
}

/** Instructions and items in OpenAI chat shape, for the oracle: consecutive assistant items are one message. */
function asOpenAIChat(instructions: string | undefined, items: readonly AgentInputItem[]): unknown[] {
  const out: Array<Record<string, unknown>> = instructions ? [{ role: 'system', content: instructions }] : [];
  let open: Record<string, unknown> | undefined;
  for (const item of items) {
    const fields = item as Record<string, unknown>;
    const type = fields.type ?? 'message';
    if (type === 'function_call' || (type === 'message' && fields.role === 'assistant')) {
      if (!open) out.push((open = { role: 'assistant', content: '' }));
      if (type === 'function_call') open.tool_calls = [...((open.tool_calls as unknown[]) ?? []), { id: fields.callId, type: 'function', function: { name: fields.name, arguments: fields.arguments } }];
      else open.content = `${open.content}${(fields.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('')}`;
      continue;
    }
    open = undefined;
    if (type === 'function_call_result') out.push({ role: 'tool', tool_call_id: fields.callId, content: typeof fields.output === 'string' ? fields.output : JSON.stringify(fields.output) });
    else out.push({ role: fields.role ?? `unknown:${String(type)}`, content: typeof fields.content === 'string' ? fields.content : JSON.stringify(fields.content) });
  }
  return out;
}

async function runLoop(outputs: readonly string[], callModelInputFilter: CallModelInputFilter | undefined, extraTools: ReturnType<typeof tool>[] = []): Promise<MeasuredRequest[]> {
  const model = new ScriptedModel();
  const readOutput = tool({ ...READ_OUTPUT_SCHEMA, description: READ_OUTPUT_SCHEMA.description!, parameters: READ_OUTPUT_SCHEMA.parameters as never, strict: true, execute: async (input) => outputs[((input as { index: number }).index - 1) % outputs.length]! });
  const agent = new Agent({ name: 'reader', instructions: LOOP_SYSTEM, model, tools: [readOutput, ...extraTools] });
  await new Runner({ callModelInputFilter }).run(agent, LOOP_TASK, { maxTurns: LOOP_STEPS + 5 });
  return model.requests.map((request) => {
    const items = typeof request.input === 'string' ? [{ role: 'user', content: request.input } as AgentInputItem] : request.input;
    const system = request.systemInstructions ? [{ role: 'system' as const, content: request.systemInstructions }] : [];
    return { canonical: [...system, ...importAgentItems(items).map(({ message }) => message)], chat: asOpenAIChat(request.systemInstructions, items), tools: [READ_OUTPUT_SCHEMA] };
  });
}

/**
 * The requests of one loop with Strata over stores of its own (reference ids from the call, so two loops
 * compare byte for byte): one adapter instance for the whole run, or (`freshPerCall`) a new instance for every
 * model call over the same stores, as a restarted process or another worker would make it.
 */
export async function strataRequests(outputs: readonly string[], freshPerCall: boolean, budgetTokens = LOOP_BUDGET_TOKENS): Promise<MeasuredRequest[]> {
  setTracingDisabled(true);
  const stores = { outputStore: createMemoryToolOutputStore({ newId: derivedToolOutputId }), sessionStore: createMemorySessionStore() };
  const make = () => createStrataOpenAIAgents({ budget: { inputCapTokens: budgetTokens }, exactEstimator: exactTokenEstimatorFor('o200k_base'), contextId: 'bench', tools: [READ_OUTPUT_SCHEMA], ...stores });
  const kept = make();
  const filter: CallModelInputFilter = freshPerCall ? (args) => make().callModelInputFilter(args) : kept.callModelInputFilter;
  return runLoop(outputs, filter, [kept.readToolOutput]);
}

/** Strata's row alone: what the acceptance test checks. */
/** Strata in the SDK's loop with its defaults (`maskStoredResults` given only to measure the unmasked view beside them). */
export async function strataRow(outputs: readonly string[], rules: ProviderRules | undefined, maskStoredResults?: false): Promise<LoopRow> {
  setTracingDisabled(true);
  const strata = createStrataOpenAIAgents({ budget: { inputCapTokens: LOOP_BUDGET_TOKENS }, exactEstimator: exactTokenEstimatorFor('o200k_base'), contextId: 'bench', tools: [READ_OUTPUT_SCHEMA] , maskStoredResults });
  return measureLoop({ sdk: 'OpenAI Agents 0.14', policy: 'Strata callModelInputFilter', requests: await runLoop(outputs, strata.callModelInputFilter, [strata.readToolOutput]), rules });
}

export async function run(): Promise<void> {
  setTracingDisabled(true);
  const outputs = loopToolOutputs();
  const rules = await loadProviderRules();
  if (!outputs) return console.log('# skipped: ../shared is absent');
  const rows: LoopRow[] = [];
  const measure = (policy: string, requests: MeasuredRequest[]) => rows.push(measureLoop({ sdk: 'OpenAI Agents 0.14', policy, requests, rules }));
  rows.push(await strataRow(outputs, rules));
  measure('none (whole history)', await runLoop(outputs, undefined));
  table(rows as unknown as Array<Record<string, string | number>>);
}
