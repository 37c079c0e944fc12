import type { JsonValue, ToolOutcome } from '@strata/context';

/** Stable codes of the structured errors the tool layer returns to the model. */
export type ToolErrorCode =
  | 'TOOL_UNKNOWN'
  | 'TOOL_NOT_DISCOVERED'
  | 'TOOL_ARGUMENTS_NOT_JSON'
  | 'TOOL_ARGUMENTS_INVALID'
  | 'TOOL_ARGUMENTS_TOO_DEEP'
  | 'TOOL_HANDLER_FAILED'
  | 'TOOL_CALL_REPEATED'
  | 'TOOL_ABORTED'
  | 'MCP_TOOL_ERROR'
  | 'MCP_PROTOCOL_ERROR'
  | 'MCP_TIMEOUT'
  | 'MCP_CONNECTION_CLOSED'
  | 'SKILL_UNKNOWN'
  | 'SKILL_UNREADABLE'
  | 'SKILL_FILE_INVALID'
  | 'TOOL_OUTPUT_NOT_FOUND'
  | 'TOOL_OUTPUT_ARGUMENTS_INVALID'
  | 'TOOL_OUTPUT_RANGE_INVALID';

export interface ToolErrorOptions {
  /** One of `ToolErrorCode`, or a package's own stable code. */
  readonly code: ToolErrorCode | (string & {});
  readonly message: string;
  /** The tool the model called, when known. */
  readonly tool?: string;
  /** More fields for the model, e.g. validation issues; merged into the error object. */
  readonly details?: { readonly [key: string]: JsonValue };
}

/**
 * A failure the model can read and act on: `isError: true`, the content is
 * one JSON object `{"error":{"code",...,"message"}}`, and `data.error` holds
 * the same object for the run's state lanes.
 */
export function toolErrorOutcome(options: ToolErrorOptions): ToolOutcome {
  const error: { [key: string]: JsonValue } = { code: options.code };
  if (options.tool !== undefined) error['tool'] = options.tool;
  error['message'] = options.message;
  for (const [key, value] of Object.entries(options.details ?? {})) {
    if (!(key in error)) error[key] = value;
  }
  return { content: JSON.stringify({ error }), isError: true, data: { error } };
}

/** The code of an outcome made by `toolErrorOutcome`, or undefined. */
export function toolErrorCodeOf(outcome: ToolOutcome): string | undefined {
  const data = outcome.data;
  if (outcome.isError !== true || data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const error = data['error'];
  if (error === null || typeof error !== 'object' || Array.isArray(error) || error === undefined) return undefined;
  const code = error['code'];
  return typeof code === 'string' ? code : undefined;
}

/** The message of an unknown thrown value, never empty. */
export function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message === '' ? thrown.name : thrown.message;
  if (typeof thrown === 'string' && thrown !== '') return thrown;
  try {
    return JSON.stringify(thrown) ?? String(thrown);
  } catch {
    return String(thrown);
  }
}
