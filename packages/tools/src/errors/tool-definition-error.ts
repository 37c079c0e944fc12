import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.ToolDefinitionError');

export type ToolDefinitionErrorCode = 'TOOL_NAME_INVALID' | 'TOOL_NAME_DUPLICATE' | 'TOOL_SCHEMA_INVALID' | 'TOOL_DEFINITION_INVALID';

/**
 * A tool cannot be registered: a bad or duplicate name, or a malformed
 * parameter schema. `toolName` names the tool; `schemaPath` is the JSON
 * Pointer of the offending keyword inside its parameter schema.
 */
export class ToolDefinitionError extends StrataError {
  readonly [MARKER] = true;
  readonly code: ToolDefinitionErrorCode;
  readonly toolName: string;
  readonly schemaPath: string | undefined;

  constructor(options: { code: ToolDefinitionErrorCode; toolName: string; schemaPath?: string; message: string; cause?: unknown }) {
    super({ name: 'ToolDefinitionError', kind: 'input', message: options.message, cause: options.cause });
    this.code = options.code;
    this.toolName = options.toolName;
    this.schemaPath = options.schemaPath;
  }

  static override isInstance(error: unknown): error is ToolDefinitionError {
    return markerCheck(MARKER)(error);
  }
}
