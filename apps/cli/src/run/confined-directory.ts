// Opens paths under one work directory so that nothing outside it is opened,
// read, written or created, whatever the file system does between a check and
// a use (a file or directory swapped for a symbolic link, in a loop).
//
// How: the work directory is resolved once (realpath). A path is walked one
// component at a time, each opened with O_NOFOLLOW relative to its parent's
// descriptor through /proc/self/fd/<fd>/<name>, which pins the parent (Node
// has no openat). A symbolic link met on the way is never opened: its target
// is read and spliced into the path, which is walked again from the work
// directory (as openat2's RESOLVE_IN_ROOT would), so a link that stays inside
// works and one that leads outside, dangling or not, is refused. Every
// descriptor's real path (readlink of /proc/self/fd/<fd>) is also checked to
// be the work directory or under it before it is used. Nothing is created
// through a link: a new file is opened with O_CREAT|O_EXCL|O_NOFOLLOW and a
// directory made with mkdir, neither of which follows a link at its last
// component. Linux only (/proc/self/fd); elsewhere every path is refused.
import { constants, type Dirent } from 'node:fs';
import { mkdir, open, readdir, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { isAbsolute, posix, resolve } from 'node:path';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK } = constants;

/** Linux limits: PATH_MAX is 4,096 bytes with the terminating NUL, NAME_MAX 255 bytes, MAXSYMLINKS 40. */
const MAX_PATH_BYTES = 4_095;
const MAX_NAME_BYTES = 255;
const MAX_LINK_HOPS = 40;
/** Tries of open-or-create before a name that keeps changing (a swap loop) is given up. */
const CREATE_ATTEMPTS = 4;

/** A path or input the file tools refuse; its message is written for the model. */
export class InputRefused extends Error {}

/** A path as the model wrote it, for messages. */
export const shownPath = (path: string): string => JSON.stringify(path);

const outsideMessage = (path: string) => `${shownPath(path)} is outside the work directory; use a path inside it`;
const linkOutMessage = (path: string) => `${shownPath(path)} leads outside the work directory through a symbolic link; use a path inside it`;

const escapes = (relativePath: string): boolean => relativePath === '..' || relativePath.startsWith('../') || isAbsolute(relativePath);

/**
 * The components of `path` under the work directory (`[]` for the directory
 * itself), or undefined when it leaves. `path` is relative to the work
 * directory, or absolute and under one of `roots` (the directory as given or
 * as resolved). `..` is resolved by name, which is right because the walk
 * never passes through a link (it splices the link's target instead).
 */
function componentsUnder(path: string, roots: readonly string[]): string[] | undefined {
  let relativePath = path;
  if (isAbsolute(path)) {
    const root = roots.find((candidate) => !escapes(posix.relative(candidate, posix.normalize(path))));
    if (root === undefined) return undefined;
    relativePath = posix.relative(root, posix.normalize(path));
  }
  const normal = posix.normalize(relativePath);
  if (escapes(normal)) return undefined;
  return normal.split('/').filter((component) => component !== '' && component !== '.');
}

/** The components of a path the model gave, or `InputRefused` saying why not. */
export function pathComponents(path: unknown, roots: readonly string[]): string[] {
  if (typeof path !== 'string' || path === '') throw new InputRefused('path must be a non-empty string relative to the work directory');
  if (path.includes('\0')) throw new InputRefused(`${shownPath(path.replaceAll('\0', '\\0'))} contains a NUL character; use a path without one`);
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_PATH_BYTES) throw new InputRefused(`the path is ${bytes} bytes long; paths are at most ${MAX_PATH_BYTES} bytes`);
  const components = componentsUnder(path, roots);
  if (components === undefined) throw new InputRefused(outsideMessage(path));
  const long = components.find((component) => Buffer.byteLength(component) > MAX_NAME_BYTES);
  if (long !== undefined) throw new InputRefused(`a name in the path is ${Buffer.byteLength(long)} bytes long; names are at most ${MAX_NAME_BYTES} bytes`);
  return components;
}

/** `name` inside the directory open as `directory`, pinned to that directory. */
const under = (directory: FileHandle, name: string): string => `/proc/self/fd/${directory.fd}/${name}`;

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

/** What opening one component gave: a verified descriptor, or the target of the link found there (not opened). */
type Opened = FileHandle | { readonly linkTarget: string };
type OpenLast = (directory: FileHandle, name: string, shown: string) => Promise<Opened>;

