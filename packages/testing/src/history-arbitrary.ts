// fast-check generators of canonical histories for property tests (test-only).
import fc from 'fast-check';
import type { CanonicalMessage, ReasoningPart } from '@strata/context';

const words = fc.constantFrom('the', 'tool', 'result', 'context', '上下文', '工具调用', '结果', 'JSON', '{"a":1}', '42', '\n', '证据', 'window');

export const textArbitrary = (maxWords: number) => fc.array(words, { minLength: 1, maxLength: maxWords }).map((parts) => parts.join(' '));
const hugeText = fc.integer({ min: 2_000, max: 20_000 }).map((length) => '大量输出 line of tool output 123\n'.repeat(Math.ceil(length / 30)).slice(0, length));

type Step =
  | { kind: 'user'; text: string; checkpoint: boolean }
  | { kind: 'assistant'; text: string }
  | { kind: 'tools'; text: string; results: Array<{ text: string; answered: boolean }> };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('user' as const), text: textArbitrary(30), checkpoint: fc.integer({ min: 0, max: 4 }).map((value) => value === 0) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('assistant' as const), text: textArbitrary(30) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('tools' as const),
      text: fc.oneof(fc.constant(''), textArbitrary(10)),
      results: fc.array(fc.record({ text: fc.oneof({ weight: 4, arbitrary: textArbitrary(40) }, { weight: 1, arbitrary: hugeText }), answered: fc.constant(true) }), { minLength: 1, maxLength: 3 }),
    }),
  },
);

/** Provider-signed reasoning as the AI SDK providers return it: Anthropic thinking with its signature, an OpenAI Responses reasoning item. */
function signedReasoning(provider: 'anthropic' | 'openai', step: number, text: string): ReasoningPart {
  if (provider === 'anthropic') return { text: `Thinking about step ${step}: ${text}`, providerMetadata: { anthropic: { signature: `sig-${step}-${text.length}` } } };
  return { text: `Step ${step}: ${text}`, providerMetadata: { openai: { itemId: `rs_${step}`, reasoningEncryptedContent: `enc-${step}-${text.length}` } } };
}

/**
 * Histories that open with a user request and hold parallel tool calls, huge
 * tool results and CJK text; with `open`, the newest step may leave calls
 * without results. With `signed`, every assistant message carries reasoning
 * that provider signed (and its calls unique ids, as providers give).
 */
export function historyArbitrary(options: { open: boolean; maxSteps?: number; signed?: 'anthropic' | 'openai' }): fc.Arbitrary<CanonicalMessage[]> {
  const reasoning = (step: number, text: string) => (options.signed ? { reasoning: [signedReasoning(options.signed, step, text)] } : {});
  return fc
    .tuple(textArbitrary(20), fc.array(stepArbitrary, { minLength: 0, maxLength: options.maxSteps ?? 30 }), fc.integer({ min: 0, max: 2 }))
    .map(([first, steps, openCount]) => {
      const history: CanonicalMessage[] = [{ role: 'system', content: 'You are a careful research agent.' }, { role: 'user', content: first }];
      let callNumber = 0;
      steps.forEach((step, stepIndex) => {
        if (step.kind === 'user') history.push(step.checkpoint ? { role: 'user', content: `checkpoint: ${step.text}`, checkpoint: true } : { role: 'user', content: step.text });
        else if (step.kind === 'assistant') history.push({ role: 'assistant', content: step.text, ...reasoning(stepIndex, step.text) });
        else {
          const calls = step.results.map(() => ({ id: `call_${(callNumber += 1)}`, name: callNumber % 2 ? 'search' : 'read_file', input: { query: `q${callNumber}` } }));
          history.push({ role: 'assistant', content: step.text, toolCalls: calls, ...reasoning(stepIndex, step.text) });
          const isLast = stepIndex === steps.length - 1;
          const answered = options.open && isLast ? Math.max(0, calls.length - openCount) : calls.length;
          calls.slice(0, answered).forEach((call, index) => history.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content: step.results[index]!.text }));
        }
      });
      return history;
    });
}
