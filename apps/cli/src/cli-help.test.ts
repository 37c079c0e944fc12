import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { CLI_COMMANDS, type CliCommands } from './cli-commands.js';
import { COMMAND_HELP, helpText, type CommandHelp } from './cli-help.js';
import type { CliIo } from './cli-io.js';
import { runCli, USAGE } from './run-cli.js';
import { EXAMPLES_OPTIONS } from './commands/examples-command.js';
import { GATEWAY_OPTIONS } from './commands/gateway-command.js';
import { MIGRATE_OPTIONS } from './commands/migrate-command.js';
import { REPLAY_OPTIONS } from './commands/replay-command.js';
import { RUN_OPTIONS } from './commands/run-command.js';
import { SERVE_OPTIONS } from './commands/serve-command.js';
import { TRACE_OPTIONS } from './commands/trace-command.js';
import { WORKER_OPTIONS } from './commands/worker-command.js';

async function strata(args: string[], commands?: CliCommands) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, env: {}, cwd: tmpdir() };
  const code = await runCli(args, io, { commands });
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
    assert.match(unknown.stderr, /^strata: unknown command "frobnicate"; run strata --help \(commands: examples, replay, run, trace, serve, worker, migrate, gateway\)\n$/);
  }
});

test('a command registered in the table gets --help, --version, `strata help` and a line in the overview, and runs with its own arguments', async () => {
  assert.deepEqual(Object.keys(CLI_COMMANDS), Object.keys(COMMAND_HELP), 'every built-in command has its help and its code');
  const calls: Array<readonly string[]> = [];
  const gatewayHelp: CommandHelp = { usage: 'gateway [--port N]', summary: 'a stand-in for a command another package adds', options: [['--port N', 'the port (default 8788)']] };
  const commands: CliCommands = { ...CLI_COMMANDS, gateway: { help: gatewayHelp, run: async (args) => (calls.push(args), 0) } };
  for (const args of [['gateway', '--help'], ['gateway', '-h'], ['help', 'gateway'], ['gateway', '--port', 'x', '--help']]) {
    const { code, stdout, stderr } = await strata(args, commands);
    assert.equal(code, 0, args.join(' '));
    assert.equal(stderr, '');
    assert.equal(stdout, helpText(gatewayHelp));
    assert.match(stdout, /--port N {2,}the port \(default 8788\)/);
  }
  const version = await strata(['gateway', '--version'], commands);
  assert.match(version.stdout, /^strata \d+\.\d+\.\d+/);
  assert.deepEqual(calls, [], 'help and version never run the command');
  const overview = await strata(['--help'], commands);
  assert.ok(overview.stdout.includes('  strata gateway [--port N]\n      a stand-in for a command another package adds\n'));
  assert.equal((await strata(['gateway', '--port', '9000'], commands)).code, 0);
  assert.deepEqual(calls, [['--port', '9000']]);
  const unknown = await strata(['frobnicate'], commands);
  assert.match(unknown.stderr, /\(commands: examples, replay, run, trace, serve, worker, migrate, gateway\)/);
  // The default table has the real gateway, untouched by the stand-in.
  assert.match((await strata(['gateway', '--help'])).stdout, /--upstream URL/);
});

test('every option a command parses is documented in its help, and its help documents no option it does not parse', () => {
  const parsed: Array<[string[], Readonly<Record<string, unknown>>]> = [
    [['examples'], EXAMPLES_OPTIONS],
    [['replay'], REPLAY_OPTIONS],
    [['run'], RUN_OPTIONS],
    [['serve'], SERVE_OPTIONS],
    [['worker'], WORKER_OPTIONS],
    [['migrate'], MIGRATE_OPTIONS],
    [['gateway'], GATEWAY_OPTIONS],
    ...Object.entries(TRACE_OPTIONS).map(([sub, options]): [string[], Readonly<Record<string, unknown>>] => [['trace', sub], options]),
  ];
  assert.deepEqual(parsed.map(([words]) => words.join(' ')).sort(), everyCommand.filter(([, help]) => !help.subcommands).map(([words]) => words.join(' ')).sort(), 'every command that parses options is checked');
  for (const [words, options] of parsed) {
    const help = everyCommand.find(([candidate]) => candidate.join(' ') === words.join(' '))![1];
    const documented = (help.options ?? []).map(([flag]) => flag.split(' ')[0]!).sort();
    assert.deepEqual(documented, Object.keys(options).map((name) => `--${name}`).sort(), words.join(' '));
    for (const [, meaning] of help.options ?? []) assert.ok(meaning.trim().length > 0, `${words.join(' ')}: an option without a meaning`);
  }
});
