import assert from 'node:assert/strict';
import { CACHE_PRICING, ConservativeTokenEstimator, type CanonicalMessage, type ToolOutputStore } from '@strata/context';
import type { ProviderRules } from './shared-data.js';

/** Stored-output reference ids as the stores make them (`out_` and 26 base-32 characters). */
const STORE_REF = /out_[0-9a-z]{26}/g;

/**
 * A request's text with each stored-output reference renamed by its order of
 * first appearance across `names` (`ref#1`, `ref#2`, ...): reference ids are
 * random, so two runs that send the same bytes but for them compare equal.
 * Pass one `names` map for every request of a run.
 */
export function renumberRefs(text: string, names: Map<string, string> = new Map(), pattern: RegExp = STORE_REF): string {
  return text.replace(new RegExp(pattern.source, 'g'), (ref) => {
    let name = names.get(ref);
    if (name === undefined) names.set(ref, (name = `ref#${names.size + 1}`));
    return name;
  });
}

const estimator = new ConservativeTokenEstimator({ family: 'unknown' });

/**
 * The input cost of a run's requests as providers bill prompt caches
 * (`CACHE_PRICING`): each request's prefix of whole messages equal to the
 * previous request's at the cached price, the rest at the new price, in
 * conservative tokens. Two runs with the same requests cost the same; one
 * whose prefix another run broke costs more.
 */
export function cachePricedCost(requests: readonly (readonly CanonicalMessage[])[]): number {
  let cost = 0;
  let previous: readonly string[] = [];
  for (const request of requests) {
    const texts = request.map((message) => JSON.stringify(message));
    let prefix = 0;
    while (prefix < texts.length && prefix < previous.length && texts[prefix] === previous[prefix]) prefix += 1;
    for (const [index, message] of request.entries()) cost += estimator.countMessage(message) * (index < prefix ? CACHE_PRICING.cachedToken : CACHE_PRICING.newToken);
    previous = texts;
  }
  return Math.round(cost);
}

/**
 * Model calls released in a fixed order across runs (`order` names a run per call), so two concurrent runs
 * interleave the same way every time; past the end of `order`, calls pass as they come. No timers.
 */
export function turnstile(order: readonly string[]): { pass(run: string): Promise<void> } {
  let position = 0;
  const waiting = new Map<string, () => void>();
  const release = (): void => {
    for (let next = order[position]; next !== undefined && waiting.has(next); next = order[position]) {
      const resume = waiting.get(next)!;
      waiting.delete(next);
      position += 1;
      resume();
    }
  };
  return {
    pass(run) {
      if (position >= order.length) return Promise.resolve();
      const passed = new Promise<void>((resolve) => waiting.set(run, resolve));
      release();
      return passed;
    },
  };
}

/** Where two texts first differ, with a little of each around it; undefined when equal. */
export function firstDifference(actual: string, expected: string): string | undefined {
  if (actual === expected) return undefined;
  let at = 0;
  while (actual[at] === expected[at]) at += 1;
  return `at ${at}: ${JSON.stringify(actual.slice(Math.max(0, at - 80), at + 80))} against ${JSON.stringify(expected.slice(Math.max(0, at - 80), at + 80))}`;
}

/** A, B, B, A, A, B, ...: each run's calls interleaved with the other's. */
export function alternating(calls: number): string[] {
  return Array.from({ length: calls * 2 }, (_, index) => (Math.floor((index + 1) / 2) % 2 === 0 ? 'A' : 'B'));
}

/** A run of the adapters' concurrency tests: its name in the turnstile, its task, whose records it fetches, its call ids' prefix. */
export interface RunScript {
  readonly name: string;
  readonly task: string;
  readonly data: string;
  readonly callPrefix: string;
}

/**
 * What each run was shown of the output store: the contexts of the stored
 * references in its requests (`requests[run]`, any JSON-serialisable form),
 * and the bodies each of those contexts stores, oldest first.
 */
