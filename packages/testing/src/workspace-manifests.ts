import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root directory (this file is at packages/testing/{src,dist}/). */
export const REPOSITORY_ROOT = resolve(fileURLToPath(import.meta.url), '../../../..');

/** The fields of a workspace's package.json the packaging tests read. */
export interface WorkspaceManifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly exports?: Record<string, unknown>;
  readonly gypfile?: boolean;
  readonly scripts?: Record<string, string>;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>;
  readonly devDependencies?: Record<string, string>;
}

export interface Workspace {
  /** Its directory, relative to the root, as the root's `workspaces` lists it. */
  readonly directory: string;
  readonly manifest: WorkspaceManifest;
}

/** Every workspace of the root package.json, in its order, with its manifest. */
export function workspaceManifests(): Workspace[] {
  const root = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  return root.workspaces.map((directory) => ({ directory, manifest: JSON.parse(readFileSync(join(REPOSITORY_ROOT, directory, 'package.json'), 'utf8')) as WorkspaceManifest }));
}

/**
 * What a published package must not ship, given its manifest and the paths its
 * tarball holds: a test file or build info, a file under a `testing/`
 * directory (a testing helper), or an `exports` subpath named `testing` (or
 * under one). One line per fault, empty when there is none. A surface users
 * need (a conformance suite) is exported under its own name, never as testing.
 */
export function packagingFaults(manifest: WorkspaceManifest, paths: readonly string[]): string[] {
  const faults: string[] = [];
  for (const path of paths) {
    if (/\.(test|fuzz)\.|tsbuildinfo/.test(path)) faults.push(`${manifest.name} packs a test file or build info: ${path}`);
    else if (/(^|\/)testing\//.test(path)) faults.push(`${manifest.name} packs a testing helper: ${path}`);
  }
  for (const subpath of Object.keys(manifest.exports ?? {})) {
    if (/(^|\/)testing(\/|$)/.test(subpath)) faults.push(`${manifest.name} exports a testing subpath: ${subpath}`);
  }
  return faults;
}
