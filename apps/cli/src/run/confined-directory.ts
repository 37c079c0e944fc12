// Opens paths under one work directory so that nothing outside it is read,
// written or created, whatever the file system does between a check and a
// use (a path swapped for a symbolic link, a directory swapped for a link).
//
// How: the work directory is resolved once (realpath). A path is opened one
// component at a time, each relative to its already-opened parent through
// /proc/self/fd/<fd>/<name>, which pins that parent (Node has no openat). Every
// descriptor's real path (readlink of /proc/self/fd/<fd>) is checked to be the
// work directory or under it before it is used, so a link that leads inside
// works and one that leads outside, dangling or not, is refused. Nothing is
// created through a link: a new file is opened with O_CREAT|O_EXCL|O_NOFOLLOW
// and a new directory made with mkdir, neither of which follows a link at the
// last component. Linux only (/proc/self/fd); elsewhere every path is refused.
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, readlink, realpath, type FileHandle } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { isAbsolute, posix, resolve } from 'node:path';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK } = constants;

/** Linux limits: PATH_MAX is 4,096 bytes with the terminating NUL, NAME_MAX 255 bytes. */
const MAX_PATH_BYTES = 4_095;
const MAX_NAME_BYTES = 255;
/** Tries of open-or-create before a name that keeps vanishing (a dangling link, a swap loop) is refused. */
const CREATE_ATTEMPTS = 4;

/** A path or input the file tools refuse; its message is written for the model. */
export class InputRefused extends Error {}

/** A path as the model wrote it, for messages. */
export const shownPath = (path: string): string => JSON.stringify(path);

/**
 * The components of `path` under the work directory (`[]` for the directory
 * itself), or `InputRefused`. `path` is relative to the work directory, or
 * absolute and under it (as `workdir` was given or as resolved). `..` is
 * resolved by name, never through a link; a path that climbs out is refused.
 */
export function pathComponents(path: unknown, roots: readonly string[]): string[] {
  if (typeof path !== 'string' || path === '') throw new InputRefused('path must be a non-empty string relative to the work directory');
  if (path.includes('\0')) throw new InputRefused(`${shownPath(path.replaceAll('\0', '\\0'))} contains a NUL character; use a path without one`);
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_PATH_BYTES) throw new InputRefused(`the path is ${bytes} bytes long; paths are at most ${MAX_PATH_BYTES} bytes`);
  let relativePath = path;
  if (isAbsolute(path)) {
    const root = roots.find((candidate) => !escapes(posix.relative(candidate, posix.normalize(path))));
    if (root === undefined) throw new InputRefused(`${shownPath(path)} is outside the work directory; use a path inside it`);
    relativePath = posix.relative(root, posix.normalize(path));
  }
  if (escapes(posix.normalize(relativePath))) throw new InputRefused(`${shownPath(path)} is outside the work directory; use a path inside it`);
  const components = posix.normalize(relativePath).split('/').filter((component) => component !== '' && component !== '.');
  const long = components.find((component) => Buffer.byteLength(component) > MAX_NAME_BYTES);
  if (long !== undefined) throw new InputRefused(`a name in the path is ${Buffer.byteLength(long)} bytes long; names are at most ${MAX_NAME_BYTES} bytes`);
  return components;
}

const escapes = (relativePath: string): boolean => relativePath === '..' || relativePath.startsWith('../') || isAbsolute(relativePath);

/** The name of `name` inside the directory open as `directory`, pinned to that directory. */
const under = (directory: FileHandle, name: string): string => `/proc/self/fd/${directory.fd}/${name}`;

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

/**
 * One work directory. `workdir` need not be real: it is resolved through its
 * links once, on first use, and every descriptor is checked against that.
 */
export class ConfinedDirectory {
  readonly #given: string;
  #root: Promise<string> | undefined;

  constructor(workdir: string) {
    this.#given = resolve(workdir);
  }

