import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalMessage, SessionStore } from '@strata/context';
import { SessionConflictError } from '../errors/session-conflict-error.js';
import { StoreAccessError } from '../errors/store-access-error.js';
import { StoreInputError } from '../errors/store-input-error.js';
import { runStoreChild, startStoreChild } from './child-process.js';
import type { StoreContractOptions } from './tool-output-store-contract.js';

const user = (content: string): CanonicalMessage => ({ role: 'user', content });

/** A history touching every message shape and awkward text. */
export function sampleHistory(): CanonicalMessage[] {
  return [
    { role: 'system', content: 'You are a careful agent.' },
    { role: 'user', content: '请把 README 翻译成英文 😀', hidden: true, authority: 'data_only' },
    {
      role: 'assistant',
      content: '',
      reasoning: [{ text: 'need the file', providerMetadata: { anthropic: { signature: 'sig==' } } }],
      toolCalls: [
        { id: 'call_1', name: 'read_file', input: { path: 'README.md', range: [1, 20], deep: { a: null, b: true } } },
        { id: 'call_2', name: 'shell', input: 'not json {' },
      ],
      providerMetadata: { openai: { responseId: 'resp_1' } },
    },
    {
      role: 'tool',
      toolCallId: 'call_1',
      toolName: 'read_file',
      content: 'head…tail',
      masked: true,
      outputRef: { id: 'out_0000000000abcdefghjkmnpqrs', chars: 10, lines: 2, bytes: 12 },
    },
    { role: 'tool', toolCallId: 'call_2', toolName: 'shell', content: 'control \u0000\u0001\u001f NUL, lone \ud800 and \udc00 surrogates', isError: true },
    { role: 'user', content: 'checkpoint text', checkpoint: true },
    { role: 'assistant', content: '完成。'.repeat(200_000) },
  ];
}

