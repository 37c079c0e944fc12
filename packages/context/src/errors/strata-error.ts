const MARKER = Symbol.for('strata.error');

/**
 * Base of every error Strata throws. `isInstance` works across packages and
 * duplicate installs, where `instanceof` does not.
 *
 * The `kind` says whose fault it is: the caller's configuration, the caller's
 * input, the model provider, or Strata itself.
 */
export class StrataError extends Error {
  readonly [MARKER] = true;
  readonly kind: StrataErrorKind;

  constructor(options: { name: string; kind: StrataErrorKind; message: string; cause?: unknown }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = options.name;
    this.kind = options.kind;
  }

  static isInstance(error: unknown): error is StrataError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }
}

export type StrataErrorKind = 'configuration' | 'input' | 'provider' | 'internal';

/** Builds an `isInstance` for a subclass from its own marker symbol. */
export function markerCheck(marker: symbol) {
  return (error: unknown): boolean =>
    typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
}
