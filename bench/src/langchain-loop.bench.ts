// Strata's middleware beside LangChain's own ways of keeping an agent's input small, in one createAgent
// loop: 30 model steps over real 2-9 KB tool outputs at a 24,000-token budget.
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { ClearToolUsesEdit, contextEditingMiddleware, countTokensApproximately, createAgent, createMiddleware, summarizationMiddleware, trimMessages, type AgentMiddleware } from 'langchain';
import { z } from 'zod';
import { exactTokenEstimatorFor, type ToolSchema } from '@strata/context';
import { createStrataLangChain, importLangChainMessages } from '@strata/langchain';
import { createMemorySessionStore, createMemoryToolOutputStore, derivedToolOutputId } from '@strata/store';
import { langChainAsOpenAIChat as asOpenAIChat, loadProviderRules, type ProviderRules } from '@strata/testing';
import { LOOP_BUDGET_TOKENS, LOOP_STEPS, LOOP_SYSTEM, LOOP_TASK, loopToolOutputs, measureLoop, type LoopRow, type MeasuredRequest } from './host-loop-measure.js';
import { table } from './measure.js';

const READ_OUTPUT_SCHEMA: ToolSchema = {
  name: 'read_output',
  description: 'Reads the next tool output by its index.',
  parameters: { type: 'object', properties: { index: { type: 'integer' } }, required: ['index'], additionalProperties: false },
};


async function runLoop(outputs: readonly string[], middleware: AgentMiddleware[], extraTools: Array<ReturnType<typeof tool>> = []): Promise<MeasuredRequest[]> {
  const model = fakeModel();
  for (let step = 1; step < LOOP_STEPS; step += 1) {
    model.respond(new AIMessage({ content: `Reading output ${step}.`, tool_calls: [{ name: 'read_output', args: { index: step }, id: `call-${step}`, type: 'tool_call' }] }));
  }
  model.respond(new AIMessage('Listed.'));
  const readOutput = tool(async ({ index }: { index: number }) => outputs[(index - 1) % outputs.length]!, { name: 'read_output', description: READ_OUTPUT_SCHEMA.description!, schema: z.object({ index: z.number().int() }) });
  const agent = createAgent({ model, tools: [readOutput, ...extraTools], middleware, systemPrompt: LOOP_SYSTEM });
  await agent.invoke({ messages: [new HumanMessage(LOOP_TASK)] }, { recursionLimit: 4 * LOOP_STEPS });
  return model.calls.map((call) => {
    const messages = call.messages as BaseMessage[];
    return { canonical: importLangChainMessages(messages).map(({ message }) => message), chat: asOpenAIChat(messages), tools: [READ_OUTPUT_SCHEMA] };
  });
}

/** A chat model that always answers with the same short summary. */
function summaryModel(): ReturnType<typeof fakeModel> {
  const model = fakeModel();
  for (let call = 0; call < 4 * LOOP_STEPS; call += 1) model.respond(new AIMessage('Summary: the outputs read so far list a few failing tests and changed files.'));
  return model;
}

/** Strata's row alone: what the acceptance test checks. */
/** Strata in the SDK's loop with its defaults (`maskStoredResults` given only to measure the unmasked view beside them). */
/**
 * The requests of one loop with Strata over stores of its own (reference ids from the call, so two loops
 * compare byte for byte): one adapter instance for the whole run, or (`freshPerCall`) a new instance for every
 * model call over the same stores, as a restarted process or another worker would make it.
 */
export async function strataRequests(outputs: readonly string[], freshPerCall: boolean, budgetTokens = LOOP_BUDGET_TOKENS): Promise<MeasuredRequest[]> {
  const stores = { outputStore: createMemoryToolOutputStore({ newId: derivedToolOutputId }), sessionStore: createMemorySessionStore() };
  const make = () => createStrataLangChain({ budget: { inputCapTokens: budgetTokens }, exactEstimator: exactTokenEstimatorFor('o200k_base'), contextId: 'bench', ...stores });
  const kept = make();
  const middleware = freshPerCall ? ({ ...kept.middleware, wrapModelCall: (request: never, handler: never) => (make().middleware as { wrapModelCall: (request: never, handler: never) => unknown }).wrapModelCall(request, handler) } as unknown as AgentMiddleware) : (kept.middleware as AgentMiddleware);
  return runLoop(outputs, [middleware], [kept.readToolOutput as unknown as ReturnType<typeof tool>]);
}

export async function strataRow(outputs: readonly string[], rules: ProviderRules | undefined, maskStoredResults?: false): Promise<LoopRow> {
  const strata = createStrataLangChain({ budget: { inputCapTokens: LOOP_BUDGET_TOKENS }, exactEstimator: exactTokenEstimatorFor('o200k_base'), contextId: 'bench' , maskStoredResults });
  const requests = await runLoop(outputs, [strata.middleware as AgentMiddleware], [strata.readToolOutput as unknown as ReturnType<typeof tool>]);
  return measureLoop({ sdk: 'LangChain 1.x', policy: 'Strata middleware', requests, rules });
}

export async function run(): Promise<void> {
  const outputs = loopToolOutputs();
  const rules = await loadProviderRules();
  if (!outputs) return console.log('# skipped: ../shared is absent');
  const rows: LoopRow[] = [];
  const measure = (policy: string, requests: MeasuredRequest[]) => rows.push(measureLoop({ sdk: 'LangChain 1.x', policy, requests, rules }));

  rows.push(await strataRow(outputs, rules));
  measure('none (whole history)', await runLoop(outputs, []));
  measure('summarizationMiddleware', await runLoop(outputs, [summarizationMiddleware({ model: summaryModel(), trigger: { tokens: LOOP_BUDGET_TOKENS }, keep: { messages: 20 } }) as AgentMiddleware]));
  measure('contextEditing ClearToolUses', await runLoop(outputs, [contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: LOOP_BUDGET_TOKENS } })] }) as AgentMiddleware]));
  const trimming = createMiddleware({
    name: 'TrimMessages',
    wrapModelCall: async (request, handler) =>
      handler({ ...request, messages: await trimMessages(request.messages, { maxTokens: LOOP_BUDGET_TOKENS, strategy: 'last', startOn: 'human', tokenCounter: (messages) => countTokensApproximately(messages) }) }),
  });
  measure('trimMessages middleware', await runLoop(outputs, [trimming as AgentMiddleware]));
  table(rows as unknown as Array<Record<string, string | number>>);
}
