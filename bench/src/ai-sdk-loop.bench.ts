// Strata's prepareStep beside the AI SDK's own ways of keeping a loop's input small, in one
// generateText loop: 30 model steps over real 2-9 KB tool outputs at a 24,000-token budget.
import { generateText, jsonSchema, pruneMessages, stepCountIs, tool, type ModelMessage, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createStrataAiSdk } from '@strata/ai-sdk';
import { createMemorySessionStore, createMemoryToolOutputStore, derivedToolOutputId } from '@strata/store';
import { exactTokenEstimatorFor, fromAiSdkMessages, type ToolSchema } from '@strata/context';
import { loadProviderRules, type ProviderRules } from '@strata/testing';
import { LOOP_BUDGET_TOKENS, LOOP_STEPS, LOOP_SYSTEM, LOOP_TASK, loopToolOutputs, measureLoop, type LoopRow, type MeasuredRequest } from './host-loop-measure.js';
import { table } from './measure.js';

type Prompt = MockLanguageModelV3['doGenerateCalls'][number]['prompt'];
type CallTools = MockLanguageModelV3['doGenerateCalls'][number]['tools'];

/** A model that reads one more output each step, then answers on the last. */
function scriptedModel(): MockLanguageModelV3 {
  let step = 0;
  const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };
  return new MockLanguageModelV3({
    doGenerate: async () => {
      step += 1;
      if (step >= LOOP_STEPS) return { content: [{ type: 'text', text: 'Listed.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      return {
        content: [{ type: 'text', text: `Reading output ${step}.` }, { type: 'tool-call', toolCallId: `call-${step}`, toolName: 'read_output', input: JSON.stringify({ index: step }) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
}

/** The V3 prompt in OpenAI chat shape, field by field, for the oracle. */
function asOpenAIChat(prompt: Prompt): unknown[] {
  return prompt.flatMap((message): unknown[] => {
    switch (message.role) {
      case 'system':
        return [{ role: 'system', content: message.content }];
      case 'user':
        return [{ role: 'user', content: message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('') }];
      case 'assistant': {
        const calls = message.content.flatMap((part) => (part.type === 'tool-call' ? [{ id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: JSON.stringify(part.input) } }] : []));
        return [{ role: 'assistant', content: message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(''), ...(calls.length > 0 ? { tool_calls: calls } : {}) }];
      }
      case 'tool':
        return message.content.flatMap((part) => (part.type === 'tool-result' ? [{ role: 'tool', tool_call_id: part.toolCallId, content: JSON.stringify(part.output) }] : []));
    }
  });
}

function toolSchemas(tools: CallTools): ToolSchema[] {
  return (tools ?? []).flatMap((definition) => (definition.type === 'function' ? [{ name: definition.name, description: definition.description, parameters: definition.inputSchema as Record<string, unknown> }] : []));
}

/** What the loop's `prepareStep` is given and gives back, as far as these policies use it. */
type PrepareStep = (options: { messages: ModelMessage[] }) => PromiseLike<{ messages?: ModelMessage[] }> | { messages?: ModelMessage[] };

async function runLoop(outputs: readonly string[], prepareStep: PrepareStep | undefined, extraTools: ToolSet = {}): Promise<MeasuredRequest[]> {
  const model = scriptedModel();
  const readOutput = tool({
    description: 'Reads the next tool output by its index.',
    inputSchema: jsonSchema<{ index: number }>({ type: 'object', properties: { index: { type: 'integer' } }, required: ['index'], additionalProperties: false }),
    execute: async ({ index }) => outputs[(index - 1) % outputs.length]!,
  });
  await generateText({ model, system: LOOP_SYSTEM, prompt: LOOP_TASK, tools: { read_output: readOutput, ...extraTools }, stopWhen: stepCountIs(LOOP_STEPS), prepareStep });
  return model.doGenerateCalls.map((call) => ({ canonical: fromAiSdkMessages(call.prompt), chat: asOpenAIChat(call.prompt), tools: toolSchemas(call.tools) }));
}

/**
 * The requests of one loop with Strata over stores of its own (reference ids from the call, so two loops
 * compare byte for byte): one adapter instance for the whole run, or (`freshPerCall`) a new instance for every
 * model call over the same stores, as a restarted process or another worker would make it.
 */
export async function strataRequests(outputs: readonly string[], freshPerCall: boolean, budgetTokens = LOOP_BUDGET_TOKENS): Promise<MeasuredRequest[]> {
  const stores = { outputStore: createMemoryToolOutputStore({ newId: derivedToolOutputId }), sessionStore: createMemorySessionStore() };
  const make = () => createStrataAiSdk({ budget: { inputCapTokens: budgetTokens }, exactEstimator: exactTokenEstimatorFor('o200k_base'), contextId: 'bench', system: LOOP_SYSTEM, ...stores });
  const kept = make();
  const prepareStep: typeof kept.prepareStep = freshPerCall ? (options) => make().prepareStep(options) : kept.prepareStep;
  return runLoop(outputs, prepareStep, kept.tools);
}

/** Strata's row alone: what the acceptance test checks. */
/** Strata in the SDK's loop with its defaults (`maskStoredResults` given only to measure the unmasked view beside them). */
export async function strataRow(outputs: readonly string[], rules: ProviderRules | undefined, maskStoredResults?: false): Promise<LoopRow> {
  // Exact counts for the model's tokenizer (o200k here), as a user sets for their model.
  const strata = createStrataAiSdk({ budget: { inputCapTokens: LOOP_BUDGET_TOKENS }, exactEstimator: exactTokenEstimatorFor('o200k_base'), contextId: 'bench', system: LOOP_SYSTEM , maskStoredResults });
  return measureLoop({ sdk: 'AI SDK 6', policy: 'Strata prepareStep', requests: await runLoop(outputs, strata.prepareStep, strata.tools), rules });
}

export async function run(): Promise<void> {
  const outputs = loopToolOutputs();
  const rules = await loadProviderRules();
  if (!outputs) return console.log('# skipped: ../shared is absent');
  const rows: LoopRow[] = [];
  const measure = (policy: string, requests: MeasuredRequest[]) => rows.push(measureLoop({ sdk: 'AI SDK 6', policy, requests, rules }));

  rows.push(await strataRow(outputs, rules));
  measure('none (whole history)', await runLoop(outputs, undefined));
  measure('pruneMessages in prepareStep', await runLoop(outputs, ({ messages }) => ({ messages: pruneMessages({ messages, reasoning: 'before-last-message', toolCalls: 'before-last-2-messages', emptyMessages: 'remove' }) })));
  // The docs' message-modification pattern: past 20 messages keep the last 10.
  measure('cookbook slice(-10) past 20', await runLoop(outputs, ({ messages }: { messages: ModelMessage[] }) => (messages.length > 20 ? { messages: messages.slice(-10) } : {})));
  table(rows as unknown as Array<Record<string, string | number>>);
}
