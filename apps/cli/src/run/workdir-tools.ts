// The built-in file tools of `strata run`, confined to one work directory:
// list, read, search, write. A path that leaves the directory (`..`, an
// absolute path elsewhere, a symbolic link out, dangling or not) is refused
// with an error result the model can read, and nothing outside is read,
// written or created, even when the file system changes between a check and
// a use (see confined-directory.ts for how). Hidden directories (the trace
// directory of `strata run`) are never listed, searched, read or written,
// even inside the work directory or reached through a link.
import { readlink, realpath, type FileHandle } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import type { ToolDefinition, ToolOutcome } from '@strata/context';
import { ConfinedDirectory, InputRefused, shownPath } from './confined-directory.js';

/** Bounds of one answer; a longer answer is stored and read back through read_tool_output. */
const MAX_SEARCH_MATCHES = 200;
const MAX_LISTED_ENTRIES = 1_000;
/** Files this large or larger are skipped by search_files. */
const MAX_SEARCHED_FILE_BYTES = 4_000_000;

/** Errors of the file system, said for the model; the /proc/self/fd paths they carry are never shown. */
const ERRNO_MESSAGES: Readonly<Record<string, string>> = Object.freeze({
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'is a directory (list_files lists it)',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the path is too long',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENXIO: 'not a regular file',
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
});

function failure(error: unknown, path: unknown): ToolOutcome {
  if (error instanceof InputRefused) return { content: error.message, isError: true };
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = typeof path === 'string' ? `${shownPath(path)}: ` : '';
  const said = code === undefined ? (error instanceof Error ? error.message : String(error)) : (ERRNO_MESSAGES[code] ?? `failed (${code})`);
  return { content: `${where}${said}`, isError: true };
}

async function guarded(path: unknown, work: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
  try {
    return await work();
  } catch (error) {
    return failure(error, path);
  }
}

async function closing<T>(handle: FileHandle, use: (handle: FileHandle) => Promise<T>): Promise<T> {
  try {
    return await use(handle);
  } finally {
    await handle.close();
  }
}

async function requireRegularFile(handle: FileHandle, path: string): Promise<void> {
  const status = await handle.stat();
  if (status.isDirectory()) throw new InputRefused(`${shownPath(path)} is a directory (list_files lists it)`);
  if (!status.isFile()) throw new InputRefused(`${shownPath(path)} is not a regular file`);
}

const fieldsOf = (input: unknown): Record<string, unknown> => (typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {});
const byName = (left: { name: string }, right: { name: string }) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0);

/** Whether `path` is `directory` or inside it (both absolute and real). */
const within = (path: string, directory: string): boolean => {
  const rest = relative(directory, path);
  return rest === '' || (!rest.startsWith('..') && !isAbsolute(rest));
};

const hiddenMessage = (path: string) => `${shownPath(path)} holds Strata's traces, which the file tools do not touch; use another path`;

export interface WorkdirToolsOptions {
  /**
   * Directories the tools never list, search, read or write (and never show
   * in a listing), even when they are inside the work directory. A directory
   * that does not exist yet is checked again on each call.
   */
  readonly hidden?: readonly string[];
}

const pathParameter = { type: 'string', description: 'A path relative to the work directory.' };

/**
 * The four file tools over `workdir`, which may be a symbolic link: it is
 * resolved once, on the first call, and every path is checked against the
 * resolved directory. A missing work directory makes each call an error result.
 */
