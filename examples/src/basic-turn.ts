// Assembles one model turn with the default pipeline and prints what the
// model would see and why. Run: npm run example
import {
  ContextContributorRegistry,
  createContextAssembler,
  resolveContextBudget,
  resolveContextConfiguration,
  toOpenAIChat,
  type CanonicalMessage,
} from '@strata/context';

const configuration = resolveContextConfiguration({ SCIENCE_AGENT_CONTEXT_WINDOW_TOKENS: '600', ...process.env });

const registry = new ContextContributorRegistry();
registry.register({
  id: 'identity',
  scopes: ['main'],
  required: true,
  contribute: () => ({ sections: [{ id: 'identity.core', slot: 'identity', content: 'You are a careful research agent.' }] }),
});
registry.register({
  id: 'memory',
  scopes: ['main'],
  contribute: () => ({ attachments: [{ id: 'memory.snapshot', source: 'memory', trust: 'untrusted_data', content: 'The user prefers answers in Chinese.' }] }),
});

const history: CanonicalMessage[] = [
  { role: 'user', content: '帮我查一下 2025 年关于上下文压缩的论文。' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'search', input: { query: 'context compaction 2025' } }] },
  { role: 'tool', toolCallId: 'call_1', toolName: 'search', content: 'Result: "The Complexity Trap" (Lindenbauer et al., 2025): observation masking halves cost.\n'.repeat(12) },
  { role: 'assistant', content: '找到了：The Complexity Trap（2025）。' },
  { role: 'user', content: '它的主要结论是什么？' },
];

const assembler = createContextAssembler({ registry, budget: resolveContextBudget(configuration), mode: configuration.mode, configuration });
const turn = await assembler.assemble({
  contextId: 'example',
  turn: 1,
  history,
  tools: [{ name: 'search', description: 'Searches papers.', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } }],
});

console.log(`mode ${turn.trace.mode}, input cap ${turn.trace.budget?.inputCapTokens} tokens, used ${turn.trace.budget?.totalTokens}`);
console.log('window:', JSON.stringify(turn.trace.renderedContext?.window));
for (const diagnostic of turn.trace.diagnostics) console.log(`diagnostic ${diagnostic.code}: ${diagnostic.message}`);
console.log('\nmodel input (OpenAI chat shape):');
console.log(JSON.stringify(toOpenAIChat(turn.input.messages), null, 2));
