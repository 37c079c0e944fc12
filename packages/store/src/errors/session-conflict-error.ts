import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.SessionConflictError');

/**
 * `replace` was asked to compact a version that is no longer the newest:
 * another writer appended in between, and replacing would drop its messages.
 * Reload, compact again, and replace from the newest version.
 */
export class SessionConflictError extends StrataError {
  readonly [MARKER] = true;
  readonly code = 'SESSION_VERSION_CONFLICT';
  readonly contextId: string;
  readonly expectedVersion: number;
  readonly actualVersion: number;

  constructor(options: { contextId: string; expectedVersion: number; actualVersion: number }) {
    super({
      name: 'SessionConflictError',
      kind: 'input',
      message:
        `session "${options.contextId}": replace from version ${options.expectedVersion}, ` +
        `but the newest version is ${options.actualVersion}; reload and compact again`,
    });
    this.contextId = options.contextId;
    this.expectedVersion = options.expectedVersion;
    this.actualVersion = options.actualVersion;
  }

  static override isInstance(error: unknown): error is SessionConflictError {
    return markerCheck(MARKER)(error);
  }
}
