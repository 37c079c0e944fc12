// Packs every published workspace, installs the tarballs into a new project in a temporary directory
// (third-party packages from the registry, preferring the local npm cache), type-checks a consumer with
// `strict` and `skipLibCheck: false`, and imports every entry point. Set STRATA_SKIP_PACK_TEST=1 to skip
// (for example on a machine that cannot reach the registry).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packagingFaults, REPOSITORY_ROOT, workspaceManifests, type Workspace, type WorkspaceManifest } from './workspace-manifests.js';

const run = promisify(execFile);
const ROOT = REPOSITORY_ROOT;
type Manifest = WorkspaceManifest;

function publishedWorkspaces(): Workspace[] {
  return workspaceManifests().filter(({ manifest }) => manifest.private !== true);
}

/** Every entry point a consumer can import: the package name plus each subpath of `exports`. */
function entryPoints(manifest: Manifest): string[] {
  return Object.keys(manifest.exports ?? { '.': {} }).map((subpath) => (subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`));
}

/**
 * The exact version of each required peer the repository tests with (its devDependency), so the
 * consumer gets the same. Optional peers (pg) are left out: the consumer must work without them.
 */
function peerVersions(workspaces: readonly Workspace[]): Record<string, string> {
  const peers: Record<string, string> = {};
  for (const { manifest } of workspaces) {
    for (const name of Object.keys(manifest.peerDependencies ?? {})) {
      if (manifest.peerDependenciesMeta?.[name]?.optional === true) continue;
      const pinned = manifest.devDependencies?.[name];
      if (pinned !== undefined) peers[name] = pinned;
    }
  }
  return peers;
}

/** `file(line,col): error TS...: message` lines of tsc's output, split by whether the file is one of ours. */
function declarationErrors(output: string): { ours: string[]; theirs: string[] } {
  const errors = output.split('\n').filter((line) => /error TS\d+/.test(line));
  // Ours: the consumer, and a file of a @strata package itself; a dependency installed under one of ours
  // (`node_modules/@strata/service/node_modules/hono/...`, when the registry's newest release is hoisted beside our pin) is theirs.
  const ours = errors.filter((line) => line.startsWith('consumer.ts') || line.split('(')[0]!.split('node_modules/').at(-1)!.startsWith('@strata/'));
  return { ours, theirs: errors.filter((line) => !ours.includes(line)) };
}

test('every package packs, installs from its tarball, type-checks strictly with skipLibCheck off, and imports', { timeout: 600_000 }, async (t) => {
  if (process.env.STRATA_SKIP_PACK_TEST === '1') return t.skip('STRATA_SKIP_PACK_TEST=1');
  const workspaces = publishedWorkspaces();
  const directory = mkdtempSync(join(tmpdir(), 'strata-pack-'));
  try {
    const tarballs = join(directory, 'tarballs');
    mkdirSync(tarballs);
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', tarballs, ...workspaces.flatMap(({ directory: workspace }) => ['-w', workspace])], { cwd: ROOT, maxBuffer: 64 << 20 });
    const packed = JSON.parse(stdout) as Array<{ name: string; filename: string; files: Array<{ path: string }> }>;
    assert.equal(packed.length, workspaces.length);

    // What is packed: dist with declarations and maps, the sources the maps point at, README and LICENSE; no tests, no build info.
    for (const { name, files } of packed) {
      const paths = files.map((file) => file.path);
      for (const needed of ['README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/index.js.map', 'src/index.ts']) assert.ok(paths.includes(needed), `${name} packs ${needed}`);
      assert.deepEqual(packagingFaults(workspaces.find((workspace) => workspace.manifest.name === name)!.manifest, paths), [], `${name} packs no tests, build info or testing helpers, and exports no testing subpath`);
      for (const map of paths.filter((path) => path.endsWith('.js.map'))) {
        const sources = (JSON.parse(readFileSync(join(ROOT, workspaces.find((workspace) => workspace.manifest.name === name)!.directory, map), 'utf8')) as { sources: string[] }).sources;
        for (const source of sources) assert.ok(paths.includes(join(map, '..', source)), `${name}: ${map} points at ${source}, which is packed (a map without its source is a stale build output: rebuild from a clean dist)`);
      }
    }

    const consumer = join(directory, 'consumer');
    const ours = Object.fromEntries(packed.map(({ name, filename }) => [name, `file:${join(tarballs, filename)}`]));
    const entries = workspaces.flatMap(({ manifest }) => entryPoints(manifest));
    mkdirSync(consumer);
    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'strata-pack-consumer', private: true, type: 'module', dependencies: { ...ours, ...peerVersions(workspaces), '@types/node': '20.19.43' }, overrides: ours }, null, 2),
    );
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023'], types: ['node'], strict: true, skipLibCheck: false, noEmit: true }, files: ['consumer.ts'] }, null, 2),
    );
    writeFileSync(join(consumer, 'consumer.ts'), entries.map((entry, index) => `import * as entry${index} from '${entry}';\nvoid entry${index};\n`).join(''));
    writeFileSync(join(consumer, 'imports.mjs'), `for (const entry of ${JSON.stringify(entries)}) await import(entry);\nconsole.log('imported', ${entries.length});\n`);
    // PostgreSQL is optional for @strata/store: without pg, only a postgres:// store fails, naming the package.
    writeFileSync(
      join(consumer, 'store-without-pg.mjs'),
      [
        `const { openStores } = await import('@strata/store');`,
        `await (await openStores('memory:')).close();`,
        `console.log(await openStores('postgres://nobody@127.0.0.1:1/none').then(() => 'opened', (error) => error.message));`,
      ].join('\n'),
    );

    // Install scripts are not run: native builds (better-sqlite3) are not needed to type-check or import.
    await run('npm', ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: consumer, maxBuffer: 64 << 20 });
    for (const name of Object.keys(ours)) assert.ok(existsSync(join(consumer, 'node_modules', name, 'dist', 'index.js')), `${name} installed from its tarball`);
    assert.equal(readdirSync(join(consumer, 'node_modules', '@strata')).filter((name) => name === 'testing').length, 0, '@strata/testing is never installed');

    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const checked = await run(process.execPath, [tsc, '-p', consumer], { cwd: consumer, maxBuffer: 64 << 20 }).then(
      (result) => result.stdout,
      (error: { stdout?: string }) => error.stdout ?? '',
    );
    const { ours: ourErrors, theirs } = declarationErrors(checked);
    if (theirs.length > 0) t.diagnostic(`errors in third-party declarations (not ours): ${theirs.length}, e.g. ${theirs[0]}`);
    assert.deepEqual(ourErrors, [], 'no type error in our declarations');

    const imported = await run(process.execPath, ['imports.mjs'], { cwd: consumer });
    assert.equal(imported.stdout.trim(), `imported ${entries.length}`);

    // pg is an optional peer of @strata/store (@strata/service depends on it): a consumer of the store alone may not have it.
    assert.equal(workspaces.find(({ manifest }) => manifest.name === '@strata/store')?.manifest.peerDependenciesMeta?.pg?.optional, true);
    rmSync(join(consumer, 'node_modules', 'pg'), { recursive: true, force: true });
    const withoutPg = await run(process.execPath, ['store-without-pg.mjs'], { cwd: consumer });
    assert.match(withoutPg.stdout.trim(), /needs the optional peer dependency "pg".*npm install pg/);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
