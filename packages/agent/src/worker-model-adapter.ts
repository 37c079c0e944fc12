import type { CanonicalMessage } from '@strata/context';
import type { WorkerModel } from '@strata/blackboard';
import { generate, type ModelClient } from '@strata/model';

/**
 * `run_worker`'s model port over a model client. The worker prompt goes as
 * it was assembled: system messages stay inline in their documented order.
 * A provider failure throws, so `run_worker` writes nothing.
 */
export function workerModelFromClient(client: ModelClient): WorkerModel {
  return {
    async generate(request) {
      const messages: CanonicalMessage[] = request.messages.map((message) =>
        message.role === 'assistant' ? { role: 'assistant', content: message.content } : message.role === 'system' ? { role: 'system', content: message.content } : { role: 'user', content: message.content },
      );
      const { generation } = request;
      const result = await generate(client, {
        messages,
        signal: request.signal,
        ...(generation.maxOutputTokens === undefined ? {} : { maxOutputTokens: generation.maxOutputTokens }),
        ...(generation.temperature === undefined ? {} : { temperature: generation.temperature }),
      });
      return { text: result.message.content };
    },
  };
}
