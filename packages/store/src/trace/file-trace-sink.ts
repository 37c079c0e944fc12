import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, open, readdir, stat, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { TraceSink } from '@strata/context';
import { StoreAccessError } from '../errors/store-access-error.js';
import { StoreInputError } from '../errors/store-input-error.js';
import { contextDirectoryName, traceFileName } from './context-id-path.js';

export const TRACE_FILE_MODE = 0o600;
export const TRACE_DIRECTORY_MODE = 0o700;

export interface FileTraceSinkOptions {
  /** `<trace-dir>`; created (mode 0700) on the first write, or tightened to 0700 when it lets others in. */
  readonly directory: string;
}

/** The trace directory the issue names by default: `<dataDir>/context-traces`. */
export function defaultTraceDirectory(dataDir: string): string {
  return join(resolve(dataDir), 'context-traces');
}

/** Where `write` puts a document: `<directory>/<context-id>/turn-0001[-recovery-N].json`. */
export function traceFilePath(options: { readonly directory: string; readonly contextId: string; readonly turn: number; readonly recoveryAttempt?: number }): string {
  return join(resolve(options.directory), contextDirectoryName(options.contextId), traceFileName(options));
}

/**
 * One JSON file per model turn (and per recovery attempt). A file is never
 * overwritten: the document is written to a private temporary file, then
 * linked to its name, which fails if the name exists (then the write throws
 * `TRACE_FILE_EXISTS` and the existing file is unchanged). A reader never
 * sees a half-written file. Files are mode 0600, directories 0700: an
 * existing one open to group or others is tightened, or refused with
 * `STORE_INSECURE` when it cannot be. The body is written as `JSON.stringify(body, null, 2)` and a
 * newline.
 */
export function createFileTraceSink(options: FileTraceSinkOptions): TraceSink {
  const directory = resolve(options.directory);
  return {
    async lastTurn(contextId: string): Promise<number> {
      let names: string[];
      try {
        names = await readdir(join(directory, contextDirectoryName(contextId)));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
        throw new StoreAccessError({ code: 'STORE_IO', location: directory, message: `trace directory of "${contextId}" cannot be read: ${(error as Error).message}`, cause: error });
      }
      let last = 0;
      for (const name of names) {
        const turn = /^turn-(\d+)(?:-recovery-\d+)?\.json$/.exec(name)?.[1];
        if (turn !== undefined) last = Math.max(last, Number(turn));
      }
      return last;
    },
    async write(document): Promise<void> {
      const contextDirectory = join(directory, contextDirectoryName(document.contextId));
      const path = join(contextDirectory, traceFileName(document));
      let text: string | undefined;
      try {
        text = JSON.stringify(document.body, null, 2);
      } catch (cause) {
        throw new StoreInputError({ code: 'TRACE_BODY_INVALID', culprit: path, message: `trace ${path}: the body cannot be serialized as JSON`, cause });
      }
      if (text === undefined) {
        throw new StoreInputError({ code: 'TRACE_BODY_INVALID', culprit: path, message: `trace ${path}: the body is not a JSON value` });
      }
      await ensureDirectory(directory);
      await ensureDirectory(contextDirectory);
      const temporary = join(contextDirectory, `.${traceFileName(document)}.${randomBytes(6).toString('hex')}.tmp`);
      try {
        const handle = await open(temporary, 'wx', TRACE_FILE_MODE);
        try {
          await handle.chmod(TRACE_FILE_MODE);
          await handle.writeFile(`${text}\n`, 'utf8');
          await handle.sync();
        } finally {
          await handle.close();
        }
        await publish(temporary, path, text);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
          throw new StoreInputError({ code: 'TRACE_FILE_EXISTS', culprit: path, message: `trace ${path} already exists; trace files are never overwritten` });
        }
        throw new StoreAccessError({ code: 'STORE_IO', location: path, message: `trace ${path}: write failed: ${(error as Error).message}`, cause: error });
      } finally {
        await unlink(temporary).catch(() => undefined);
      }
    },
  };
}

const NO_HARD_LINKS: ReadonlySet<string> = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/** Links the finished file to its name; where hard links are refused, creates the name exclusively and writes it. */
async function publish(temporary: string, path: string, text: string): Promise<void> {
  try {
    await link(temporary, path);
  } catch (error) {
    if (!NO_HARD_LINKS.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    await writeFile(path, `${text}\n`, { flag: 'wx', mode: TRACE_FILE_MODE });
    await chmod(path, TRACE_FILE_MODE);
  }
}

/**
 * Makes `path` a directory only its owner can enter: creates it (and missing
 * parents) with mode 0700, or tightens an existing one that lets group or
 * others in to 0700, since traces hold whole prompts. One that cannot be
 * tightened (another user's, a read-only file system) is refused with
 * `STORE_INSECURE` naming it; nothing is written there.
 */
async function ensureDirectory(path: string): Promise<void> {
  try {
    await mkdir(path, { mode: TRACE_DIRECTORY_MODE });
    // mkdir's mode passes through the umask; set it exactly.
    await chmod(path, TRACE_DIRECTORY_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return tightenDirectory(path);
    if (code === 'ENOENT') {
      await mkdir(path, { recursive: true, mode: TRACE_DIRECTORY_MODE });
      await chmod(path, TRACE_DIRECTORY_MODE);
      return;
    }
    throw new StoreAccessError({ code: 'STORE_IO', location: path, message: `trace directory ${path} cannot be created: ${(error as Error).message}`, cause: error });
  }
}

async function tightenDirectory(path: string): Promise<void> {
  let mode: number;
  try {
    mode = (await stat(path)).mode;
  } catch (error) {
    throw new StoreAccessError({ code: 'STORE_IO', location: path, message: `trace directory ${path} cannot be read: ${(error as Error).message}`, cause: error });
  }
  if ((mode & 0o077) === 0) return;
  try {
    await chmod(path, TRACE_DIRECTORY_MODE);
  } catch (error) {
    const permissions = (mode & 0o777).toString(8).padStart(4, '0');
    throw new StoreAccessError({
      code: 'STORE_INSECURE',
      location: path,
      message: `trace directory ${path} has mode ${permissions}, open to other users, and cannot be changed to 0700 (${(error as Error).message}); traces hold whole prompts: fix its permissions or choose another trace directory`,
      cause: error,
    });
  }
}
