// Installs each framework adapter the way a user does, from the packed tarballs, and runs its example.
// For each of @strata/ai-sdk, @strata/langchain, @strata/openai-agents and @strata/mastra: a fresh project in a temporary
// directory, every @strata package from its tarball (npm pack), the framework at the version the repository
// tests with, install scripts allowed, a PATH holding only node, npm and sh (no C or C++ compiler, no make,
// no python) and no npm_config_* from the caller (npm_config_build_from_source unset). The install must
// compile nothing and leave no native module; the example must run; without better-sqlite3 a SQLite store
// must fail naming the package. Prints the installed size (du) of each. Needs the registry or an npm cache
// holding every package (--prefer-offline). Usage: npm run check:install [-- --keep]
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const keep = process.argv.includes('--keep');
const manifestOf = (directory) => JSON.parse(readFileSync(join(ROOT, directory, 'package.json'), 'utf8'));
const published = manifestOf('.').workspaces.filter((directory) => manifestOf(directory).private !== true);
const devVersion = (name) => {
  for (const directory of ['.', ...published]) {
    const pinned = manifestOf(directory).devDependencies?.[name];
    if (pinned !== undefined) return pinned.replace(/^npm:[^@]+@/, '');
  }
  throw new Error(`no pinned version of ${name} in the repository`);
};

/** Each adapter, the framework packages its example imports, and the example. */
const ADAPTERS = [
  { name: '@strata/ai-sdk', frameworks: ['ai'], example: 'ai-sdk-loop.js' },
  { name: '@strata/langchain', frameworks: ['@langchain/core', 'langchain', 'zod'], example: 'langchain-agent.js' },
  { name: '@strata/openai-agents', frameworks: ['@openai/agents-core'], example: 'openai-agents-run.js' },
  { name: '@strata/mastra', frameworks: ['@mastra/core', 'zod'], example: 'mastra-agent.js' },
];

const work = mkdtempSync(join(tmpdir(), 'strata-install-'));
const failures = [];
try {
  // A PATH with no compiler: node, npm and sh only.
  const bin = join(work, 'bin');
  mkdirSync(bin);
  const which = (command) => execFileSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).trim();
  for (const command of ['node', 'npm', 'npx', 'sh']) symlinkSync(which(command), join(bin, command));
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  Object.assign(env, { PATH: bin, npm_config_cache: execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim() });
  for (const compiler of ['cc', 'gcc', 'g++', 'c++', 'clang', 'make', 'python3', 'node-gyp']) {
    const found = spawnSync('sh', ['-c', `command -v ${compiler}`], { env, encoding: 'utf8' });
    if (found.status === 0) throw new Error(`the install PATH still finds ${compiler} at ${found.stdout.trim()}`);
  }

  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', tarballs, ...published.flatMap((directory) => ['-w', directory])], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 }));
  const ours = Object.fromEntries(packed.map(({ name, filename }) => [name, `file:${join(tarballs, filename)}`]));

  for (const adapter of ADAPTERS) {
    const project = join(work, adapter.name.replace('@strata/', ''));
    mkdirSync(project);
    const dependencies = { [adapter.name]: ours[adapter.name], ...Object.fromEntries(adapter.frameworks.map((name) => [name, devVersion(name)])) };
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: `check-${adapter.name.replace('@strata/', '')}`, private: true, type: 'module', dependencies, overrides: ours }, null, 2));
    const started = Date.now();
    const install = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--foreground-scripts'], { cwd: project, env, encoding: 'utf8', maxBuffer: 64 << 20 });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (install.status !== 0) {
      failures.push(`${adapter.name}: npm install failed (${seconds} s):\n${install.stdout}\n${install.stderr}`);
      continue;
    }
    const nativeModules = findFiles(join(project, 'node_modules'), (name) => name.endsWith('.node') || name === 'binding.gyp');
    if (nativeModules.length > 0) failures.push(`${adapter.name}: the install left native modules: ${nativeModules.join(', ')}`);
    const installed = readdirSync(join(project, 'node_modules', '@strata'));
    if (installed.includes('testing')) failures.push(`${adapter.name}: the private @strata/testing was installed`);

    copyFileSync(join(ROOT, 'examples', 'dist', adapter.example), join(project, adapter.example));
    const example = spawnSync(process.execPath, [adapter.example], { cwd: project, env, encoding: 'utf8' });
    if (example.status !== 0) failures.push(`${adapter.name}: ${adapter.example} failed:\n${example.stdout}\n${example.stderr}`);

    writeFileSync(
      join(project, 'sqlite-without-driver.mjs'),
      `import { openStores } from '@strata/store';\nconsole.log(await openStores('sqlite:./stores.db').then(() => 'opened', (error) => \`\${error.name}: \${error.message}\`));\n`,
    );
    const sqlite = spawnSync(process.execPath, ['sqlite-without-driver.mjs'], { cwd: project, env, encoding: 'utf8' });
    if (!/ConfigurationError: .*"better-sqlite3".*npm install better-sqlite3/.test(sqlite.stdout)) failures.push(`${adapter.name}: a SQLite store without better-sqlite3 said: ${sqlite.stdout}${sqlite.stderr}`);

    const kilobytes = Number(execFileSync('du', ['-sk', join(project, 'node_modules')], { encoding: 'utf8' }).split('\t')[0]);
    const packages = findFiles(join(project, 'node_modules'), (name, path) => name === 'package.json' && /node_modules\/(@[^/]+\/)?[^/@]+\/package\.json$/.test(path)).length;
    console.log(`${adapter.name}: installed in ${seconds} s, node_modules ${(kilobytes / 1024).toFixed(1)} MiB, ${packages} packages, no native module; ${adapter.example}: ${example.status === 0 ? 'ran' : 'FAILED'}`);
    if (example.status === 0) console.log(example.stdout.trim().split('\n').map((line) => `  | ${line}`).join('\n'));
  }
} finally {
  if (keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
if (failures.length > 0) {
  for (const failure of failures) console.error(failure);
  process.exit(1);
}

function findFiles(directory, matches, found = []) {
  let names;
  try {
    names = readdirSync(directory);
  } catch {
    return found;
  }
  for (const name of names) {
    const path = join(directory, name);
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats?.isDirectory()) findFiles(path, matches, found);
    else if (stats?.isFile() && matches(name, path)) found.push(path);
  }
  return found;
}
