import { ConfigurationError } from './errors/configuration-error.js';

/** An optional peer dependency, as the error that asks for it names it. */
export interface OptionalPeer {
  /** The package to install (`better-sqlite3`). */
  readonly name: string;
  /** The range the peer dependency states (`^12.0.0`). */
  readonly range: string;
  /** The setting whose value asked for it (`store URL`, `tokenizer`). */
  readonly setting: string;
  /** What needs it (`a SQLite store`). */
  readonly neededBy: string;
}

/**
 * Loads an optional peer dependency with `load` (a `require` of it). When it
 * is not installed (`MODULE_NOT_FOUND`): a `ConfigurationError` for the peer's
 * setting naming the package and the command that installs it. Any other
 * failure is rethrown as it is.
 */
export function loadOptionalPeer<T>(peer: OptionalPeer, load: () => unknown): T {
  try {
    return load() as T;
  } catch (cause) {
    if ((cause as { code?: unknown } | null)?.code !== 'MODULE_NOT_FOUND') throw cause;
    throw new ConfigurationError({
      setting: peer.setting,
      message: `${peer.neededBy} needs the optional peer dependency "${peer.name}" (${peer.range}), which is not installed: run \`npm install ${peer.name}\``,
      cause,
    });
  }
}
