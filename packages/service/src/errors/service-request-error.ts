import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.ServiceRequestError');

/** Stable codes of the HTTP API's client errors. */
export type ServiceRequestErrorCode =
  | 'UNAUTHORIZED'
  | 'MALFORMED_JSON'
  | 'BODY_TOO_LARGE'
  | 'INVALID_REQUEST'
  | 'UNKNOWN_PROFILE'
  | 'UNKNOWN_MODEL'
  | 'RUN_NOT_FOUND'
  | 'RUN_FINISHED'
  | 'NOT_FOUND';

/**
 * A request the run service refuses: the caller's fault, answered with a 4xx
 * status and a JSON body `{ error: { code, message } }`. Nothing is enqueued.
 */
export class ServiceRequestError extends StrataError {
  readonly [MARKER] = true;
  readonly code: ServiceRequestErrorCode;
  readonly status: 400 | 401 | 404 | 409 | 413;

  constructor(options: { code: ServiceRequestErrorCode; status: ServiceRequestError['status']; message: string; cause?: unknown }) {
    super({ name: 'ServiceRequestError', kind: 'input', message: options.message, cause: options.cause });
    this.code = options.code;
    this.status = options.status;
  }

  static override isInstance(error: unknown): error is ServiceRequestError {
    return markerCheck(MARKER)(error);
  }
}
