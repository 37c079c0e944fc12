import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.McpConnectionError');

export type McpConnectionErrorCode = 'MCP_SERVER_NAME_INVALID' | 'MCP_CONNECT_FAILED' | 'MCP_LIST_TOOLS_FAILED';

/**
 * An MCP server could not be reached or listed. `server` names it. A failed
 * tool call is never this error: it is a structured tool result.
 */
export class McpConnectionError extends StrataError {
  readonly [MARKER] = true;
  readonly code: McpConnectionErrorCode;
  readonly server: string;

  constructor(options: { code: McpConnectionErrorCode; server: string; message: string; cause?: unknown }) {
    super({ name: 'McpConnectionError', kind: options.code === 'MCP_SERVER_NAME_INVALID' ? 'configuration' : 'provider', message: options.message, cause: options.cause });
    this.code = options.code;
    this.server = options.server;
  }

  static override isInstance(error: unknown): error is McpConnectionError {
    return markerCheck(MARKER)(error);
  }
}
