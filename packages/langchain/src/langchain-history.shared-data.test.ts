import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalMessage } from '@strata/context';
import { loadAllSharedConversations } from '@strata/testing';
import { importLangChainMessages, toLangChainMessage } from './langchain-history.js';

function visible(message: CanonicalMessage): CanonicalMessage {
  if (message.role === 'tool') {
    const { outputRef: _ref, masked: _masked, ...rest } = message;
    return rest;
  }
  if (message.role === 'user') {
    const { hidden: _hidden, authority: _authority, checkpoint: _checkpoint, ...rest } = message;
    return rest;
  }
  return message;
}

test('shared-data histories go to LangChain messages and back losslessly', (t) => {
  const conversations = loadAllSharedConversations();
  if (!conversations) return t.skip('../shared is absent');
  let messages = 0;
  for (const conversation of conversations) {
    const langchain = conversation.messages.map(toLangChainMessage);
    const imported = importLangChainMessages(langchain);
    const label = `${conversation.source}#${conversation.index}`;
    assert.deepEqual(imported.map(({ message }) => message), conversation.messages.map(visible), label);
    imported.forEach(({ origin }, index) => assert.equal(origin, langchain[index], `${label} message ${index}`));
    messages += conversation.messages.length;
  }
  assert.ok(messages > 1_000, `replayed ${messages} messages`);
});
