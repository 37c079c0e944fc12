import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAllSharedConversations, modelVisibleFields as visible } from '@strata/testing';
import { importAgentItems, toAgentItems } from './agents-history.js';


test('shared-data histories go to agent input items and back losslessly, each message with its own items', (t) => {
  const conversations = loadAllSharedConversations();
  if (!conversations) return t.skip('../shared is absent');
  let messages = 0;
  for (const conversation of conversations) {
    const items = conversation.messages.map(toAgentItems);
    const imported = importAgentItems(items.flat());
    const label = `${conversation.source}#${conversation.index}`;
    assert.deepEqual(imported.map(({ message }) => message), conversation.messages.map(visible), label);
    imported.forEach(({ origin }, index) => assert.deepEqual(origin, items[index], `${label} message ${index}`));
    messages += conversation.messages.length;
  }
  assert.ok(messages > 1_000, `replayed ${messages} messages`);
});
