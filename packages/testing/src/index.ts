// Test helpers shared by the packages' tests and the benchmarks. Private: never published.

// The shared real data (`../shared`, or $STRATA_SHARED_DIR) and the provider-rules oracle
export { sharedDirectory, readSharedData, loadProviderRules } from './shared-data.js';
export type { ProviderRules, ProviderRuleViolation } from './shared-data.js';

// Real conversations as canonical histories
export {
  SWE_AGENT_TRAJECTORIES,
  loadTauBenchConversations,
  loadSweAgentConversations,
  loadShareGptConversations,
  loadAlpacaConversations,
  loadAllSharedConversations,
  withCallIdSuffix,
} from './conversations.js';
export type { SharedConversation } from './conversations.js';

// Generators of canonical histories for property tests
export { historyArbitrary, textArbitrary } from './history-arbitrary.js';

// Many turns over a history with signed reasoning, under pressure, checked turn by turn
export { carriesSignature, memoryOutputStore, runSignedSession, scriptedSummarizer, signatureKey, stepsOf } from './signed-session.js';
export type { SignedSessionOutcome, SignedSessionTurn } from './signed-session.js';

// What a provider format carries of a canonical message (for round-trip tests)
export { modelVisibleFields } from './model-visible.js';

// LangChain messages and OpenAI Agents items as the oracle reads them
export { langChainAsOpenAIChat } from './langchain-chat.js';
export { agentItemsAsOpenAIChat } from './agents-chat.js';

// Timers a test fires by hand (no sleeping).
export { manualTimers } from './manual-timers.js';

// One of each credential shape, and where one leaked (for the redaction's acceptance tests)
export { CREDENTIAL_SAMPLES, credentialSampleText, leakedCredentials } from './credential-samples.js';
export type { CredentialSample } from './credential-samples.js';

// Concurrent runs: calls interleaved in a fixed order; a run's requests against the same run's alone (reference ids renamed, cost as caches bill it)
export { renumberRefs, cachePricedCost, turnstile, alternating, firstDifference, contextsShown, digitToolOutputIds, withRefsRenamed, assertRunKeptApart } from './run-requests.js';
export type { KeptApartRun, RunScript } from './run-requests.js';

// Corpora the conservative estimator is fitted and checked on: ICU text in every locale, mixed scripts,
// the shapes that break character-based guesses, the machine's gettext catalogs, and prose written for it.
export { GETTEXT_ROOT, gettextCorpus, icuCorpus, mixedScriptCorpus, readGettextCatalogs, normalizedUtf8Bytes, scriptCharacters, stressCorpus } from './estimator-corpus.js';
export type { CorpusItem, GettextCatalog } from './estimator-corpus.js';
export { PROSE_LANGUAGES, PROSE_PARAGRAPHS, proseCorpus } from './estimator-prose.js';
export type { ProseLanguage } from './estimator-prose.js';

// The real tokenizers of the families with a public one (development dependencies), for the estimator's tests and fit.
export { REFERENCE_TOKENIZERS, loadReferenceCounters } from './family-tokenizers.js';
export type { ReferenceCounters, ReferenceTokenizer, TokenCounter } from './family-tokenizers.js';

// A local model server that counts what it receives (OpenAI chat or Anthropic wire), may cut prompts past its window, and says its window
export { startChatTestServer } from './chat-test-server.js';
export type { ChatReply, ChatTestServerOptions, CountedRequest } from './chat-test-server.js';

// A PostgreSQL schema of its own for each test file (`STRATA_TEST_POSTGRES_URL`)
export { POSTGRES_TEST_URL_VARIABLE, dropSchema, postgresTestTarget } from './postgres-test-target.js';

// The blackboard's test-only helpers (its store contract, the indexed assembly property, the worked example of seed 004)
export { runBlackboardStoreContract, runIndexedAssemblyProperty, WORKED_NARRATOR_MESSAGES, WORKED_NARRATOR_TASK, WORKED_SHARED_CONTEXT, workedEntries, workedSkills } from './blackboard-helpers.js';
export type { BlackboardStoreContractOptions, IndexedAssemblyPropertyOptions } from './blackboard-helpers.js';

// A LangChain chat model answering from a script (core 1.0.0 and later)
export { ScriptedChatModel, scriptedChatModel } from './langchain-scripted-model.js';
export type { ScriptedChatReply } from './langchain-scripted-model.js';

// A local OTLP/HTTP collector and readers of what it got (telemetry tests)
export { closedPort, otlpAttribute, otlpReceiver, otlpSpans, withOtel } from './otlp-receiver.js';
export type { OtlpAttribute, OtlpExport, OtlpSpan, OtlpValue } from './otlp-receiver.js';
