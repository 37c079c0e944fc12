import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { modelClientConformance } from './model-client-conformance.js';
import { ScriptedLanguageModel, scriptedStreamParts } from './scripted-language-model.js';
import type { ScriptedTurn } from './scripted-language-model.js';

modelClientConformance({
  name: 'ScriptedLanguageModel',
  createModel(script, options) {
    const model = new ScriptedLanguageModel(script, options?.provider === undefined ? {} : { provider: options.provider });
    return { model, calls: () => model.calls };
  },
});

/**
 * The same script served by the AI SDK's own mock: parts come from a plain
 * pull stream that ignores the abort signal (as a slow provider might), and a
 * `hang` part is a read that never resolves, so the adapter's own abort
 * handling is what ends the turn.
 */
modelClientConformance({
  name: 'MockLanguageModelV3',
  createModel(script, options) {
    let index = 0;
    const model = new MockLanguageModelV3({
      provider: options?.provider ?? 'mock',
      modelId: 'mock-model',
      doStream: async () => {
        const turn: ScriptedTurn | undefined = script[index];
        index += 1;
        if (turn === undefined) throw new Error('no scripted turn');
        if (turn.throws !== undefined) throw turn.throws;
        return { stream: streamWithHang(turn) };
      },
    });
    return { model, calls: () => model.doStreamCalls };
  },
});

function streamWithHang(turn: ScriptedTurn): ReadableStream<LanguageModelV3StreamPart> {
  const hangAt = (turn.parts ?? []).findIndex((part) => part.type === 'hang');
  const parts = hangAt < 0 ? scriptedStreamParts(turn) : scriptedStreamParts({ ...turn, parts: (turn.parts ?? []).slice(0, hangAt) }).slice(0, -1);
  let position = 0;
  return new ReadableStream({
    pull(controller) {
      const part = parts[position];
      position += 1;
      if (part !== undefined) controller.enqueue(part);
      else if (hangAt >= 0) return new Promise<void>(() => undefined);
      else controller.close();
      return undefined;
    },
  });
}
