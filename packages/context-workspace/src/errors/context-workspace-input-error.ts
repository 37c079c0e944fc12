import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.ContextWorkspaceInputError');

/**
 * The caller gave the workspace something it cannot use: an empty block name
 * or source, a NaN, negative or infinite factor, an unknown domain or urgency,
 * a malformed snapshot. `field` names the culprit as a path
 * (`timeFadeFactor`, `focusedOn[1]`, `domains[0]`, `blocks[3].activationScore`);
 * `code` is stable and machine-readable.
 */
export class ContextWorkspaceInputError extends StrataError {
  readonly [MARKER] = true;
  readonly code: ContextWorkspaceInputErrorCode;
  readonly field: string;

  constructor(options: { code: ContextWorkspaceInputErrorCode; field: string; message: string; cause?: unknown }) {
    super({ name: 'ContextWorkspaceInputError', kind: 'input', message: options.message, cause: options.cause });
    this.code = options.code;
    this.field = options.field;
  }

  static override isInstance(error: unknown): error is ContextWorkspaceInputError {
    return markerCheck(MARKER)(error);
  }
}

export type ContextWorkspaceInputErrorCode =
  | 'WORKSPACE_EMPTY_TEXT'
  | 'WORKSPACE_INVALID_NAME'
  | 'WORKSPACE_INVALID_FACTOR'
  | 'WORKSPACE_INVALID_NUMBER'
  | 'WORKSPACE_UNKNOWN_DOMAIN'
  | 'WORKSPACE_DUPLICATE_DOMAIN'
  | 'WORKSPACE_UNKNOWN_URGENCY'
  | 'WORKSPACE_INVALID_TYPE'
  | 'WORKSPACE_UNSUPPORTED_SNAPSHOT';
