import { StrataError, markerCheck } from '@strata/context';
import type { StrataErrorKind } from '@strata/context';

const MARKER = Symbol.for('strata.error.StoreAccessError');

/**
 * Stable codes of storage failures. `STORE_CORRUPTED`: the file is not a
 * database, a page is damaged, or a stored body no longer matches its
 * checksum. `STORE_MISSING`: the database (or its directory) does not exist
 * and creating it was not allowed. `STORE_UNREADABLE`: the path cannot be
 * opened (a directory, no permission). `STORE_UNREACHABLE`: the server refused
 * or dropped the connection, or rejected the credentials. `STORE_BUSY`: another
 * writer held the lock longer than the busy timeout. `STORE_CLOSED`: the store
 * was used after `close()`. `STORE_INSECURE`: a directory that must be private
 * (the trace directory) is open to other users and cannot be made private.
 * `STORE_IO`: any other read or write failure.
 */
export type StoreAccessErrorCode =
  | 'STORE_CORRUPTED'
  | 'STORE_MISSING'
  | 'STORE_UNREADABLE'
  | 'STORE_READONLY'
  | 'STORE_UNREACHABLE'
  | 'STORE_BUSY'
  | 'STORE_FULL'
  | 'STORE_CLOSED'
  | 'STORE_INSECURE'
  | 'STORE_IO';

const KIND_BY_CODE: Readonly<Record<StoreAccessErrorCode, StrataErrorKind>> = Object.freeze({
  STORE_CORRUPTED: 'internal',
  STORE_MISSING: 'configuration',
  STORE_UNREADABLE: 'configuration',
  STORE_READONLY: 'configuration',
  STORE_UNREACHABLE: 'configuration',
  STORE_BUSY: 'internal',
  STORE_FULL: 'internal',
  STORE_CLOSED: 'internal',
  STORE_INSECURE: 'configuration',
  STORE_IO: 'internal',
});

/**
 * A store could not be opened, read or written. `location` names the
 * database: a file path, or a PostgreSQL URL with its password removed. A
 * failed operation never changes what was stored before it.
 */
export class StoreAccessError extends StrataError {
  readonly [MARKER] = true;
  readonly code: StoreAccessErrorCode;
  readonly location: string;

  constructor(options: { code: StoreAccessErrorCode; location: string; message: string; cause?: unknown }) {
    super({ name: 'StoreAccessError', kind: KIND_BY_CODE[options.code], message: options.message, cause: options.cause });
    this.code = options.code;
    this.location = options.location;
  }

  static override isInstance(error: unknown): error is StoreAccessError {
    return markerCheck(MARKER)(error);
  }
}
