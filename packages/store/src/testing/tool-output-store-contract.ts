import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ToolOutputStore } from '@strata/context';
import { StoreAccessError } from '../errors/store-access-error.js';
import { StoreInputError } from '../errors/store-input-error.js';
import { countLines, isToolOutputId } from '../tool-output-body.js';
import { startStoreChild, runStoreChild } from './child-process.js';
import { sampleBodies } from './sample-bodies.js';

export interface StoreContractOptions<Store> {
  /** Shown as the suite's name. */
  readonly name: string;
  /** A store over the same data on every call (a new connection for a persistent backend). */
  readonly open: () => Promise<Store> | Store;
  /** When set, the suite is skipped with this reason, printed as a `# notice:` line. */
  readonly skip?: string;
  /**
   * For a persistent backend: an expression over `store` (this package's
   * namespace) that a child process evaluates to open a store over the same
   * data. Enables the reopen-after-exit and cross-process tests.
   */
  readonly childOpen?: string;
  /**
   * False when each `open()` makes a new, empty store (memory): tests that
   * use two stores over the same data then use one. Default: true.
   */
  readonly sharesData?: boolean;
  /** Runs of each property. Default: 40. */
  readonly propertyRuns?: number;
  /** A store over the same data whose ids are made from the call (`derivedToolOutputId`): enables the tests of one call put twice at once. */
  readonly openDerived?: () => Promise<Store> | Store;
  /** For a backend that keeps pieces in a table: reach behind the store to count and damage them. */
  readonly pieces?: {
    /** Piece rows in the whole table. */
    count(): Promise<number>;
    /** Overwrites the bytes of one piece of a stored output. */
    damage(outputId: string, seq: number): Promise<void>;
  };
}

/** The body as chunks cut at the given lengths (cycled), so cuts fall anywhere, even inside a surrogate pair. */
async function* chunked(body: string, lengths: readonly number[]): AsyncGenerator<string> {
  let at = 0;
  for (let index = 0; at < body.length; index += 1) {
    const length = lengths[index % lengths.length]!;
    yield body.slice(at, at + length);
    at += length;
  }
}