export async function contextsShown(outputStore: ToolOutputStore, requests: readonly unknown[]): Promise<{ refContexts: Set<string>[]; bodies: Map<string, string[]> }> {
  const refContexts: Set<string>[] = [];
  const bodies = new Map<string, string[]>();
  for (const runRequests of requests) {
    const refs = new Set(JSON.stringify(runRequests).match(STORE_REF) ?? []);
    const contexts = new Set(await Promise.all([...refs].map(async (ref) => (await outputStore.get(ref))!.contextId)));
    refContexts.push(contexts);
    for (const contextId of contexts) {
      const entries = (await outputStore.list?.(contextId)) ?? [];
      bodies.set(contextId, await Promise.all(entries.map(async (entry) => (await outputStore.get(entry.refId))!.body)));
    }
  }
  return { refContexts, bodies };
}

/**
 * Reference ids of digits only, in order (`out_` and 26 digits, a valid id):
 * every id costs the same tokens, so a run's decisions cannot depend on the
 * letters a random id happened to get. For tests that compare a run's
 * requests across stores (with `renumberRefs`); a store's `newId`.
 */
export function digitToolOutputIds(): () => string {
  let next = 0;
  return () => `out_${String((next += 1)).padStart(26, '0')}`;
}

/** Texts (a context's stored bodies) with their reference ids renamed by first appearance across the list (`renumberRefs`). */
export function withRefsRenamed(texts: readonly string[] | undefined): string[] | undefined {
  if (texts === undefined) return undefined;
  const names = new Map<string, string>();
  return texts.map((text) => renumberRefs(text, names));
}

/** One run of a concurrency test, as the SDK's test reads it: what it sent interleaved with another, and alone. */
export interface KeptApartRun {
  readonly script: RunScript;
  /** Model calls of the run's own script: searches and reads follow the steps. */
  readonly steps: number;
  /** Each request in the OpenAI chat shape the provider-rules oracle reads. */
  readonly chats: readonly unknown[];
  /** Its requests with references renamed, and their cost, interleaved with the other run and alone. */
  readonly together: { readonly requests: readonly string[]; readonly cost: number };
  readonly alone: { readonly requests: readonly string[]; readonly cost: number };
  /** The tool results its last request carries, by call id. */
  readonly answers: ReadonlyMap<string, string>;
  /** What the read of a stored output must show of its own records. */
  readonly readPattern: RegExp;
  /** The contexts of the references it was shown, and what each stores, interleaved; what its one context stores alone. */
  readonly refContexts: ReadonlySet<string>;
  readonly bodies: ReadonlyMap<string, string[]>;
  readonly aloneBodies: readonly string[] | undefined;
}

/**
 * The concurrency acceptance of a host-loop adapter, for one run: every call
 * made and valid for both providers; every request and the cost as the run
 * sends them alone; its search found its own outputs only and its read its
 * own record; every reference it saw is of one context, which stores what
 * the run stores alone.
 */
export function assertRunKeptApart(run: KeptApartRun, rules: ProviderRules | undefined): void {
  const { script, steps } = run;
  assert.equal(run.chats.length, steps + 3, `run ${script.name}: every call made`);
  if (rules) {
    for (const [call, chat] of run.chats.entries()) {
      assert.deepEqual(rules.violations(chat as never, 'openai'), [], `run ${script.name} request ${call} (openai)`);
      assert.deepEqual(rules.violations(chat as never, 'anthropic'), [], `run ${script.name} request ${call} (anthropic)`);
    }
  }
  assert.equal(run.together.requests.length, run.alone.requests.length, `run ${script.name}: as many requests as alone`);
  for (const [call, request] of run.together.requests.entries()) assert.equal(firstDifference(request, run.alone.requests[call]!), undefined, `run ${script.name} request ${call}: what it sends alone`);
  assert.equal(run.together.cost, run.alone.cost, `run ${script.name}: the cost it has alone`);
  assert.match(run.answers.get(`${script.callPrefix}-${steps + 1}`) ?? '', new RegExp(`found in ${steps} of ${steps} stored outputs of this context`), `run ${script.name}: the search`);
  assert.match(run.answers.get(`${script.callPrefix}-${steps + 2}`) ?? '', run.readPattern, `run ${script.name}: the read`);
  assert.equal(run.refContexts.size, 1, `run ${script.name}: the references it sees are of one context`);
  const [own] = run.refContexts;
  // Stored read_tool_output answers name references: renamed by first appearance on each side, as the requests are.
  assert.deepEqual(withRefsRenamed(run.bodies.get(own!)), withRefsRenamed(run.aloneBodies), `run ${script.name}: its stored outputs`);
}
