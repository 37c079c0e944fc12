import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type CanonicalMessage, fromSweAgentTrajectory, fromTauBenchRun, isToolResult } from '@strata/context';
import { readSharedData } from '@strata/testing';
import { LineIndex, pairSafeOffset } from './line-index.js';
import type { ReadToolOutputArguments } from './read-arguments.js';
import { readToolOutput } from './read-tool-output.js';

function toolBodies(): string[] | undefined {
  const tau = readSharedData('tau-bench/gpt-4o-airline.json');
  if (tau === undefined) return undefined;
  const messages: CanonicalMessage[] = (JSON.parse(tau) as unknown[]).flatMap((run) => fromTauBenchRun(run));
  for (const file of ['function_calling_simple.traj', 'marshmallow-1867.function_calling_replace.traj', 'marshmallow-1867.function_calling_replace_from_source.traj']) {
    const text = readSharedData(`swe-agent/${file}`);
    if (text !== undefined) messages.push(...fromSweAgentTrajectory(JSON.parse(text)));
  }
  return [...new Set(messages.filter(isToolResult).map((message) => message.content))];
}

function follow(body: string, first: ReadToolOutputArguments, maxChars: number): string {
  let request: ReadToolOutputArguments | undefined = first;
  let text = '';
  while (request !== undefined) {
    const result = readToolOutput({ body, arguments: request, maxChars });
    assert.ok(result.ok, result.ok ? '' : result.message);
    assert.ok(result.content.length <= maxChars);
    text += result.text;
    request = result.next;
  }
  return text;
}

test('real tool results (tau-bench, SWE-agent): line and character paging reproduce each body; a query finds a piece of its middle', (context) => {
  const bodies = toolBodies();
  if (bodies === undefined) {
    context.skip('../shared/data is absent');
    return;
  }
  assert.ok(bodies.length > 100);
  let compactJson = 0;
  for (const body of bodies) {
    assert.equal(follow(body, { ref: 'r', lines: { start: 1 } }, 1_000), body);
    assert.equal(follow(body, { ref: 'r', chars: { start: 0 } }, 1_000), body);
    if (body.length > 1_000 && !body.includes('\n')) compactJson += 1;
    const trimmed = body.trim();
    if (trimmed.length < 40) continue;
    const middle = pairSafeOffset(body, Math.floor(body.length / 2));
    const needle = body.slice(middle, pairSafeOffset(body, middle + 12));
    if (/[\r\n]/.test(needle) || needle.trim().length < 6) continue;
    const index = new LineIndex(body);
    const line = index.lineAt(body.indexOf(needle));
    let request: ReadToolOutputArguments | undefined = { ref: 'r', query: needle };
    let found = false;
    while (request !== undefined && !found) {
      const result = readToolOutput({ body, arguments: request, maxChars: 2_000 });
      assert.ok(result.ok, result.ok ? '' : result.message);
      found = result.text.split('\n').some((shown) => new RegExp(`^>\\s*${line}: `).test(shown) && shown.includes(needle));
      request = result.next;
    }
    assert.ok(found, `query ${JSON.stringify(needle)} did not show line ${line}`);
  }
  assert.ok(compactJson > 0, 'the data holds compact JSON results wider than one part');
});
