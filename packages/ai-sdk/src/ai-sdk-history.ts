import { toAiSdkMessages, type CanonicalMessage } from '@strata/context';

/** A canonical message as `ModelMessage`s (one message; tool results as one tool message). */
export function toModelMessages<M>(message: CanonicalMessage): M[] {
  return toAiSdkMessages([message]) as M[];
}