/** Every `SessionStore` passes this suite: one call per backend. */
export function sessionStoreContract(options: StoreContractOptions<SessionStore>): void {
  if (options.skip !== undefined) {
    console.log(`# notice: ${options.name} skipped: ${options.skip}`);
    test(options.name, { skip: options.skip }, () => undefined);
    return;
  }
  const open = async (): Promise<SessionStore> => options.open();
  const contextId = (): string => `ctx-${randomUUID()}`;
  const withStore = async (work: (store: SessionStore) => Promise<void>): Promise<void> => {
    const store = await open();
    try {
      await work(store);
    } finally {
      await store.close();
    }
  };

  describe(options.name, () => {
    test('a context never written has no versions', () =>
      withStore(async (store) => {
        const context = contextId();
        assert.equal(await store.load(context), undefined);
        assert.deepEqual(await store.versions(context), []);
        assert.equal(await store.loadVersion(context, 1), undefined);
      }));

    test('each append is a new version holding the whole history so far', () =>
      withStore(async (store) => {
        const context = contextId();
        const first = await store.append(context, [user('one'), user('two')]);
        assert.equal(first.version, 1);
        assert.equal(first.contextId, context);
        assert.deepEqual(first.messages, [user('one'), user('two')]);
        assert.equal('compaction' in first, false);
        assert.ok(Number.isFinite(Date.parse(first.createdAt)));
        const second = await store.append(context, [user('three')]);
        assert.equal(second.version, 2);
        assert.deepEqual(second.messages, [user('one'), user('two'), user('three')]);
        const third = await store.append(context, []);
        assert.equal(third.version, 3);
        assert.deepEqual(third.messages, second.messages);
        assert.deepEqual(await store.versions(context), [1, 2, 3]);
        assert.deepEqual((await store.load(context))?.messages, [user('one'), user('two'), user('three')]);
        assert.deepEqual((await store.loadVersion(context, 1))?.messages, [user('one'), user('two')]);
        assert.deepEqual(await store.load(context), await store.loadVersion(context, 3));
      }));

    test('every message shape and awkward text round-trips deep-equal', () =>
      withStore(async (store) => {
        const context = contextId();
        const history = sampleHistory();
        await store.append(context, history.slice(0, 3));
        const saved = await store.append(context, history.slice(3));
        assert.deepEqual(saved.messages, history);
        assert.deepEqual((await store.load(context))?.messages, history);
      }));

    test('replace records a compaction version; what it replaced stays loadable', () =>
      withStore(async (store) => {
        const context = contextId();
        await store.append(context, [user('a'), user('b')]);
        await store.append(context, [user('c')]);
        const compaction = { reason: 'token-pressure', replacedFromVersion: 2, replacedMessages: 2 };
        const replaced = await store.replace(context, [user('checkpoint of a, b'), user('c')], compaction);
        assert.equal(replaced.version, 3);
        assert.deepEqual(replaced.compaction, compaction);
        assert.deepEqual(replaced.messages, [user('checkpoint of a, b'), user('c')]);
        const next = await store.append(context, [user('d')]);
        assert.equal(next.version, 4);
        assert.equal('compaction' in next, false);
        assert.deepEqual(next.messages, [user('checkpoint of a, b'), user('c'), user('d')]);
        assert.deepEqual((await store.loadVersion(context, 2))?.messages, [user('a'), user('b'), user('c')]);
        assert.deepEqual((await store.loadVersion(context, 3))?.compaction, compaction);
        assert.deepEqual(await store.versions(context), [1, 2, 3, 4]);
      }));

    test('replace from a version that is no longer the newest is refused and changes nothing', () =>
      withStore(async (store) => {
        const context = contextId();
        await store.append(context, [user('a')]);
        await store.append(context, [user('b')]);
        await assert.rejects(
          store.replace(context, [user('summary')], { reason: 'token-pressure', replacedFromVersion: 1, replacedMessages: 1 }),
          (error: unknown) => SessionConflictError.isInstance(error) && error.expectedVersion === 1 && error.actualVersion === 2,
        );
        await assert.rejects(
          store.replace(contextId(), [user('summary')], { reason: 'token-pressure', replacedFromVersion: 3, replacedMessages: 1 }),
          (error: unknown) => SessionConflictError.isInstance(error) && error.actualVersion === 0,
        );
        assert.deepEqual(await store.versions(context), [1, 2]);
        assert.deepEqual((await store.load(context))?.messages, [user('a'), user('b')]);
      }));

    test('a conditional append writes only on the version it expects', () =>
      withStore(async (store) => {
        const context = contextId();
        assert.equal((await store.append(context, [user('a')], { expectedVersion: 0 })).version, 1);
        await store.append(context, [user('foreign')]);
        await assert.rejects(
          store.append(context, [user('b')], { expectedVersion: 1 }),
          (error: unknown) => SessionConflictError.isInstance(error) && error.expectedVersion === 1 && error.actualVersion === 2,
        );
        await assert.rejects(store.append(contextId(), [user('x')], { expectedVersion: 1 }), (error: unknown) => SessionConflictError.isInstance(error) && error.actualVersion === 0);
        await assert.rejects(store.append(context, [user('b')], { expectedVersion: -1 }), (error: unknown) => StoreInputError.isInstance(error));
        assert.equal((await store.append(context, [user('b')], { expectedVersion: 2 })).version, 3);
        assert.deepEqual((await store.load(context))?.messages, [user('a'), user('foreign'), user('b')]);
      }));

    test('bad input is refused naming the culprit, and nothing is written', () =>
      withStore(async (store) => {
        const context = contextId();
        await store.append(context, [user('kept')]);
        const cyclic: Record<string, unknown> = { role: 'user', content: 'x' };
        cyclic['self'] = cyclic;
        const attempts: ReadonlyArray<readonly [string, () => Promise<unknown>]> = [
          ['contextId', () => store.append('', [user('x')])],
          ['messages[1]', () => store.append(context, [user('fine'), { role: 'bot', content: 'x' } as unknown as CanonicalMessage])],
          ['messages[0]', () => store.append(context, [cyclic as unknown as CanonicalMessage])],
          ['compaction.reason', () => store.replace(context, [], { reason: '', replacedFromVersion: 1, replacedMessages: 0 })],
          ['compaction.replacedMessages', () => store.replace(context, [], { reason: 'x', replacedFromVersion: 1, replacedMessages: -1 })],
          ['version', () => store.loadVersion(context, 0)],
        ];
        for (const [culprit, attempt] of attempts) {
          await assert.rejects(attempt(), (error: unknown) => StoreInputError.isInstance(error) && error.culprit === culprit, culprit);
        }
        assert.deepEqual(await store.versions(context), [1]);
        assert.deepEqual((await store.load(context))?.messages, [user('kept')]);
      }));

    test('the session state is kept with its version, carried over by writes that give none, and replaced by those that do', () =>
      withStore(async (store) => {
        const id = contextId();
        const first = { context: { version: 1 as const, windowStart: { index: 3, fingerprint: 'abc-1' }, capacityStep: 2, lastInputTokens: 900 }, run: { lanes: { plan: [['p', { items: ['a'] }, 'call_1']] } } };
        const written = await store.append(id, [user('task')], { state: first });
        assert.deepEqual(written.state, first);
        // An append without a state keeps the newest version's.
        const appended = await store.append(id, [user('more')]);
        assert.deepEqual(appended.state, first);
        assert.deepEqual((await store.load(id))?.state, first);
        // A compaction records its own state in the same version as its history.
        const second = { context: { version: 1 as const, capacityStep: 2 } };
        const replaced = await store.replace(id, [user('checkpoint')], { reason: 'token-pressure', replacedFromVersion: 2, replacedMessages: 2 }, { state: second });
        assert.deepEqual(replaced.state, second);
        assert.deepEqual((await store.load(id))?.state, second);
        assert.deepEqual((await store.loadVersion(id, 1))?.state, first);
        // A state-only version: no messages, a new state.
        const third = { context: { version: 1 as const, capacityStep: 2, lastInputTokens: 10 } };
        const stateOnly = await store.append(id, [], { expectedVersion: 3, state: third });
        assert.deepEqual(stateOnly.messages, [user('checkpoint')]);
        assert.deepEqual((await store.load(id))?.state, third);
        // A session written without any state has none.
        const plain = contextId();
        assert.equal((await store.append(plain, [user('task')])).state, undefined);
      }));

    test('a state that is not one is refused naming the field, and nothing is written', () =>
      withStore(async (store) => {
        const id = contextId();
        await store.append(id, [user('task')]);
        for (const [state, culprit] of [
          [42, 'state'],
          [{ context: { version: 7 } }, 'state.context.version'],
          [{ context: { version: 1, capacityStep: -1 } }, 'state.context.capacityStep'],
          [{ context: { version: 1, windowStart: { index: 1 } } }, 'state.context.windowStart.fingerprint'],
          [{ run: { big: 10n } }, 'state.run'],
        ] as const) {
          await assert.rejects(store.append(id, [user('x')], { state: state as never }), (error: unknown) => StoreInputError.isInstance(error) && error.culprit === culprit);
        }
        assert.deepEqual(await store.versions(id), [1]);
      }));

    test('a loaded history is a copy: changing it changes nothing stored', () =>
      withStore(async (store) => {
        const context = contextId();
        const messages = [user('original')];
        await store.append(context, messages);
        (messages as CanonicalMessage[]).push(user('added after'));
        const loaded = await store.load(context);
        (loaded!.messages as CanonicalMessage[]).push(user('changed'));
        assert.deepEqual((await store.load(context))?.messages, [user('original')]);
      }));

    test('100 parallel appends from two stores get consecutive versions and lose nothing', async () => {
      const context = contextId();
      const first = await open();
      const second = options.sharesData === false ? first : await open();
      try {
        const count = 100;
        const saved = await Promise.all(Array.from({ length: count }, (_, index) => (index % 2 === 0 ? first : second).append(context, [user(`m${index}`)])));
        assert.deepEqual(
          saved.map((version) => version.version).sort((left, right) => left - right),
          Array.from({ length: count }, (_, index) => index + 1),
        );
        const final = await first.load(context);
        assert.equal(final?.version, count);
        assert.deepEqual(
          final?.messages.map((message) => message.content).sort(),
          Array.from({ length: count }, (_, index) => `m${index}`).sort(),
        );
        // Each returned version is a prefix of the final history, one message per version.
        for (const version of saved) assert.deepEqual(version.messages, final?.messages.slice(0, version.version));
      } finally {
        await first.close();
        if (second !== first) await second.close();
      }
    });

    test('a closed store refuses work with STORE_CLOSED', async () => {
      const store = await open();
      const context = contextId();
      await store.append(context, [user('before close')]);
      await store.close();
      await assert.rejects(store.load(context), (error: unknown) => StoreAccessError.isInstance(error) && error.code === 'STORE_CLOSED');
      await assert.rejects(store.append(context, [user('x')]), (error: unknown) => StoreAccessError.isInstance(error) && error.code === 'STORE_CLOSED');
    });

    const childOpen = options.childOpen;
    if (childOpen !== undefined) {
      test('a history written by a process that has exited resumes here', async () => {
        const context = contextId();
        const history = sampleHistory();
        await runStoreChild({
          childOpen,
          input: { context, history },
          work: `await opened.append(input.context, input.history.slice(0, 2));
            await opened.append(input.context, input.history.slice(2));
            await opened.replace(input.context, input.history.slice(5), { reason: 'message-count', replacedFromVersion: 2, replacedMessages: 5 });`,
        });
        await withStore(async (store) => {
          assert.deepEqual(await store.versions(context), [1, 2, 3]);
          assert.deepEqual((await store.loadVersion(context, 2))?.messages, history);
          const newest = await store.load(context);
          assert.deepEqual(newest?.messages, history.slice(5));
          assert.deepEqual(newest?.compaction, { reason: 'message-count', replacedFromVersion: 2, replacedMessages: 5 });
          assert.equal((await store.append(context, [user('resumed')])).version, 4);
        });
      });

      test('a child process and this process append at the same time: consecutive versions, each writer in order', async () => {
        const context = contextId();
        const count = 60;
        const child = startStoreChild({
          childOpen,
          input: { context, count },
          work: `for (let index = 0; index < input.count; index += 1) await opened.append(input.context, [{ role: 'user', content: 'child ' + index }]);`,
        });
        await child.ready;
        await withStore(async (store) => {
          child.go();
          for (let index = 0; index < count; index += 1) await store.append(context, [user(`parent ${index}`)]);
          await child.result;
          const final = await store.load(context);
          assert.equal(final?.version, 2 * count);
          assert.deepEqual(await store.versions(context), Array.from({ length: 2 * count }, (_, index) => index + 1));
          const contents = final!.messages.map((message) => message.content);
          for (const writer of ['child', 'parent']) {
            assert.deepEqual(
              contents.filter((content) => content.startsWith(writer)),
              Array.from({ length: count }, (_, index) => `${writer} ${index}`),
            );
          }
        });
      });
    }
  });
}
