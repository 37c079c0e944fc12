import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ToolResultMessage } from './messages.js';
import { previewToolResult } from './tool-result-preview.js';

const result = (content: string, withRef = true): ToolResultMessage => ({
  role: 'tool',
  toolCallId: 'c1',
  toolName: 'fetch',
  content,
  ...(withRef ? { outputRef: { id: 'out_1', chars: content.length, lines: 1, bytes: content.length } } : {}),
});

test('a preview keeps head, tail and the reference, and says how to read the rest', () => {
  const body = 'H'.repeat(160) + 'm'.repeat(1_000) + 'T'.repeat(80);
  const preview = previewToolResult(result(body))!;
  assert.equal(preview.masked, true);
  assert.equal(preview.outputRef!.id, 'out_1');
  assert.equal(preview.content, `[stored output ref="out_1": 1240 characters, 1 lines; only the head and tail are shown. Read more with read_tool_output using ref "out_1" and a query or a line range]\n${'H'.repeat(160)}\n[… 1000 characters omitted …]\n${'T'.repeat(80)}`);
});

test('no preview without a reference, for a short body, below minChars, or twice', () => {
  assert.equal(previewToolResult(result('x'.repeat(5_000), false)), undefined);
  assert.equal(previewToolResult(result('x'.repeat(440))), undefined);
  assert.equal(previewToolResult(result('x'.repeat(2_000)), { headChars: 160, tailChars: 80, minChars: 3_000 }), undefined);
  const once = previewToolResult(result('x'.repeat(5_000)))!;
  assert.equal(previewToolResult(once), undefined);
});

test('a preview never splits a surrogate pair and is always shorter', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', minLength: 200, maxLength: 2_000 }), (body) => {
      const preview = previewToolResult(result(body));
      if (!preview) return;
      assert.ok(preview.content.length < body.length, 'a preview is shorter than its body');
      assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(preview.content), 'no lone surrogate');
    }),
  );
});
