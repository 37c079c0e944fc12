import { StrataError } from '@strata/context';
import type { ModelClient, ModelEvent, ModelRequest, ModelResult } from './model-client.js';

/**
 * Collects a stream of model events into one result. Throws the normalized
 * error of an `error` event, and the signal's reason of an `aborted` event.
 */
async function collectModelResult(events: AsyncIterable<ModelEvent>): Promise<ModelResult> {
  for await (const event of events) {
    if (event.type === 'finish') {
      return {
        message: event.message,
        reason: event.reason,
        ...(event.rawReason === undefined ? {} : { rawReason: event.rawReason }),
        usage: event.usage,
        warnings: event.warnings,
      };
    }
    if (event.type === 'error') throw event.error;
    if (event.type === 'aborted') throw event.reason;
  }
  throw new StrataError({ name: 'ModelStreamError', kind: 'internal', message: 'model stream ended without a finish, error or aborted event' });
}

/** One model turn, collected (`collectModelResult` over `client.stream`). */
export function generate(client: ModelClient, request: ModelRequest): Promise<ModelResult> {
  return collectModelResult(client.stream(request));
}
