import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.ManifestError');

/**
 * An instance manifest is rejected: unknown skill or variant, a bad history
 * policy, or an attempt to list tags (agents choose variants, never tags).
 */
export class ManifestError extends StrataError {
  readonly [MARKER] = true;
  readonly field: string;

  constructor(options: { field: string; message: string }) {
    super({ name: 'ManifestError', kind: 'input', message: `instance manifest ${options.field}: ${options.message}` });
    this.field = options.field;
  }

  static override isInstance(error: unknown): error is ManifestError {
    return markerCheck(MARKER)(error);
  }
}
