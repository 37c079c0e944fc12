import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModelMessage } from 'ai';
import { exportSdkMessages, fromAiSdkMessages, importSdkMessages, toAiSdkMessages } from '@strata/context';
import { loadAllSharedConversations, modelVisibleFields as visible } from '@strata/testing';
import { toModelMessages } from './ai-sdk-history.js';


test('shared-data histories go to ModelMessages and back losslessly, and unchanged messages go back as the same objects', (t) => {
  const conversations = loadAllSharedConversations();
  if (!conversations) return t.skip('../shared is absent');
  let messages = 0;
  for (const conversation of conversations) {
    const sdk = toAiSdkMessages(conversation.messages) as ModelMessage[];
    const imported = importSdkMessages(sdk);
    const label = `${conversation.source}#${conversation.index}`;
    assert.deepEqual(imported.map(({ message }) => message), conversation.messages.map(visible), label);
    // Through the adapter's way out: every message with its origin is the SDK's own value again.
    const exported = exportSdkMessages({ messages: imported }, (message) => toModelMessages(message));
    assert.equal(exported.length, sdk.length, label);
    exported.forEach((message, index) => assert.equal(message, sdk[index], `${label} message ${index}`));
    // And the conversion of changed messages (no origin) is lossless too.
    const converted = exportSdkMessages({ messages: imported.map(({ message }) => ({ message, origin: undefined })) }, (message) => toModelMessages<ModelMessage>(message));
    assert.deepEqual(fromAiSdkMessages(converted), conversation.messages.map(visible), label);
    messages += conversation.messages.length;
  }
  assert.ok(messages > 1_000, `replayed ${messages} messages`);
});