/** The target of the link `name` in `directory`, or undefined when it is not (or no longer) a link. */
async function linkAt(directory: FileHandle, name: string): Promise<string | undefined> {
  try {
    return await readlink(under(directory, name));
  } catch (error) {
    if (errorCode(error) === 'EINVAL' || errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

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
    return pathComponents(path, await this.#roots());
  }

  /** The directory at `components`, opened and verified. The caller closes it. */
  openDirectory(components: readonly string[]): Promise<FileHandle> {
    return this.#walk(components, false, undefined);
  }

  /** The file at `components` opened for reading and verified (not yet checked to be a regular file). The caller closes it. */
  openFileForReading(components: readonly string[]): Promise<FileHandle> {
    return this.#walk(components, false, (directory, name, shown) => this.#openFile(directory, name, shown, { access: O_RDONLY, create: false }));
  }

  /**
   * The file at `components` opened for writing and verified, creating it and
   * its directories when missing. An existing file is opened without
   * truncating, so nothing changes before the descriptor is verified; the
   * caller truncates, writes and closes.
   */
  openFileForWriting(components: readonly string[]): Promise<FileHandle> {
    return this.#walk(components, true, (directory, name, shown) => this.#openFile(directory, name, shown, { access: O_WRONLY, create: true }));
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

  async #roots(): Promise<string[]> {
    const root = await this.root();
    return root === this.#given ? [root] : [root, this.#given];
  }

  /**
   * Walks `components` from the work directory: each directory opened with
   * O_NOFOLLOW under its parent (made when `create` and missing), the last
   * component by `openLast` (or as a directory). A link met is spliced into the path and the walk starts
   * again from the work directory, at most MAX_LINK_HOPS times.
   */
  async #walk(components: readonly string[], create: boolean, openLast: OpenLast | undefined): Promise<FileHandle> {
    const roots = await this.#roots();
    let pending = [...components];
    for (let hops = 0; ; hops += 1) {
      if (openLast !== undefined && pending.length === 0) throw new InputRefused('the path names the work directory itself, not a file');
      let directory: FileHandle | undefined = await this.#verified(await open(roots[0]!, O_RDONLY | O_DIRECTORY | O_NOFOLLOW), '.');
      try {
        let walked = 0;
        let linkTarget: string | undefined;
        while (walked < pending.length) {
          const name = pending[walked]!;
          const shown = pending.slice(0, walked + 1).join('/');
          const opened: Opened = openLast !== undefined && walked === pending.length - 1 ? await openLast(directory, name, shown) : await this.#openChildDirectory(directory, name, shown, create);
          if (!('fd' in opened)) {
            linkTarget = opened.linkTarget;
            break;
          }
          walked += 1;
          const parent: FileHandle = directory;
          directory = opened;
          await parent.close();
        }
        if (linkTarget === undefined) {
          const found = directory;
          directory = undefined;
          return found;
        }
        const shown = pending.slice(0, walked + 1).join('/');
        if (hops >= MAX_LINK_HOPS) throw new InputRefused(`${shownPath(shown)}: too many levels of symbolic links`);
        // The directories walked hold no link, so the target resolves by name against them.
        const target = componentsUnder(isAbsolute(linkTarget) ? linkTarget : [...pending.slice(0, walked), linkTarget].join('/'), roots);
        if (target === undefined) throw new InputRefused(linkOutMessage(shown));
        pending = [...target, ...pending.slice(walked + 1)];
      } finally {
        await directory?.close();
      }
    }
  }

  /**
   * The file `name` of `directory` opened for `access` without following a
   * link (a link's target is returned instead), or made when `create` and
   * missing. O_NONBLOCK: a FIFO is opened without waiting for its other end
   * (and then refused as not a regular file).
   */
  async #openFile(directory: FileHandle, name: string, shown: string, options: { access: number; create: boolean }): Promise<Opened> {
    for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt += 1) {
      try {
        return await this.#verified(await open(under(directory, name), options.access | O_NOFOLLOW | O_NONBLOCK), shown);
      } catch (error) {
        if (errorCode(error) === 'ELOOP') {
          const linkTarget = await linkAt(directory, name);
          if (linkTarget !== undefined) return { linkTarget };
          continue;
        }
        if (!options.create || errorCode(error) !== 'ENOENT') throw error;
      }
      try {
        // O_EXCL with O_CREAT never follows a link: the file is made in this directory or not at all.
        return await this.#verified(await open(under(directory, name), options.access | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK, 0o666), shown);
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
    }
    throw this.#changing(shown);
  }

  async #openChildDirectory(parent: FileHandle, name: string, shown: string, create: boolean): Promise<Opened> {
    for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt += 1) {
      try {
        return await this.#verified(await open(under(parent, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW), shown);
      } catch (error) {
        // O_DIRECTORY|O_NOFOLLOW on a link is ENOTDIR, as on a file.
        if (errorCode(error) === 'ENOTDIR') {
          const linkTarget = await linkAt(parent, name);
          if (linkTarget !== undefined) return { linkTarget };
        }
        if (!create || errorCode(error) !== 'ENOENT') throw error;
      }
      try {
        // mkdir never follows a link at its last component (a link there is EEXIST, then followed above).
        await mkdir(under(parent, name));
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
    }
    throw this.#changing(shown);
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
      if (real !== root && !real.startsWith(root === '/' ? '/' : `${root}/`)) throw new InputRefused(linkOutMessage(shown));
      return handle;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  #changing(shown: string): InputRefused {
    return new InputRefused(`${shownPath(shown)} kept changing while it was opened; try again`);
  }
}
