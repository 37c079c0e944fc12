import { ServiceRequestError } from './errors/service-request-error.js';

/** Longest run id the API accepts; the service makes `run_<uuid>`, 40 characters. */
export const MAX_RUN_ID_CHARS = 128;
/** A run id: ASCII letters, digits and `_ . : -`, starting with a letter or digit. No slash, no control character, no NUL. */
const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

/** The run id of a path, or a 400 naming what is wrong with it (never a lookup of an id no run can have). */
export function checkRunId(value: string | undefined): string {
  if (value === undefined || value === '') throw invalid('the run id is missing');
  if (value.length > MAX_RUN_ID_CHARS) throw invalid(`the run id is over ${MAX_RUN_ID_CHARS} characters`);
  if (!RUN_ID_PATTERN.test(value)) throw invalid(`the run id ${JSON.stringify(value)} may hold only ASCII letters, digits and _ . : -`);
  return value;
}

/** `Last-Event-ID`: absent, or the non-negative whole sequence number of the last event received. */
export function checkLastEventId(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 0;
  if (!/^\d{1,15}$/.test(value.trim())) throw invalid('"Last-Event-ID" must be the sequence number of an event');
  return Number(value.trim());
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A body that must be one JSON object, as UTF-8. */
export function jsonObject(bytes: Uint8Array): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(UTF8.decode(bytes));
  } catch (error) {
    throw new ServiceRequestError({ code: 'MALFORMED_JSON', status: 400, message: 'the request body is not JSON in UTF-8', cause: error });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('the request body must be a JSON object');
  return body as Record<string, unknown>;
}

/** A text field of a body. */
export function textField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string') throw invalid(`"${name}" must be text`);
  return value;
}

export function invalid(message: string): ServiceRequestError {
  return new ServiceRequestError({ code: 'INVALID_REQUEST', status: 400, message });
}
