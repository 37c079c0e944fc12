import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { toOpenAIChat, type CanonicalMessage } from '@strata/context';
import { dropSchema, postgresTestTarget, loadProviderRules } from '@strata/testing';
import type { StreamedOutputRequest } from './testing/streamed-output-child.js';

// Acceptance of issue 10's last part: a 50 MB tool output (a string, an
// AsyncIterable<string>, a web ReadableStream<string>) is stored byte-exact
// while the run's live memory stays under 3x its size above the baseline.
// Each run is a child process, its live memory (heapUsed + external after a
// full GC) sampled at injected points: every 64th chunk, each store call,
// each traced turn. Not timing-based.

const rules = await loadProviderRules();
const CHILD = fileURLToPath(new URL('./testing/streamed-output-child.js', import.meta.url));
const OUTPUT_CHARS = 50 * 1_024 * 1_024;

interface ChildReport {
  readonly stopReason: string;
  readonly peak: number;
  readonly peakAt: string;
  readonly samples: number;
  readonly maxRssGrowth: number;
  readonly ref: string;
  readonly storedMatches: boolean;
  readonly storedChars: number;
  readonly toolContents: ReadonlyArray<{ name: string; chars: number; masked: boolean; text: string }>;
  readonly sessionBytes: number;
  readonly llmInputs: ReadonlyArray<readonly CanonicalMessage[]>;
}

async function runChild(request: StreamedOutputRequest): Promise<ChildReport> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', CHILD, JSON.stringify(request)], { maxBuffer: 64 * 1_024 * 1_024 });
  return JSON.parse(stdout) as ChildReport;
}

function assertAccepted(report: ChildReport, label: string): void {
  assert.equal(report.stopReason, 'completed', label);
  assert.ok(report.peak <= 3 * OUTPUT_CHARS, `${label}: live peak ${(report.peak / 2 ** 20).toFixed(1)} MiB at "${report.peakAt}" is over 3x the output`);
  assert.ok(report.samples >= 8, `${label}: sampled ${report.samples} times`);
  assert.equal(report.storedChars, OUTPUT_CHARS, label);
  assert.ok(report.storedMatches, `${label}: the stored body is the tool's, line for line`);
  const [dump, query, lines, chars] = report.toolContents;
  assert.ok(dump && dump.masked && dump.chars < 1_000 && dump.text.includes(`ref="${report.ref}"`), `${label}: the history holds a preview with its reference`);
  assert.match(query!.text, />123457: row 123456 NEEDLE-7f3a/, `${label}: read by query`);
  assert.match(lines!.text, /lines 500000-500002 of 819200[^\n]*\nrow 499999 value /, `${label}: read by lines`);
  assert.match(chars!.text, /chars 44800000-44800064 of 52428800[^\n]*\nrow 700000 value /, `${label}: read by characters`);
  assert.ok(report.sessionBytes < 20_000, `${label}: the session store holds ${report.sessionBytes} bytes, no copy of the body`);
  assert.equal(report.llmInputs.length, 5, label);
  for (const [turn, messages] of report.llmInputs.entries()) {
    assert.ok(JSON.stringify(messages).length < 20_000, `${label}: turn ${turn + 1}'s input is small`);
    if (rules) {
      const chat = toOpenAIChat(messages);
      assert.deepEqual(rules.violations(chat, 'openai'), [], `${label}: turn ${turn + 1}`);
      assert.deepEqual(rules.violations(chat, 'anthropic'), [], `${label}: turn ${turn + 1}`);
    }
  }
  console.log(`# ${label}: live peak ${(report.peak / 2 ** 20).toFixed(1)} MiB above baseline (${(report.peak / OUTPUT_CHARS).toFixed(2)}x the output) at "${report.peakAt}"; max RSS grew ${(report.maxRssGrowth / 2 ** 20).toFixed(0)} MiB`);
}

const directory = mkdtempSync(join(tmpdir(), 'strata-streamed-'));

test('memory store: a 50 MB output returned as a string, and as a web ReadableStream<string>', async () => {
  assertAccepted(await runChild({ backend: 'memory', shape: 'string', chars: OUTPUT_CHARS }), 'memory, string');
  assertAccepted(await runChild({ backend: 'memory', shape: 'readable', chars: OUTPUT_CHARS }), 'memory, ReadableStream');
});

test('SQLite store: a 50 MB output returned as a string, and as an AsyncIterable<string>', async () => {
  assertAccepted(await runChild({ backend: 'sqlite', shape: 'string', chars: OUTPUT_CHARS, sqlitePath: join(directory, 'string.db') }), 'SQLite, string');
  assertAccepted(await runChild({ backend: 'sqlite', shape: 'iterable', chars: OUTPUT_CHARS, sqlitePath: join(directory, 'iterable.db') }), 'SQLite, AsyncIterable');
});

const target = postgresTestTarget();
test('PostgreSQL store: a 50 MB output returned as an AsyncIterable<string>', { skip: target.skip }, async () => {
  try {
    assertAccepted(await runChild({ backend: 'postgres', shape: 'iterable', chars: OUTPUT_CHARS, postgres: { url: target.url!, schema: target.schema! } }), 'PostgreSQL, AsyncIterable');
  } finally {
    await dropSchema(target.url!, target.schema!);
  }
});

test('the measurement can fail: a tool that keeps four extra copies of its output is over the bound', async () => {
  const report = await runChild({ backend: 'memory', shape: 'string', chars: OUTPUT_CHARS, wastefulCopies: 4 });
  assert.ok(report.peak > 3 * OUTPUT_CHARS, `peak ${(report.peak / 2 ** 20).toFixed(1)} MiB`);
});
