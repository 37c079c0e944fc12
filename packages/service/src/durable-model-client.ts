import { DBOS } from '@dbos-inc/dbos-sdk';
import { describeRedactions, type AssistantMessage, type ContextDiagnostic } from '@strata/context';
import { redactingModelClient, type ModelClient, type ModelEvent, type ModelRequest } from '@strata/model';
import type { ActiveTime } from './active-time.js';
import { StepFailureError } from './errors/step-failure-error.js';

type FinishEvent = Extract<ModelEvent, { type: 'finish' }>;

/** What a model step records: the turn's finish (its assistant message), or that it did not finish; and the run's active time then. */
type RecordedTurn = ({ readonly finished: FinishEvent } | { readonly unfinished: string }) & { readonly activeMs: number };

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
 *
 * The step records the run's active time as it ends; a replayed turn moves
 * the run's clock to it before its events, so a turn that ran past the run
 * deadline times out again on replay.
 *
 * DBOS keeps the step's output: the model's output is redacted inside the
 * step (`redactingModelClient`), so neither the recorded finish nor a live
 * event holds a credential, and a throw leaves the step as a
 * `StepFailureError` whose message and stack are redacted. `onDiagnostic`
 * hears what a live turn's output carried (kinds and counts, never a value).
 */
export function durableModelClient(inner: ModelClient, activeTime: ActiveTime, onDiagnostic?: (diagnostic: ContextDiagnostic) => void): ModelClient {
  const redacting = redactingModelClient(inner, {
    onRedacted: (redactions) => onDiagnostic?.({ code: 'AGENT_CREDENTIALS_REDACTED', severity: 'warning', subject: 'model-turn', message: `the model's output carried credentials (${describeRedactions(redactions)}); they were redacted before the step recorded it` }),
  });
  return {
    provider: inner.provider,
    modelId: inner.modelId,
    stream: (request) => streamAsStep(redacting, request, activeTime),
  };
}

async function* streamAsStep(inner: ModelClient, request: ModelRequest, activeTime: ActiveTime): AsyncIterable<ModelEvent> {
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
      try {
        for await (const event of inner.stream(request)) {
          if (event.type === 'finish' || event.type === 'error' || event.type === 'aborted') {
            terminal = event;
            return event.type === 'finish' ? { finished: event, activeMs: activeTime.read() } : { unfinished: event.type, activeMs: activeTime.read() };
          }
          push(event);
        }
      } catch (thrown) {
        throw new StepFailureError({ step: 'model-turn', thrown });
      }
      return { unfinished: 'no terminal event', activeMs: activeTime.read() };
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
  activeTime.advanceTo(recorded.activeMs);
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

