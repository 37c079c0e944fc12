import type { JsonValue } from './messages.js';
import type { ToolSchema } from './token-estimator.js';

/** What a tool handler receives besides its validated input. */
export interface ToolExecutionContext {
  readonly contextId: string;
  readonly toolCallId: string;
  readonly signal: AbortSignal;
}

/** A tool's answer. A failure the model should read is `isError: true`, not a throw. */
export interface ToolOutcome {
  readonly content: string;
  /**
   * For an output too large to hold: its chunks as the tool produces them
   * (any `AsyncIterable<string>`; a web `ReadableStream<string>` is one).
   * The body is then `content` followed by the chunks; it is stored as it
   * arrives and never held whole by the runtime. A stream that throws or
   * yields a non-string makes the result a tool error.
   */
  readonly stream?: AsyncIterable<string>;
  readonly isError?: boolean;
  /** Structured data for the run's state lanes; never shown to the model as-is. */
  readonly data?: JsonValue;
}

/**
 * A tool as packages declare it, without importing the tool registry
 * (`@strata/tools` registers these). `parameters` is a JSON Schema object.
 */
export interface ToolDefinition extends ToolSchema {
  /** May run in parallel with other concurrency-safe calls of the same turn. Default false. */
  readonly concurrencySafe?: boolean;
  execute(input: JsonValue, context: ToolExecutionContext): Promise<ToolOutcome> | ToolOutcome;
}
