import { CredentialStreamRedactor, mergeRedactions, redactCredentials, redactCredentialsDeep, type AssistantMessage, type CredentialRedaction, type CredentialVault } from '@strata/context';
import type { ModelClient, ModelEvent } from './model-client.js';

export interface RedactingModelClientOptions {
  /** Numbers the markers (and remembers the values) for the run. Default: none, plain markers. */
  readonly vault?: CredentialVault;
  /**
   * Puts the vault's values back into each request before the provider sees
   * it: for agents that must handle keys (`redactToolOutputs: false`). The
   * history, stores and traces keep the markers either way. Default false.
   */
  readonly restoreRequests?: boolean;
  /** Told, once per turn that had any, what the model's output carried (kinds and counts, never a value). */
  readonly onRedacted?: (redactions: readonly CredentialRedaction[]) => void;
}

/**
 * A model client whose output holds no credential the redaction recognizes:
 * text and reasoning deltas pass through a stream redactor (released a word
 * at a time, a line when it holds a credential's context; a held-back delta
 * still arrives, empty; the rest is flushed before the turn's last event), tool-call arguments and
 * the finished assistant message are redacted whole, and a failure's message
 * and stack are redacted, before anything (an event, the history, a DBOS
 * step, a trace) holds them. Wrapping twice changes nothing (the redaction
 * is idempotent).
 */
export function redactingModelClient(inner: ModelClient, options: RedactingModelClientOptions = {}): ModelClient {
  return {
    provider: inner.provider,
    modelId: inner.modelId,
    stream: (request) => redactTurn(inner.stream(options.restoreRequests === true && options.vault !== undefined ? { ...request, messages: options.vault.restoreDeep(request.messages) } : request), options),
  };
}

async function* redactTurn(events: AsyncIterable<ModelEvent>, options: RedactingModelClientOptions): AsyncIterable<ModelEvent> {
  const redaction = { vault: options.vault };
  const text = new CredentialStreamRedactor({ ...redaction, release: 'word' });
  const reasoning = new CredentialStreamRedactor({ ...redaction, release: 'word' });
  const found: (readonly CredentialRedaction[])[] = [];
  const flush = function* (): Generator<ModelEvent> {
    const restText = text.end();
    if (restText !== '') yield { type: 'text-delta', text: restText };
    const restReasoning = reasoning.end();
    if (restReasoning !== '') yield { type: 'reasoning-delta', text: restReasoning };
  };
  for await (const event of events) {
    switch (event.type) {
      // A delta whose text is held back is still reported (empty), so listeners and the idle timeout see the stream move.
      case 'text-delta':
        yield { type: 'text-delta', text: text.push(event.text) };
        break;
      case 'reasoning-delta':
        yield { type: 'reasoning-delta', text: reasoning.push(event.text) };
        break;
      case 'tool-call': {
        const input = redactCredentialsDeep(event.toolCall.input, redaction);
        yield input.value === event.toolCall.input ? event : { ...event, toolCall: { ...event.toolCall, input: input.value } };
        break;
      }
      case 'finish': {
        yield* flush();
        const message = redactMessage(event.message, redaction, found);
        report(found, options);
        yield message === event.message ? event : { ...event, message };
        return;
      }
      case 'error':
      case 'aborted': {
        yield* flush();
        const partial = redactMessage(event.partial, redaction, found);
        report(found, options);
        if (event.type === 'error') yield { ...event, error: redactError(event.error, found), partial };
        else yield { ...event, reason: redactError(event.reason, found), partial };
        return;
      }
      case 'retry':
        yield { ...event, error: redactError(event.error) };
        break;
      default:
        yield event;
    }
  }
  yield* flush();
}

function report(found: readonly (readonly CredentialRedaction[])[], options: RedactingModelClientOptions): void {
  if (found.length > 0) options.onRedacted?.(mergeRedactions(...found));
}

/** The message with its text, reasoning and tool-call arguments redacted; the same object when it was clean. */
function redactMessage(message: AssistantMessage, redaction: { vault?: CredentialVault }, found: (readonly CredentialRedaction[])[]): AssistantMessage {
  const fields = redactCredentialsDeep({ content: message.content, reasoning: message.reasoning?.map((part) => part.text), inputs: message.toolCalls?.map((call) => call.input) }, redaction);
  if (fields.redactions.length === 0) return message;
  found.push(fields.redactions);
  const { content, reasoning, inputs } = fields.value;
  return {
    ...message,
    content,
    ...(message.reasoning === undefined ? {} : { reasoning: message.reasoning.map((part, index) => ({ ...part, text: reasoning![index]! })) }),
    ...(message.toolCalls === undefined ? {} : { toolCalls: message.toolCalls.map((call, index) => ({ ...call, input: inputs![index]! })) }),
  };
}

/**
 * An error's message and stack redacted in place (its class and fields stay,
 * so markers such as `ContextOverflowError.isInstance` still hold). What is
 * not an error passes unchanged.
 */
export function redactError<T>(error: T, found: (readonly CredentialRedaction[])[] = [], depth = 0): T {
  if (!(error instanceof Error) || depth > 8) return error;
  const message = redactCredentials(error.message);
  const stack = typeof error.stack === 'string' ? redactCredentials(error.stack) : undefined;
  if (message.redactions.length > 0) {
    found.push(message.redactions);
    error.message = message.text;
  }
  if (stack !== undefined && stack.redactions.length > 0) error.stack = stack.text;
  if (error.cause !== undefined) redactError(error.cause, found, depth + 1);
  return error;
}
