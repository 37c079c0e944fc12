import type { ContextDiagnostic, ContextTraceV5, ToolCall, ToolResultMessage } from '@strata/context';
import type { LaneUpdate } from './lanes/run-lanes.js';
import type { ModelFinishReason, ModelResponseMetadata, ModelUsage } from '@strata/model';

/** What a run reports as it goes. Names are noun then verb. */
export type AgentEvent =
  | { readonly type: 'turn-start'; readonly turn: number }
  | { readonly type: 'context-assembled'; readonly turn: number; readonly trace: ContextTraceV5 }
  | { readonly type: 'history-compacted'; readonly turn: number; readonly reason: string; readonly messagesBefore: number; readonly messagesAfter: number }
  | { readonly type: 'overflow-recovery'; readonly turn: number; readonly attempt: number }
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'reasoning-delta'; readonly text: string }
  /** A model call ended: its usage, and (when known) why it stopped and the provider's response id and answering model. */
  | { readonly type: 'usage'; readonly usage: ModelUsage; readonly finishReason?: ModelFinishReason; readonly response?: ModelResponseMetadata }
  | { readonly type: 'tool-call-start'; readonly call: ToolCall }
  | { readonly type: 'tool-call-end'; readonly call: ToolCall; readonly result: ToolResultMessage }
  /** A successful result changed the run's lanes; emitted in the order the calls were declared. */
  | { readonly type: 'lane-update'; readonly call: ToolCall; readonly updates: readonly LaneUpdate[] }
  | { readonly type: 'turn-end'; readonly turn: number }
  /** Something the run noticed and went on from; the same diagnostics are in the run's result. */
  | { readonly type: 'diagnostic'; readonly diagnostic: ContextDiagnostic }
  | { readonly type: 'run-end'; readonly stopReason: AgentStopReason };

/**
 * Why a run ended. `cancelled`: the caller's signal aborted it (Ctrl-C, a
 * service cancel); the step in progress is stored closed. `context-error`: the context could not be assembled (a
 * budget the must-keep history exceeds, a failing required contributor).
 * `step-refused`: the model asked for a step too large to run (too many
 * tool calls, or results that could not fit); no tool ran.
 * `loop-guard`: the model kept repeating identical calls after the guard
 * refused them. `runtime-error`: anything else that failed outside the model (a store).
 * `turn-end`: not an end but a pause at a turn boundary, for a run asked to
 * stop there (`stopAtTurnEnd`): its step is stored and the next execution goes on.
 */
export type AgentStopReason =
  | 'completed'
  | 'turn-end'
  | 'max-turns'
  | 'cancelled'
  | 'timeout'
  | 'idle-timeout'
  | 'context-overflow'
  | 'model-error'
  | 'context-error'
  | 'step-refused'
  | 'loop-guard'
  | 'runtime-error';