  /** The resolved work directory, or `InputRefused` when it is missing. */
  root(): Promise<string> {
    this.#root ??= realpath(this.#given).catch((error: unknown) => {
      throw new InputRefused(`the work directory ${this.#given} is not available (${errorCode(error) ?? String(error)})`);
    });
    return this.#root;
  }

  /** The components of `path`, accepting absolute paths under the work directory as given or as resolved. */
  async components(path: unknown): Promise<string[]> {
    const root = await this.root();
    return pathComponents(path, root === this.#given ? [root] : [root, this.#given]);
  }

  /** The directory at `components`, opened and verified; `create` makes missing directories. The caller closes it. */
  async openDirectory(components: readonly string[], options: { create?: boolean | undefined } = {}): Promise<FileHandle> {
    const root = await this.root();
    let current = await this.#verified(await open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW), '.');
    try {
      for (const [index, name] of components.entries()) {
        const shown = components.slice(0, index + 1).join('/');
        const parent = current;
        current = await this.#openChildDirectory(parent, name, shown, options.create === true);
        await parent.close();
      }
      return current;
    } catch (error) {
      await current.close();
      throw error;
    }
  }

  /** The file at `components` opened for reading and verified (not yet checked to be a regular file). The caller closes it. */
  async openFileForReading(components: readonly string[]): Promise<FileHandle> {
    return this.#inParent(components, async (directory, name, shown) =>
      // O_NONBLOCK: a FIFO is opened without waiting for a writer (and then refused as not a regular file).
      this.#verified(await open(under(directory, name), O_RDONLY | O_NONBLOCK), shown),
    );
  }

  /**
   * The file at `components` opened for writing and verified, creating it and
   * its directories when missing. An existing file is opened without
   * truncating, so nothing changes before the descriptor is verified; the
   * caller truncates, writes and closes.
   */
  async openFileForWriting(components: readonly string[]): Promise<FileHandle> {
    return this.#inParent(
      components,
      async (directory, name, shown) => {
        for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt += 1) {
          try {
            return await this.#verified(await open(under(directory, name), O_WRONLY | O_NONBLOCK), shown);
          } catch (error) {
            if (errorCode(error) !== 'ENOENT') throw error;
          }
          try {
            // O_EXCL with O_CREAT never follows a link: the file is made in this directory or not at all.
            return await this.#verified(await open(under(directory, name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK, 0o666), shown);
          } catch (error) {
            if (errorCode(error) !== 'EEXIST') throw error;
          }
        }
        throw await this.#vanishing(directory, name, shown);
      },
      { create: true },
    );
  }

  /** The entries of the directory open as `directory`. */
  entries(directory: FileHandle): Promise<Dirent[]> {
    return readdir(`/proc/self/fd/${directory.fd}`, { withFileTypes: true });
  }

  /** The entry `name` of `directory` opened without following a link (for walking a tree), verified. */
  async openEntry(directory: FileHandle, name: string, shown: string, kind: 'file' | 'directory'): Promise<FileHandle> {
    const flags = kind === 'directory' ? O_RDONLY | O_DIRECTORY | O_NOFOLLOW : O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
    return this.#verified(await open(under(directory, name), flags), shown);
  }

  async #inParent<T>(components: readonly string[], use: (directory: FileHandle, name: string, shown: string) => Promise<T>, options: { create?: boolean } = {}): Promise<T> {
    const name = components.at(-1);
    if (name === undefined) throw new InputRefused('the path names the work directory itself, not a file');
    const directory = await this.openDirectory(components.slice(0, -1), options);
    try {
      return await use(directory, name, components.join('/'));
    } finally {
      await directory.close();
    }
  }

  async #openChildDirectory(parent: FileHandle, name: string, shown: string, create: boolean): Promise<FileHandle> {
    for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt += 1) {
      try {
        // Follows a link; the directory it reaches is verified before use.
        return await this.#verified(await open(under(parent, name), O_RDONLY | O_DIRECTORY), shown);
      } catch (error) {
        if (!create || errorCode(error) !== 'ENOENT') throw error;
      }
      try {
        // mkdir never follows a link at its last component (a dangling link is EEXIST).
        await mkdir(under(parent, name));
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
    }
    throw await this.#vanishing(parent, name, shown);
  }

  /** `handle` when its real path is the work directory or under it; otherwise it is closed and the path refused. */
  async #verified(handle: FileHandle, shown: string): Promise<FileHandle> {
    try {
      const root = await this.root();
      let real: string;
      try {
        real = await readlink(`/proc/self/fd/${handle.fd}`);
      } catch (error) {
        throw new InputRefused(`the file tools need /proc/self/fd (Linux) to keep paths inside the work directory, and it is not readable here (${errorCode(error) ?? String(error)})`);
      }
      if (real !== root && !real.startsWith(root === '/' ? '/' : `${root}/`)) throw new InputRefused(`${shownPath(shown)} leads outside the work directory through a symbolic link; use a path inside it`);
      return handle;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Why `name` could neither be opened nor created: a link to nothing, or a name changing under us. */
  async #vanishing(directory: FileHandle, name: string, shown: string): Promise<InputRefused> {
    const link = await lstat(under(directory, name)).then((status) => status.isSymbolicLink(), () => false);
    return new InputRefused(
      link
        ? `${shownPath(shown)} is a symbolic link to nothing; links are followed only to what exists inside the work directory`
        : `${shownPath(shown)} kept changing while it was opened; try again`,
    );
  }
}
