import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAllSharedConversations, modelVisibleFields as visible } from '@strata/testing';
import { importLangChainMessages, toLangChainMessage } from './langchain-history.js';


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
