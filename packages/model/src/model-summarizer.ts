import type { CanonicalHistory, CanonicalMessage, Summarizer, SummarizeRequest } from '@strata/context';
import { generate } from './generate.js';
import type { ModelClient } from './model-client.js';

export interface ModelSummarizerOptions {
  readonly client: ModelClient;
  /** Cap on the checkpoint's length. Default 4,096 tokens. */
  readonly maxOutputTokens?: number;
}

const SUMMARIZER_DEFAULTS = Object.freeze({ maxOutputTokens: 4_096 });

/**
 * The `Summarizer` port over a model client: the instructions are the system
 * prompt and the transcript one user message of plain text
 * (`renderTranscript`), with no tools, so a transcript full of tool calls
 * needs no tool definitions. Provider failures are thrown as the normalized
 * errors (a `ContextOverflowError` when the transcript itself is too long).
 */
export function createModelSummarizer(options: ModelSummarizerOptions): Summarizer {
  const { client, maxOutputTokens = SUMMARIZER_DEFAULTS.maxOutputTokens } = options;
  return {
    async summarize(request: SummarizeRequest): Promise<string> {
      const result = await generate(client, {
        system: request.instructions,
        messages: [{ role: 'user', content: renderTranscript(request.transcript) }],
        maxOutputTokens,
        signal: request.signal,
      });
      return result.message.content;
    },
  };
}

/**
 * A transcript as plain text, one block per message under a bracketed
 * header; tool calls with their JSON input, tool results with their call id
 * and error flag. Reasoning is left out. Same history, same text.
 */
export function renderTranscript(transcript: CanonicalHistory): string {
  return transcript.map(renderMessage).join('\n\n');
}

function renderMessage(message: CanonicalMessage): string {
  switch (message.role) {
    case 'system':
    case 'user':
      return `[${message.role}]\n${message.content}`;
    case 'assistant': {
      const calls = (message.toolCalls ?? []).map(
        (call) => `(tool call ${call.name} id=${call.id} input=${typeof call.input === 'string' ? call.input : JSON.stringify(call.input)})`,
      );
      return ['[assistant]', ...(message.content.length === 0 ? [] : [message.content]), ...calls].join('\n');
    }
    case 'tool':
      return `[tool result ${message.toolName} id=${message.toolCallId}${message.isError === true ? ' error' : ''}]\n${message.content}`;
  }
}
