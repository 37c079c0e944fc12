import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.PresetFormatError');

/** A preset (ours or an imported SillyTavern one) is not usable. `field` names the culprit. */
export class PresetFormatError extends StrataError {
  readonly [MARKER] = true;
  readonly field: string;

  constructor(options: { field: string; message: string }) {
    super({ name: 'PresetFormatError', kind: 'input', message: `preset ${options.field}: ${options.message}` });
    this.field = options.field;
  }

  static override isInstance(error: unknown): error is PresetFormatError {
    return markerCheck(MARKER)(error);
  }
}
