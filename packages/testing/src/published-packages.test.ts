// What each published package ships, read from `npm pack --dry-run` (no network, nothing written):
// no test files, no private helpers, no module importing a package its manifest does not declare,
// @types/* only as dev dependencies, and no native build among the packages an install must fetch
// (dependencies and required peers, transitively). The install itself (tarballs into a fresh project,
// no compiler on PATH) is `npm run check:install` (scripts/check-install.mjs), which needs the registry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { packagingFaults, REPOSITORY_ROOT, workspaceManifests, type WorkspaceManifest } from './workspace-manifests.js';

const run = promisify(execFile);
const ROOT = REPOSITORY_ROOT;
type Manifest = WorkspaceManifest;

const readManifest = (path: string): Manifest => JSON.parse(readFileSync(path, 'utf8')) as Manifest;
const workspaces = workspaceManifests;

/** Packages an install of this manifest must fetch: dependencies and peers that are not optional. */
function requiredPackages(manifest: Manifest): string[] {
  const peers = Object.keys(manifest.peerDependencies ?? {}).filter((name) => manifest.peerDependenciesMeta?.[name]?.optional !== true);
  return [...Object.keys(manifest.dependencies ?? {}), ...peers];
}

/** The installed manifest of `name` as Node would find it from `directory` (walking up node_modules). */
function installedManifest(name: string, directory: string): string | undefined {
  for (let current = directory; ; current = dirname(current)) {
    const path = join(current, 'node_modules', name, 'package.json');
    if (existsSync(path)) return path;
    if (dirname(current) === current) return undefined;
  }
}

/** A package that compiles on install: a binding.gyp (node-gyp) or an install script that builds or fetches a binary. */
function buildsOnInstall(path: string, manifest: Manifest): boolean {
  const scripts = Object.entries(manifest.scripts ?? {}).filter(([name]) => ['preinstall', 'install', 'postinstall'].includes(name));
  return manifest.gypfile === true || existsSync(join(dirname(path), 'binding.gyp')) || scripts.some(([, script]) => /node-gyp|prebuild|node-pre-gyp|cmake-js|napi/.test(script));
}

/** Every package, transitively, an install of `manifest` (at `directory`) fetches and would build. */
function nativeClosure(directory: string, manifest: Manifest): string[] {
  const seen = new Set<string>();
  const native: string[] = [];
  const queue: Array<[string, string[]]> = [[directory, requiredPackages(manifest)]];
  while (queue.length > 0) {
    const [from, names] = queue.shift()!;
    for (const name of names) {
      const path = installedManifest(name, from);
      assert.ok(path !== undefined, `${manifest.name}: ${name} (needed from ${from}) is installed in the repository`);
      if (seen.has(path)) continue;
      seen.add(path);
      const dependency = readManifest(path);
      if (buildsOnInstall(path, dependency)) native.push(`${name}@${dependency.version}`);
      queue.push([dirname(path), Object.keys(dependency.dependencies ?? {}).filter((child) => !(child in (dependency.optionalDependencies ?? {})))]);
    }
  }
  return native;
}

