import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { COMMAND_HELP, helpText, type CommandHelp } from './cli-help.js';
import type { CliIo } from './cli-io.js';
import { runCli, USAGE } from './run-cli.js';

async function strata(args: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, env: {}, cwd: tmpdir() };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

/** Every command and subcommand: its words and its help. */
const everyCommand: Array<[string[], CommandHelp]> = (Object.entries(COMMAND_HELP) as Array<[string, CommandHelp]>).flatMap(([name, help]) => [
  [[name], help] as [string[], CommandHelp],
  ...Object.entries(help.subcommands ?? {}).map(([sub, subHelp]) => [[name, sub], subHelp] as [string[], CommandHelp]),
]);

test('--help, -h and `strata help` on every command and subcommand print its help from the one table, exit 0, nothing on stderr', async () => {
  assert.ok(everyCommand.length >= 11, 'seven commands and the four trace subcommands');
  for (const [words, help] of everyCommand) {
    const expected = helpText(help);
    assert.match(expected, new RegExp(`^usage: strata ${words.join(' ')}`), words.join(' '));
    assert.match(expected, /--help, -h/);
    for (const args of [[...words, '--help'], [...words, '-h'], ['help', ...words]]) {
      const { code, stdout, stderr } = await strata(args);
      assert.equal(code, 0, args.join(' '));
      assert.equal(stderr, '', args.join(' '));
      assert.equal(stdout, expected, args.join(' '));
    }
  }
  // Among other arguments, and before the options a command would refuse: still the help, never "Unknown option".
  const replay = await strata(['replay', 'missing.json', '--window', 'x', '--help']);
  assert.equal(replay.code, 0);
  assert.equal(replay.stdout, helpText(COMMAND_HELP.replay));
  const trace = await strata(['trace', 'view', 'dir', '--out', 'x.html', '-h']);
  assert.equal(trace.stdout, helpText(COMMAND_HELP.trace.subcommands.view));
  // After `--` it is an argument, not a request for help.
  const task = await strata(['run', '--', '--help']);
  assert.equal(task.code, 2);
  assert.doesNotMatch(task.stdout, /usage/);
});

test('--version and -v on every command and subcommand print the package version', async () => {
  const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  for (const words of [[], ...everyCommand.map(([words]) => words)]) {
    for (const flag of ['--version', '-v']) {
      const { code, stdout, stderr } = await strata([...words, flag]);
      assert.equal(code, 0, [...words, flag].join(' '));
      assert.equal(stderr, '');
      assert.equal(stdout, `strata ${version}\n`);
    }
  }
});

test('strata --help lists every command and subcommand; an unknown command is an error even with --help', async () => {
  const overview = await strata(['--help']);
  assert.equal(overview.code, 0);
  assert.equal(overview.stdout, USAGE);
  for (const [words, help] of everyCommand) {
    if (help.subcommands) continue;
    assert.ok(USAGE.includes(`strata ${help.usage}\n      ${help.summary}`), words.join(' '));
  }
  const bare = await strata([]);
  assert.equal(bare.code, 2);
  assert.equal(bare.stdout, USAGE);
  for (const args of [['frobnicate', '--help'], ['help', 'frobnicate']]) {
    const unknown = await strata(args);
    assert.equal(unknown.code, 2, args.join(' '));
    assert.match(unknown.stderr, /^strata: unknown command "frobnicate"; run strata --help \(commands: examples, replay, run, trace, serve, worker, migrate\)\n$/);
  }
});