export function workdirTools(workdir: string, options?: WorkdirToolsOptions): ToolDefinition[] {
  const directory = new ConfinedDirectory(workdir);
  const hiddenGiven = (Array.isArray(options?.hidden) ? options.hidden : []).filter((path): path is string => typeof path === 'string' && path !== '').map((path) => resolve(path));

  /**
   * The real paths of the hidden directories that exist now strictly inside
   * the work directory (one that holds the work directory, or is it, would
   * hide everything; what it holds outside the work directory is out of reach anyway).
   */
  const hiddenNow = async (): Promise<string[]> => {
    if (hiddenGiven.length === 0) return [];
    const root = await directory.root();
    const real = await Promise.all(hiddenGiven.map((path) => realpath(path).catch(() => undefined)));
    return real.filter((path): path is string => path !== undefined && path !== root && within(path, root));
  };
  /** The real path of an open descriptor (the walk verified it; /proc names what it is now). */
  const realOf = (handle: FileHandle): Promise<string> => readlink(`/proc/self/fd/${handle.fd}`);
  const isHidden = (real: string, hidden: readonly string[]) => hidden.some((directory) => within(real, directory));
  /** `handle`, or `InputRefused` (closing it) when it is in a hidden directory. */
  const visible = async (handle: FileHandle, path: unknown): Promise<FileHandle> => {
    const hidden = await hiddenNow();
    if (hidden.length > 0 && isHidden(await realOf(handle), hidden)) {
      await handle.close();
      throw new InputRefused(hiddenMessage(String(path)));
    }
    return handle;
  };

  /**
   * `InputRefused` when the file at `components` would be in a hidden
   * directory: the deepest directory on its way that exists now is checked
   * before anything is created, and the opened file again before it is written.
   */
  const refuseHiddenTarget = async (components: readonly string[], path: unknown): Promise<void> => {
    if ((await hiddenNow()).length === 0) return;
    for (let depth = components.length - 1; depth >= 0; depth -= 1) {
      let existing: FileHandle;
      try {
        existing = await directory.openDirectory(components.slice(0, depth));
      } catch (error) {
        if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) continue;
        throw error;
      }
      await (await visible(existing, path)).close();
      return;
    }
  };

  /** Appends the matching lines of the tree open as `handle` (named `prefix`), skipping links and entries that change while read. */
  const searchTree = async (handle: FileHandle, prefix: string, query: string, matches: string[], hidden: readonly string[]): Promise<void> => {
    for (const entry of (await directory.entries(handle)).sort(byName)) {
      if (matches.length >= MAX_SEARCH_MATCHES) return;
      const name = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (!entry.isDirectory() && !entry.isFile()) continue;
      let child: FileHandle;
      try {
        child = await directory.openEntry(handle, entry.name, name, entry.isDirectory() ? 'directory' : 'file');
      } catch (error) {
        if (error instanceof InputRefused || ['ENOENT', 'ELOOP', 'ENOTDIR', 'EACCES', 'ENXIO'].includes((error as NodeJS.ErrnoException).code ?? '')) continue;
        throw error;
      }
      await closing(child, async () => {
        if (hidden.length > 0 && isHidden(await realOf(child), hidden)) return;
        const status = await child.stat();
        if (status.isDirectory()) return searchTree(child, name, query, matches, hidden);
        if (!status.isFile() || status.size >= MAX_SEARCHED_FILE_BYTES) return;
        (await child.readFile('utf8')).split('\n').forEach((line, index) => {
          if (matches.length < MAX_SEARCH_MATCHES && line.includes(query)) matches.push(`${name}:${index + 1}: ${line}`);
        });
      });
    }
  };

  return [
    {
      name: 'list_files',
      description: 'Lists the entries of a directory in the work directory (directories end with /, symbolic links with @).',
      parameters: { type: 'object', properties: { path: { ...pathParameter, default: '.' } }, additionalProperties: false },
      concurrencySafe: true,
      execute: (input) => {
        const { path = '.' } = fieldsOf(input);
        return guarded(path, async () => {
          const listed = await visible(await directory.openDirectory(await directory.components(path)), path);
          const hidden = await hiddenNow();
          const entries = await closing(listed, async (handle) => {
            const real = await realOf(handle);
            return (await directory.entries(handle)).filter((entry) => !isHidden(resolve(real, entry.name), hidden));
          });
          const names = entries.map((entry) => `${entry.name}${entry.isDirectory() ? '/' : entry.isSymbolicLink() ? '@' : ''}`).sort();
          return { content: names.slice(0, MAX_LISTED_ENTRIES).join('\n') || '(empty)' };
        });
      },
    },
    {
      name: 'read_file',
      description: 'Reads a text file of the work directory.',
      parameters: { type: 'object', properties: { path: pathParameter }, required: ['path'], additionalProperties: false },
      concurrencySafe: true,
      execute: (input) => {
        const { path } = fieldsOf(input);
        return guarded(path, async () => {
          const file = await visible(await directory.openFileForReading(await directory.components(path)), path);
          return closing(file, async (handle) => {
            await requireRegularFile(handle, String(path));
            return { content: await handle.readFile('utf8') };
          });
        });
      },
    },
    {
      name: 'search_files',
      description: 'Finds lines containing a literal text in the files under a directory of the work directory (symbolic links are not followed).',
      parameters: { type: 'object', properties: { query: { type: 'string' }, path: { ...pathParameter, default: '.' } }, required: ['query'], additionalProperties: false },
      concurrencySafe: true,
      execute: (input) => {
        const { query, path = '.' } = fieldsOf(input);
        return guarded(path, async () => {
          if (typeof query !== 'string' || query === '') throw new InputRefused('query must be a non-empty string');
          const components = await directory.components(path);
          const start = await visible(await directory.openDirectory(components), path);
          const matches: string[] = [];
          const hidden = await hiddenNow();
          await closing(start, (handle) => searchTree(handle, components.join('/'), query, matches, hidden));
          return { content: matches.join('\n') || 'no matches' };
        });
      },
    },
    {
      name: 'write_file',
      description: 'Writes a text file in the work directory (creating folders), replacing what was there.',
      parameters: { type: 'object', properties: { path: pathParameter, content: { type: 'string' } }, required: ['path', 'content'], additionalProperties: false },
      execute: (input) => {
        const { path, content } = fieldsOf(input);
        return guarded(path, async () => {
          if (typeof content !== 'string') throw new InputRefused('content must be a string');
          const components = await directory.components(path);
          await refuseHiddenTarget(components, path);
          const file = await visible(await directory.openFileForWriting(components), path);
          await closing(file, async (handle) => {
            await requireRegularFile(handle, String(path));
            await handle.truncate(0);
            await handle.writeFile(content);
          });
          return { content: `wrote ${content.length} characters to ${String(path)}` };
        });
      },
    },
  ];
}
