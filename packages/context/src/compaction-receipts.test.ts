import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { windowedReceipt, windowReceipts } from './compaction-receipts.js';
import type { WindowStartMark } from './context-state.js';
import { messageFingerprint } from './message-fingerprint.js';
import type { CanonicalMessage } from './messages.js';
import { OUTPUT_INDEX_TAG } from './output-index.js';

/** The receipts by their definition, one pass over the whole history: what the walk from the previous start must give. */
function byDefinition(history: readonly CanonicalMessage[], window: readonly CanonicalMessage[], count: (message: CanonicalMessage) => number, previousStart: WindowStartMark | undefined) {
  const listing = window.find((message) => message.role === 'user' && message.content.startsWith(`<${OUTPUT_INDEX_TAG} `));
  if (listing === undefined) return [];
  const listed = new Set(Array.from(listing.content.matchAll(/ref="([^"]+)"/g), (match) => match[1]!));
  const at = (mark: { readonly index: number; readonly fingerprint: string }) => mark.index >= 0 && mark.index < history.length && messageFingerprint(history[mark.index]!) === mark.fingerprint;
  const previous = previousStart !== undefined && at(previousStart) ? previousStart : undefined;
  const keptBefore = new Set((previous?.before ?? []).filter(at).map((mark) => mark.index));
  const kept = new Set(window);
  return history.flatMap((message, index) => {
    if (message.role !== 'tool' || message.outputRef === undefined || !listed.has(message.outputRef.id) || kept.has(message)) return [];
    if (previous !== undefined && index < previous.index) {
      let start = index;
      while (start > 0 && history[start]!.role === 'tool') start -= 1;
      if (!keptBefore.has(start)) return [];
    }
    return [windowedReceipt(message, index, count(message))];
  });
}

const unit = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 }), fc.constant(-1));

test('window receipts: walked from the previous start and the units kept before it, the receipts one pass over the history gives', () => {
  fc.assert(
    fc.property(fc.array(unit, { minLength: 1, maxLength: 30 }), fc.array(fc.nat(), { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 20 }), fc.nat(), (units, before, listedPicks, keptPicks, startPick) => {
      const history: CanonicalMessage[] = [];
      for (const [position, results] of units.entries()) {
        // -1: a stray result (a unit of its own that is a result), 0: a user turn, n: a call with n stored results.
        if (results === 0) history.push({ role: 'user', content: `turn ${position}` });
        else {
          if (results > 0) history.push({ role: 'assistant', content: '', toolCalls: Array.from({ length: results }, (_, call) => ({ id: `c${position}_${call}`, name: 'read', input: {} })) });
          for (let call = 0; call < Math.max(1, results); call += 1) {
            const id = `c${position}_${call}`;
            history.push({ role: 'tool', toolCallId: id, toolName: 'read', content: `body ${id}`, outputRef: { id: `out_${id}`, chars: 8, lines: 1, bytes: 8 } });
          }
        }
      }
      const refs = history.flatMap((message) => (message.role === 'tool' && message.outputRef ? [message.outputRef.id] : []));
      const listedRefs = listedPicks.map((pick) => refs[pick % Math.max(1, refs.length)]).filter((ref) => ref !== undefined);
      const listing: CanonicalMessage = { role: 'user', content: `<${OUTPUT_INDEX_TAG} count="${listedRefs.length}">\n${listedRefs.map((ref) => `<output ref="${ref}"/>`).join('\n')}\n</${OUTPUT_INDEX_TAG}>`, hidden: true, authority: 'data_only' };
      const window = [listing, ...keptPicks.map((pick) => history[pick % history.length]!)];
      const mark = (index: number) => ({ index, fingerprint: messageFingerprint(history[index % history.length]!) });
      const startIndex = startPick % (history.length + 2);
      const starts: (WindowStartMark | undefined)[] = [undefined, { ...mark(startIndex), index: startIndex, before: before.map((pick) => mark(pick % history.length)) }, { index: startIndex, fingerprint: 'moved' }];
      const count = (message: CanonicalMessage) => message.content.length;
      for (const previousStart of starts) assert.deepEqual(windowReceipts({ history, window, count, previousStart }), byDefinition(history, window, count, previousStart));
    }),
    { numRuns: 400 },
  );
});
