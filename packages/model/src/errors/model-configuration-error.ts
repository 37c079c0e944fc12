import { ConfigurationError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.ModelConfigurationError');

export type ModelConfigurationErrorCode =
  | 'MODEL_SPECIFIER_MALFORMED'
  | 'MODEL_PROVIDER_UNKNOWN'
  | 'MODEL_API_KEY_MISSING'
  | 'MODEL_BASE_URL_INVALID'
  | 'MODEL_PROXY_INVALID'
  | 'MODEL_OPTION_INVALID'
  | 'MODEL_TOKENIZER_UNAVAILABLE';

/**
 * The model cannot be configured: an unknown provider, a malformed model
 * string, a missing key. Thrown before any request. `setting` names the
 * culprit: the variable (`OPENAI_API_KEY`), or `model` for the model string.
 * Also a `ConfigurationError`, so callers that handle configuration errors in
 * general catch it too.
 */
export class ModelConfigurationError extends ConfigurationError {
  readonly [MARKER] = true;
  readonly code: ModelConfigurationErrorCode;

  constructor(options: { code: ModelConfigurationErrorCode; setting: string; message: string; cause?: unknown }) {
    super({ setting: options.setting, message: options.message, cause: options.cause });
    this.name = 'ModelConfigurationError';
    this.code = options.code;
  }

  static override isInstance(error: unknown): error is ModelConfigurationError {
    return markerCheck(MARKER)(error);
  }
}
