// The built-in file tools of `strata run`, confined to one work directory:
// list, read, search, write. A path that leaves the directory (`..`, an
// absolute path elsewhere, a symbolic link out) is refused with an error
// result the model can read; nothing outside is touched.
import { mkdir, readdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ToolDefinition, ToolOutcome } from '@strata/context';

/** Bound of one read or search answer; longer files are stored and read back through read_tool_output. */
const MAX_SEARCH_MATCHES = 200;
const MAX_LISTED_ENTRIES = 1_000;

class PathRefused extends Error {}

/** The real path of `path` inside `root`, or `PathRefused`. Follows symbolic links of the parts that exist. */
async function confined(root: string, path: unknown): Promise<string> {
  if (typeof path !== 'string' || path === '') throw new PathRefused('path must be a non-empty string relative to the work directory');
  const target = resolve(root, path);
  const inside = (candidate: string) => candidate === root || (!relative(root, candidate).startsWith('..') && !isAbsolute(relative(root, candidate)));
  if (!inside(target)) throw new PathRefused(`"${path}" is outside the work directory; use a path inside it`);
  // The deepest existing ancestor, resolved through links, must stay inside too.
  let existing = target;
  for (;;) {
    try {
      const real = await realpath(existing);
      if (!inside(real)) throw new PathRefused(`"${path}" leads outside the work directory through a symbolic link`);
      return existing === target ? real : join(real, relative(existing, target));
    } catch (error) {
      if (error instanceof PathRefused) throw error;
      const parent = dirname(existing);
      if (parent === existing) throw error;
      existing = parent;
    }
  }
}

const refused = (error: unknown): ToolOutcome => ({ content: error instanceof Error ? error.message : String(error), isError: true });

async function guarded(work: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof PathRefused) return refused(error);
    const code = (error as NodeJS.ErrnoException).code;
    return refused(code === 'ENOENT' ? new Error('no such file or directory') : error);
  }
}

const pathParameter = { type: 'string', description: 'A path relative to the work directory.' };

/** The four file tools over `workdir` (which must exist; see `resolveWorkdir`). */
export function workdirTools(workdir: string): ToolDefinition[] {
  const root = workdir;
  return [
    {
      name: 'list_files',
      description: 'Lists the entries of a directory in the work directory (directories end with /).',
      parameters: { type: 'object', properties: { path: { ...pathParameter, default: '.' } }, additionalProperties: false },
      concurrencySafe: true,
      execute: (input) =>
        guarded(async () => {
          const directory = await confined(root, (input as { path?: string }).path ?? '.');
          const entries = (await readdir(directory, { withFileTypes: true })).map((entry) => `${entry.name}${entry.isDirectory() ? '/' : ''}`).sort();
          return { content: entries.slice(0, MAX_LISTED_ENTRIES).join('\n') || '(empty)' };
        }),
    },
    {
      name: 'read_file',
      description: 'Reads a text file of the work directory.',
      parameters: { type: 'object', properties: { path: pathParameter }, required: ['path'], additionalProperties: false },
      concurrencySafe: true,
      execute: (input) => guarded(async () => ({ content: await readFile(await confined(root, (input as { path: string }).path), 'utf8') })),
    },
    {
      name: 'search_files',
      description: 'Finds lines containing a literal text in the files under a directory of the work directory.',
      parameters: { type: 'object', properties: { query: { type: 'string' }, path: { ...pathParameter, default: '.' } }, required: ['query'], additionalProperties: false },
      concurrencySafe: true,
      execute: (input) =>
        guarded(async () => {
          const { query, path } = input as { query: string; path?: string };
          const start = await confined(root, path ?? '.');
          const matches: string[] = [];
          const visit = async (current: string): Promise<void> => {
            for (const entry of (await readdir(current, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
              if (matches.length >= MAX_SEARCH_MATCHES || entry.isSymbolicLink()) continue;
              const full = join(current, entry.name);
              if (entry.isDirectory()) await visit(full);
              else if (entry.isFile() && (await stat(full)).size < 4_000_000) {
                (await readFile(full, 'utf8')).split('\n').forEach((line, index) => {
                  if (matches.length < MAX_SEARCH_MATCHES && line.includes(query)) matches.push(`${relative(root, full).split(sep).join('/')}:${index + 1}: ${line}`);
                });
              }
            }
          };
          await visit(start);
          return { content: matches.join('\n') || 'no matches' };
        }),
    },
    {
      name: 'write_file',
      description: 'Writes a text file in the work directory (creating folders), replacing what was there.',
      parameters: { type: 'object', properties: { path: pathParameter, content: { type: 'string' } }, required: ['path', 'content'], additionalProperties: false },
      execute: (input) =>
        guarded(async () => {
          const { path, content } = input as { path: string; content: string };
          const target = await confined(root, path);
          await mkdir(dirname(target), { recursive: true });
          await writeFile(target, content);
          return { content: `wrote ${content.length} characters to ${path}` };
        }),
    },
  ];
}
