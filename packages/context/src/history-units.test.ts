import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { historyArbitrary } from '@strata/testing';
import { buildHistoryUnits, forEachUnitSpan, isOpenUnit } from './history-units.js';
import type { CanonicalMessage } from './messages.js';

test('property: forEachUnitSpan gives the places and openness of the units buildHistoryUnits makes, from any unit boundary', () => {
  const stray = fc.constantFrom<CanonicalMessage>({ role: 'tool', toolCallId: 'call_1', toolName: 'search', content: 'stray result' }, { role: 'user', content: 'more' });
  fc.assert(
    fc.property(historyArbitrary({ open: true, maxSteps: 12 }), fc.array(fc.tuple(fc.nat(40), stray), { maxLength: 4 }), fc.nat(20), (base, insertions, skip) => {
      const history: CanonicalMessage[] = [...base];
      for (const [at, message] of insertions) history.splice(at % (history.length + 1), 0, message);
      const units = buildHistoryUnits(history);
      const from = units[Math.min(skip, units.length - 1)]?.start ?? 0;
      const spans: [number, number, boolean][] = [];
      forEachUnitSpan(history, from, (start, end, open) => spans.push([start, end, open]));
      assert.deepEqual(spans, buildHistoryUnits(history, from).map((unit) => [unit.start, unit.end, isOpenUnit(unit)]));
    }),
    { numRuns: 200 },
  );
});
