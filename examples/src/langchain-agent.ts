// Strata inside a LangChain createAgent: one middleware, one extra tool. Runs with no key: the model is
// LangChain's fake chat model, which reads a long log five times. Run: npm run example
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { createStrataLangChain } from '@strata/langchain';

const readLog = tool(
  async ({ part }: { part: number }) => Array.from({ length: 200 }, (_, line) => `part ${part} line ${line}: ${line % 50 === 0 ? 'ERROR flaky test' : 'ok'}`).join('\n'),
  { name: 'read_log', description: 'Reads part of the build log.', schema: z.object({ part: z.number().int() }) },
);
const model = fakeModel();
for (let part = 1; part <= 5; part += 1) model.respond(new AIMessage({ content: '', tool_calls: [{ id: `call-${part}`, name: 'read_log', args: { part }, type: 'tool_call' }] }));
model.respond(new AIMessage('The log shows a flaky test in every part.'));

// The few lines a user adds: a budget, the middleware, and read_tool_output among the tools.
const strata = createStrataLangChain({ budget: { inputCapTokens: 8_000 } });
const agent = createAgent({ model, tools: [readLog, strata.readToolOutput], middleware: [strata.middleware], systemPrompt: 'You read build logs.' });
const result = await agent.invoke({ messages: [new HumanMessage('Read the five parts of the build log and tell me what failed.')] });

console.log(result.messages.at(-1)?.text);
for (const [index, call] of model.calls.entries()) {
  const previews = call.messages.filter((message) => message.type === 'tool' && message.text.startsWith('[stored output')).length;
  console.log(`call ${index + 1}: ${call.messages.length} messages, ${previews} tool results shown as previews`);
}
console.log(`the agent's state still holds all ${result.messages.length} messages`);