const BUILTINS = new Set(builtinModules);
/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`); undefined for relative paths and Node's own modules. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:') || BUILTINS.has(specifier.split('/')[0]!)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Static and dynamic imports and `require` calls with a literal specifier. */
function importedPackages(source: string): string[] {
  const specifiers = [...source.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (match) => match[1] ?? match[2] ?? match[3] ?? match[4]!,
  );
  return [...new Set(specifiers.map(packageOf).filter((name): name is string => name !== undefined))];
}

test('every published package ships no tests, no private helpers, and imports only what its manifest declares', async () => {
  const all = workspaces();
  const privateNames = new Set(all.filter(({ manifest }) => manifest.private === true).map(({ manifest }) => manifest.name));
  const published = all.filter(({ manifest }) => manifest.private !== true);
  assert.ok(privateNames.has('@strata/testing'), '@strata/testing is private');
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', ...published.flatMap(({ directory }) => ['-w', directory])], { cwd: ROOT, maxBuffer: 64 << 20 });
  const packed = JSON.parse(stdout) as Array<{ name: string; files: Array<{ path: string }> }>;
  assert.deepEqual(packed.map(({ name }) => name).sort(), published.map(({ manifest }) => manifest.name).sort(), 'every published package packs, and no private one');

  for (const { name, files } of packed) {
    const { directory, manifest } = published.find((workspace) => workspace.manifest.name === name)!;
    const paths = files.map((file) => file.path);
    // No test file, no testing helper, no testing subpath: test helpers are in the private @strata/testing or in test-only files the tarball leaves out.
    assert.deepEqual(packagingFaults(manifest, paths), [], `${name} packs no test file or testing helper and exports no testing subpath`);

    for (const section of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
      const names = Object.keys(manifest[section] ?? {});
      assert.deepEqual(names.filter((dependency) => privateNames.has(dependency)), [], `${name}: no private package among its ${section}`);
      assert.deepEqual(names.filter((dependency) => dependency.startsWith('@types/')), [], `${name}: @types/* are dev dependencies only (${section})`);
    }

    const declared = new Set([name, ...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {}), ...Object.keys(manifest.optionalDependencies ?? {})]);
    for (const path of paths.filter((file) => file.endsWith('.js') && file.startsWith('dist/'))) {
      const undeclared = importedPackages(readFileSync(join(ROOT, directory, path), 'utf8')).filter((imported) => !declared.has(imported));
      assert.deepEqual(undeclared, [], `${name}/${path} imports only packages ${name} declares`);
    }
  }
});

test('no published package makes an install compile: no native build among its dependencies and required peers, transitively', () => {
  const published = workspaces().filter(({ manifest }) => manifest.private !== true);
  for (const { directory, manifest } of published) assert.deepEqual(nativeClosure(join(ROOT, directory), manifest), [], `${manifest.name} needs no native build`);
  // The drivers and the exact tokenizers are optional peers: a store or an exact counter asks for them when used.
  const store = published.find(({ manifest }) => manifest.name === '@strata/store')!.manifest;
  for (const driver of ['better-sqlite3', 'pg']) assert.equal(store.peerDependenciesMeta?.[driver]?.optional, true, `${driver} is an optional peer of @strata/store`);
  const context = published.find(({ manifest }) => manifest.name === '@strata/context')!.manifest;
  assert.equal(context.peerDependenciesMeta?.['gpt-tokenizer']?.optional, true, 'gpt-tokenizer is an optional peer of @strata/context');
});

test('the checks can fail: a gyp package is found, an undeclared import is seen, a testing subpath or helper is a fault', () => {
  const betterSqlite = installedManifest('better-sqlite3', ROOT)!;
  assert.equal(buildsOnInstall(betterSqlite, readManifest(betterSqlite)), true, 'better-sqlite3 builds on install');
  assert.deepEqual(nativeClosure(ROOT, { name: 'probe', version: '0.0.0', dependencies: { 'better-sqlite3': '12.6.2' } }).map((entry) => entry.split('@')[0]), ['better-sqlite3']);
  const probe: Manifest = { name: 'probe', version: '0.0.0', exports: { '.': './dist/index.js', './testing': './dist/testing/index.js' } };
  assert.deepEqual(packagingFaults(probe, ['dist/index.js', 'dist/testing/index.js', 'src/a.test.ts', 'dist/.tsbuildinfo']), [
    'probe packs a testing helper: dist/testing/index.js',
    'probe packs a test file or build info: src/a.test.ts',
    'probe packs a test file or build info: dist/.tsbuildinfo',
    'probe exports a testing subpath: ./testing',
  ]);
  assert.deepEqual(packagingFaults({ ...probe, exports: { '.': './dist/index.js', './conformance': './dist/conformance/index.js' } }, ['dist/index.js', 'dist/conformance/index.js']), []);
  assert.deepEqual(importedPackages("import a from 'fast-check';\nexport { b } from '@strata/testing/x';\nconst c = await import('node:fs');\nrequire('pg');"), ['fast-check', '@strata/testing', 'pg']);
});