/** Every `ToolOutputStore` passes this suite: one call per backend. */
export function toolOutputStoreContract(options: StoreContractOptions<ToolOutputStore>): void {
  if (options.skip !== undefined) {
    console.log(`# notice: ${options.name} skipped: ${options.skip}`);
    test(options.name, { skip: options.skip }, () => undefined);
    return;
  }
  const open = async (): Promise<ToolOutputStore> => options.open();
  const contextId = (): string => `ctx-${randomUUID()}`;
  const withStore = async (work: (store: ToolOutputStore) => Promise<void>): Promise<void> => {
    const store = await open();
    try {
      await work(store);
    } finally {
      await store.close();
    }
  };

  describe(options.name, () => {
    test('put returns a reference measured from the body; get returns every field', () =>
      withStore(async (store) => {
        const context = contextId();
        const body = 'line one\nline two 中文\r\nline three 😀\n';
        const ref = await store.put({ contextId: context, toolCallId: 'call_1', toolName: 'read_file', body });
        assert.ok(isToolOutputId(ref.id), `id ${ref.id} is shaped out_ + 26 base-32 characters`);
        // Hand-counted: 9 + 13 + 14 = 36 UTF-16 units (😀 is two); 3 lines; 32 ASCII bytes + 6 (中文) + 4 (😀) = 42 UTF-8 bytes.
        assert.deepEqual({ chars: ref.chars, lines: ref.lines, bytes: ref.bytes }, { chars: 36, lines: 3, bytes: 42 });
        const stored = await store.get(ref.id);
        assert.ok(stored);
        assert.deepEqual(stored.ref, ref);
        assert.equal(stored.contextId, context);
        assert.equal(stored.toolCallId, 'call_1');
        assert.equal(stored.toolName, 'read_file');
        assert.equal(stored.body, body);
        assert.ok(Number.isFinite(Date.parse(stored.createdAt)), `createdAt ${stored.createdAt} is a date`);
      }));

    test('large, binary-looking, CJK and lone-surrogate bodies round-trip byte-exact', () =>
      withStore(async (store) => {
        const context = contextId();
        for (const sample of sampleBodies()) {
          const ref = await store.put({ contextId: context, toolCallId: `call_${sample.name}`, toolName: 'tool', body: sample.body });
          assert.equal(ref.chars, sample.body.length, sample.name);
          assert.equal(ref.bytes, Buffer.byteLength(sample.body, 'utf8'), sample.name);
          const stored = await store.get(ref.id);
          assert.ok(stored, sample.name);
          // Compare code unit by code unit: equal strings, equal UTF-16 bytes.
          assert.ok(Buffer.from(stored.body, 'utf16le').equals(Buffer.from(sample.body, 'utf16le')), `${sample.name} differs`);
          assert.deepEqual(stored.ref, ref, sample.name);
        }
      }));

    test('any sequence of UTF-16 code units round-trips (property)', () =>
      withStore(async (store) => {
        const context = contextId();
        const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
        await fc.assert(
          fc.asyncProperty(fc.string({ unit: codeUnit, maxLength: 300 }), async (body) => {
            const ref = await store.put({ contextId: context, toolCallId: 'call_property', toolName: 'tool', body });
            const stored = await store.get(ref.id);
            return stored !== undefined && stored.body === body && stored.ref.chars === body.length;
          }),
          { numRuns: options.propertyRuns ?? 40 },
        );
      }));

    test('line counting: empty is 0, a trailing newline closes the last line, CRLF counts once', () =>
      withStore(async (store) => {
        const context = contextId();
        const cases: ReadonlyArray<readonly [string, number]> = [['', 0], ['a', 1], ['a\n', 1], ['a\nb', 2], ['\n', 1], ['a\r\nb\r\n', 2], ['a\rb', 1], ['\n\n', 2]];
        for (const [body, lines] of cases) {
          const ref = await store.put({ contextId: context, toolCallId: 'call_lines', toolName: 'tool', body });
          assert.equal(ref.lines, lines, JSON.stringify(body));
        }
      }));

    test('an unknown or malformed reference gives undefined', () =>
      withStore(async (store) => {
        assert.equal(await store.get('out_0000000000zzzzzzzzzzzzzzzz'), undefined);
        assert.equal(await store.get('not-an-id'), undefined);
        assert.equal(await store.get(''), undefined);
      }));

    test("list gives a context's outputs oldest first, without bodies, and nothing of other contexts", () =>
      withStore(async (store) => {
        assert.ok(store.list, 'the store lists a context');
        const context = contextId();
        const other = contextId();
        const refs = [];
        for (const [index, body] of ['first', 'second', 'third'].entries()) {
          refs.push(await store.put({ contextId: context, toolCallId: `call_${index}`, toolName: `tool_${index}`, body }));
          await store.put({ contextId: other, toolCallId: `other_${index}`, toolName: 'tool', body });
        }
        const listed = await store.list(context);
        assert.deepEqual(
          listed.map((entry) => [entry.refId, entry.toolCallId, entry.toolName]),
          refs.map((ref, index) => [ref.id, `call_${index}`, `tool_${index}`]),
        );
        for (const entry of listed) assert.ok(Number.isFinite(Date.parse(entry.createdAt)), `createdAt ${entry.createdAt} is a date`);
        assert.deepEqual(await store.list(contextId()), []);
      }));

    test('every put gets its own reference, even for the same body', () =>
      withStore(async (store) => {
        const context = contextId();
        const first = await store.put({ contextId: context, toolCallId: 'call_a', toolName: 'tool', body: 'same' });
        const second = await store.put({ contextId: context, toolCallId: 'call_b', toolName: 'tool', body: 'same' });
        assert.notEqual(first.id, second.id);
        assert.equal((await store.get(first.id))?.toolCallId, 'call_a');
        assert.equal((await store.get(second.id))?.toolCallId, 'call_b');
      }));

    test('200 parallel puts on one store, and parallel puts from two stores, all land', async () => {
      const context = contextId();
      const first = await open();
      const second = options.sharesData === false ? first : await open();
      try {
        const bodies = Array.from({ length: 200 }, (_, index) => `body ${index} ${'中'.repeat(index)}\u0000${index}`);
        const refs = await Promise.all(
          bodies.map((body, index) => (index % 3 === 0 ? second : first).put({ contextId: context, toolCallId: `call_${index}`, toolName: 'tool', body })),
        );
        assert.equal(new Set(refs.map((ref) => ref.id)).size, bodies.length);
        const readBack = await Promise.all(refs.map((ref, index) => (index % 2 === 0 ? first : second).get(ref.id)));
        readBack.forEach((stored, index) => assert.equal(stored?.body, bodies[index], `body ${index}`));
      } finally {
        await first.close();
        await second.close();
      }
    });

    const { openDerived } = options;
    if (openDerived !== undefined) {
      test('ids from the call: one call put from two stores at once (a retry while the first is in flight) is one output; another body under the call is refused and the first stays whole', async () => {
        const first = await openDerived();
        const second = options.sharesData === false ? first : await openDerived();
        try {
          const context = contextId();
          const output = (toolCallId: string, body: string) => ({ contextId: context, toolCallId, toolName: 'tool', body });
          const streamed = (store: ToolOutputStore, toolCallId: string, body: string, lengths: readonly number[]) => store.putStream!({ contextId: context, toolCallId, toolName: 'tool', body: chunked(body, lengths) });
          // Inline bodies: both puts give the one reference.
          for (let round = 0; round < 20; round += 1) {
            const body = `result ${round} ${'中'.repeat(round)}`;
            const [a, b] = await Promise.all([first.put(output(`call_${round}`, body)), second.put(output(`call_${round}`, body))]);
            assert.deepEqual(a, b);
            assert.equal((await first.get(a.id))?.body, body);
          }
          // A body of several pieces, streamed by both at once: at least one put lands, a failure is an error (never a
          // reference to nothing), and the stored body reads back whole.
          const long = 'line of a long log\n'.repeat(40_000);
          const settled = await Promise.allSettled([streamed(first, 'call_long', long, [100_003]), streamed(second, 'call_long', long, [70_001])]);
          const landed = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
          assert.ok(landed.length >= 1, 'one of the two puts landed');
          for (const ref of landed) assert.equal((await second.get(ref.id))?.body, long);
          // Another body under a call already stored, put at once with the same body again: the stored body stays whole.
          const other = await Promise.allSettled([first.put(output('call_long', 'another body')), streamed(second, 'call_long', long, [50_000])]);
          assert.equal(other[0].status, 'rejected');
          assert.ok(StoreInputError.isInstance((other[0] as PromiseRejectedResult).reason), 'another body is refused as STORE_INVALID_ID');
          assert.equal((await first.get(landed[0]!.id))?.body, long);
          const entries = await first.list!(context);
          assert.equal(entries.length, 21, 'one output per call');
        } finally {
          await first.close();
          if (second !== first) await second.close();
        }
      });

      test('ids from the call: two different bodies under one call put at once: one is stored whole, the other refused', async () => {
        const first = await openDerived();
        const second = options.sharesData === false ? first : await openDerived();
        try {
          const context = contextId();
          const bodies = ['first log line\n'.repeat(50_000), 'second log line\n'.repeat(50_000)];
          const settled = await Promise.allSettled(bodies.map((body, index) => (index === 0 ? first : second).putStream!({ contextId: context, toolCallId: 'call', toolName: 'tool', body: chunked(body, [90_000 + index]) })));
          const landed = settled.flatMap((result, index) => (result.status === 'fulfilled' ? [{ ref: result.value, body: bodies[index]! }] : []));
          assert.ok(landed.length <= 1, 'one call holds one output');
          for (const { ref, body } of landed) assert.equal((await first.get(ref.id))?.body, body, 'the stored body reads back whole');
          for (const result of settled) if (result.status === 'rejected') assert.ok(result.reason instanceof Error, 'a refused put is an error');
        } finally {
          await first.close();
          if (second !== first) await second.close();
        }
      });
    }

    test('bad input is refused naming the field, and earlier bodies stay readable', () =>
      withStore(async (store) => {
        const context = contextId();
        const kept = await store.put({ contextId: context, toolCallId: 'call_kept', toolName: 'tool', body: 'kept' });
        const attempts: ReadonlyArray<readonly [string, () => Promise<unknown>]> = [
          ['contextId', () => store.put({ contextId: '', toolCallId: 'call', toolName: 'tool', body: 'x' })],
          ['toolCallId', () => store.put({ contextId: context, toolCallId: 'bad\u0000id', toolName: 'tool', body: 'x' })],
          ['toolName', () => store.put({ contextId: context, toolCallId: 'call', toolName: 'bad\ud800', body: 'x' })],
          ['body', () => store.put({ contextId: context, toolCallId: 'call', toolName: 'tool', body: 42 as unknown as string })],
        ];
        for (const [field, attempt] of attempts) {
          await assert.rejects(attempt(), (error: unknown) => StoreInputError.isInstance(error) && error.culprit === field && error.kind === 'input', field);
        }
        assert.equal((await store.get(kept.id))?.body, 'kept');
      }));

    test('a closed store refuses work with STORE_CLOSED', async () => {
      const store = await open();
      const ref = await store.put({ contextId: contextId(), toolCallId: 'call', toolName: 'tool', body: 'before close' });
      await store.close();
      await assert.rejects(store.get(ref.id), (error: unknown) => StoreAccessError.isInstance(error) && error.code === 'STORE_CLOSED');
      await assert.rejects(
        store.put({ contextId: contextId(), toolCallId: 'call', toolName: 'tool', body: 'after close' }),
        (error: unknown) => StoreAccessError.isInstance(error) && error.code === 'STORE_CLOSED',
      );
      let read = false;
      const stream = (async function* () {
        read = true;
        yield 'after close';
      })();
      await assert.rejects(
        store.putStream!({ contextId: contextId(), toolCallId: 'call', toolName: 'tool', body: stream }),
        (error: unknown) => StoreAccessError.isInstance(error) && error.code === 'STORE_CLOSED',
      );
      assert.equal(read, false, 'a closed store refuses before reading the stream');
      await store.close();
    });

    test('a streamed body is stored byte-exact and measured as the same string put whole, however it is cut', () =>
      withStore(async (store) => {
        assert.ok(store.putStream, 'every store of ours streams');
        const context = contextId();
        for (const sample of sampleBodies()) {
          for (const lengths of [[1], [7, 1, 300_001, 3], [1_000_000]]) {
            if (lengths[0] === 1 && sample.body.length > 20_000) continue;
            const ref = await store.putStream({ contextId: context, toolCallId: 'call_stream', toolName: 'tool', body: chunked(sample.body, lengths) });
            assert.deepEqual({ chars: ref.chars, lines: ref.lines, bytes: ref.bytes }, { chars: sample.body.length, lines: countLines(sample.body), bytes: Buffer.byteLength(sample.body, 'utf8') }, sample.name);
            const stored = await store.get(ref.id);
            assert.ok(stored !== undefined && Buffer.from(stored.body, 'utf16le').equals(Buffer.from(sample.body, 'utf16le')), `${sample.name} cut ${lengths.join(',')} differs`);
            assert.deepEqual(stored.ref, ref);
          }
        }
      }));

    test('a web ReadableStream<string> is a stream; any code units cut anywhere round-trip (property)', () =>
      withStore(async (store) => {
        const context = contextId();
        const parts = ['head 中文 ', '\ud83d', '\ude00 😀', '', 'x'.repeat(600_000), '\ud800'];
        const body = parts.join('');
        const readable = new ReadableStream<string>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        });
        const ref = await store.putStream!({ contextId: context, toolCallId: 'call_web', toolName: 'tool', body: readable });
        assert.equal((await store.get(ref.id))?.body, body);
        const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
        await fc.assert(
          fc.asyncProperty(fc.string({ unit: codeUnit, maxLength: 300 }), fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }), async (text, lengths) => {
            const streamed = await store.putStream!({ contextId: context, toolCallId: 'call_property', toolName: 'tool', body: chunked(text, lengths) });
            const stored = await store.get(streamed.id);
            return stored !== undefined && stored.body === text && stored.ref.lines === countLines(text) && stored.ref.bytes === Buffer.byteLength(text, 'utf8');
          }),
          { numRuns: options.propertyRuns ?? 40 },
        );
      }));

    test('a stream that fails or is aborted part way stores nothing, keeps no pieces and closes the stream', () =>
      withStore(async (store) => {
        const context = contextId();
        const before = await options.pieces?.count();
        let closed = 0;
        async function* failing(failAfter: number): AsyncGenerator<string> {
          try {
            for (let index = 0; ; index += 1) {
              if (index === failAfter) throw new Error('the tool died');
              yield 'y'.repeat(100_000) + '\n';
            }
          } finally {
            closed += 1;
          }
        }
        await assert.rejects(store.putStream!({ contextId: context, toolCallId: 'call_fail', toolName: 'tool', body: failing(12) }), /the tool died/);
        const controller = new AbortController();
        const aborting = (async function* () {
          for await (const chunk of failing(1_000)) {
            yield chunk;
            if (closed === 1) controller.abort(new Error('run cancelled'));
          }
        })();
        await assert.rejects(store.putStream!({ contextId: context, toolCallId: 'call_abort', toolName: 'tool', body: aborting, signal: controller.signal }), /run cancelled/);
        assert.equal(closed, 2, 'both streams were closed');
        const notText = (async function* () {
          yield 'x'.repeat(400_000);
          yield 42 as unknown as string;
        })();
        await assert.rejects(
          store.putStream!({ contextId: context, toolCallId: 'call_bad', toolName: 'tool', body: notText }),
          (error: unknown) => StoreInputError.isInstance(error) && error.culprit === 'body',
        );
        if (options.pieces) assert.equal(await options.pieces.count(), before, 'no piece of a failed put is left');
      }));

    if (options.pieces) {
      const pieces = options.pieces;
      test('a damaged piece reads as STORE_CORRUPTED, never as a wrong body', () =>
        withStore(async (store) => {
          const body = 'z'.repeat(700_000);
          const ref = await store.put({ contextId: contextId(), toolCallId: 'call_damaged', toolName: 'tool', body });
          const intact = await store.put({ contextId: contextId(), toolCallId: 'call_intact', toolName: 'tool', body });
          await pieces.damage(ref.id, 1);
          await assert.rejects(store.get(ref.id), (error: unknown) => StoreAccessError.isInstance(error) && error.code === 'STORE_CORRUPTED' && error.message.includes(ref.id));
          assert.equal((await store.get(intact.id))?.body, body);
        }));
    }

    const childOpen = options.childOpen;
    if (childOpen !== undefined) {
      test('bodies written by a process that has exited are read back byte-exact', async () => {
        const context = contextId();
        const bodies = sampleBodies()
          .filter((sample) => sample.body.length < 1_000_000)
          .map((sample) => sample.body);
        const refs = (await runStoreChild({
          childOpen,
          input: { context, bodies },
          work: `const refs = [];
            for (const [index, body] of input.bodies.entries()) refs.push(await opened.put({ contextId: input.context, toolCallId: 'call_' + index, toolName: 'child', body }));
            return refs;`,
        })) as Array<{ id: string; chars: number }>;
        await withStore(async (store) => {
          for (const [index, body] of bodies.entries()) {
            const stored = await store.get(refs[index]!.id);
            assert.equal(stored?.body, body, `body ${index}`);
            assert.equal(stored?.toolName, 'child');
            assert.deepEqual(stored?.ref, refs[index]);
          }
        });
      });

      test('a child process and this process put at the same time; nothing is lost', async () => {
        const context = contextId();
        const count = 150;
        const child = startStoreChild({
          childOpen,
          input: { context, count },
          work: `const refs = await Promise.all(Array.from({ length: input.count }, (_, index) =>
              opened.put({ contextId: input.context, toolCallId: 'child_' + index, toolName: 'child', body: 'child body ' + index })));
            return refs.map((ref) => ref.id);`,
        });
        await child.ready;
        await withStore(async (store) => {
          child.go();
          const ownIds = await Promise.all(
            Array.from({ length: count }, async (_, index) => (await store.put({ contextId: context, toolCallId: `parent_${index}`, toolName: 'parent', body: `parent body ${index}` })).id),
          );
          const childIds = (await child.result) as string[];
          assert.equal(new Set([...ownIds, ...childIds]).size, 2 * count);
          for (const [index, id] of childIds.entries()) assert.equal((await store.get(id))?.body, `child body ${index}`);
          for (const [index, id] of ownIds.entries()) assert.equal((await store.get(id))?.body, `parent body ${index}`);
        });
      });
    }
  });
}
