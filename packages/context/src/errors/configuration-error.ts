import { StrataError, markerCheck } from './strata-error.js';

const MARKER = Symbol.for('strata.error.ConfigurationError');

/** A configured value is missing, malformed or out of range. `setting` names it. */
export class ConfigurationError extends StrataError {
  readonly [MARKER] = true;
  readonly setting: string;

  constructor(options: { setting: string; message: string; cause?: unknown }) {
    super({ name: 'ConfigurationError', kind: 'configuration', message: options.message, cause: options.cause });
    this.setting = options.setting;
  }

  static override isInstance(error: unknown): error is ConfigurationError {
    return markerCheck(MARKER)(error);
  }
}
