// Where `strata run` writes its traces unless told: a per-user state
// directory, outside any work directory, so the agent's file tools never
// meet earlier runs' prompts. `--trace-dir` and STRATA_CONTEXT_TRACE_DIR win.
import { homedir } from 'node:os';
import { isAbsolute, join, posix, win32 } from 'node:path';

export interface StateDirectoryOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Default `process.platform`. */
  readonly platform?: NodeJS.Platform;
  /** Default `os.homedir()`. */
  readonly home?: string;
}

/**
 * Strata's per-user state directory: `$XDG_STATE_HOME/strata` (an absolute
 * XDG_STATE_HOME only, as the XDG spec says) or `~/.local/state/strata` on
 * Linux and other Unix systems, `~/Library/Application Support/strata` on
 * macOS, `%LOCALAPPDATA%\strata` (else `~\AppData\Local\strata`) on Windows.
 */
export function strataStateDirectory(options: StateDirectoryOptions): string {
  const env = typeof options?.env === 'object' && options.env !== null ? options.env : {};
  const platform = options?.platform ?? process.platform;
  const home = options?.home ?? homedir();
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA?.trim();
    return local && win32.isAbsolute(local) ? win32.join(local, 'strata') : win32.join(home, 'AppData', 'Local', 'strata');
  }
  if (platform === 'darwin') return posix.join(home, 'Library', 'Application Support', 'strata');
  const xdg = env.XDG_STATE_HOME?.trim();
  return xdg && isAbsolute(xdg) ? join(xdg, 'strata') : join(home, '.local', 'state', 'strata');
}

/** The default trace directory of `strata run`: `runs` in the per-user state directory. */
export function defaultRunTraceDirectory(options: StateDirectoryOptions): string {
  const state = strataStateDirectory(options);
  return (options?.platform ?? process.platform) === 'win32' ? win32.join(state, 'runs') : join(state, 'runs');
}
