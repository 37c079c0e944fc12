import { DBOS } from '@dbos-inc/dbos-sdk';
import type { AssistantMessage } from '@strata/context';
import type { ModelClient, ModelEvent, ModelRequest } from '@strata/model';

type FinishEvent = Extract<ModelEvent, { type: 'finish' }>;

/** What a model step records: the turn's finish (its assistant message), or that it did not finish. */
type RecordedTurn = { readonly finished: FinishEvent } | { readonly unfinished: string };

const EMPTY_ASSISTANT: AssistantMessage = { role: 'assistant', content: '' };

/**
 * The model client of a durable run: each model turn is one DBOS step (named
 * `model-turn`) whose recorded output is the turn's `finish` event, so a turn
 * replayed after a crash returns the recorded assistant message without
 * calling the model again. Events stream live while the step runs; a
 * replayed turn yields its text as one delta, then the finish.
 *
 * A turn that ended in an error or an abort records only that it did not
 * finish; replayed, it is an `aborted` event (the run stops there again).
 */
export function durableModelClient(inner: ModelClient): ModelClient {
  return {
    provider: inner.provider,
    modelId: inner.modelId,
    stream: (request) => streamAsStep(inner, request),
  };
}

async function* streamAsStep(inner: ModelClient, request: ModelRequest): AsyncIterable<ModelEvent> {
  const queue: ModelEvent[] = [];
  let wake: (() => void) | undefined;
  let live = false;
  let terminal: ModelEvent | undefined;
  const push = (event: ModelEvent) => {
    queue.push(event);
    wake?.();
  };
  const step = DBOS.runStep(
    async (): Promise<RecordedTurn> => {
      live = true;
      for await (const event of inner.stream(request)) {
        if (event.type === 'finish' || event.type === 'error' || event.type === 'aborted') {
          terminal = event;
          return event.type === 'finish' ? { finished: event } : { unfinished: event.type };
        }
        push(event);
      }
      return { unfinished: 'no terminal event' };
    },
    { name: 'model-turn' },
  );
  let settled = false;
  const done = step.then(
    (recorded) => ({ recorded }),
    (error: unknown) => ({ error }),
  ).finally(() => {
    settled = true;
    wake?.();
  });
  while (!settled || queue.length > 0) {
    if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
    while (queue.length > 0) yield queue.shift()!;
  }
  const outcome = await done;
  if ('error' in outcome) {
    yield { type: 'aborted', reason: outcome.error, timedOut: false, partial: EMPTY_ASSISTANT };
    return;
  }
  const { recorded } = outcome;
  if (live && terminal) {
    yield terminal;
  } else if ('finished' in recorded) {
    // Replayed from the checkpoint: the model is not called again.
    if (recorded.finished.message.content !== '') yield { type: 'text-delta', text: recorded.finished.message.content };
    yield recorded.finished;
  } else {
    yield { type: 'aborted', reason: new Error(`the recorded model turn did not finish (${recorded.unfinished})`), timedOut: false, partial: EMPTY_ASSISTANT };
  }
}

