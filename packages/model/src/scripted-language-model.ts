import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
} from '@ai-sdk/provider';
import type { JsonValue } from '@strata/context';
import type { ModelUsage } from './model-client.js';

export type ScriptedPart =
  | { readonly type: 'text'; readonly text: string; readonly providerMetadata?: SharedV3ProviderMetadata }
  | { readonly type: 'reasoning'; readonly text: string; readonly providerMetadata?: SharedV3ProviderMetadata }
  /** `rawInput` is sent verbatim instead of `JSON.stringify(input)` (to script malformed arguments). */
  | { readonly type: 'tool-call'; readonly id: string; readonly name: string; readonly input?: JsonValue; readonly rawInput?: string; readonly providerMetadata?: SharedV3ProviderMetadata }
  /** An error part in the middle of the stream, as providers send for a failure after the response began. */
  | { readonly type: 'error'; readonly error: unknown }
  /** The stream stops producing and waits for the abort signal (to script a stall or a timeout). */
  | { readonly type: 'hang' };

/** One scripted model call. */
export interface ScriptedTurn {
  readonly parts?: readonly ScriptedPart[];
  /** Default: `tool-calls` when the turn has tool calls, else `stop`. */
  readonly finishReason?: LanguageModelV3FinishReason['unified'];
  readonly rawFinishReason?: string;
  readonly usage?: ModelUsage;
  /** Provider metadata of the `finish` part. */
  readonly providerMetadata?: SharedV3ProviderMetadata;
  /** When set, the call fails with this before any stream (an HTTP error, a refused connection). */
  readonly throws?: unknown;
}

export interface ScriptedLanguageModelOptions {
  /** Provider id reported to the adapter; `anthropic.messages` makes the adapter map options as for Anthropic. Default `scripted`. */
  readonly provider?: string;
  readonly modelId?: string;
}

/**
 * A deterministic `LanguageModelV3` (the "recorder"): replays one scripted
 * turn per call, in order, as the stream parts a real provider sends (text
 * split into word deltas, reasoning, tool input deltas then the tool call,
 * usage in `finish`); records the exact call options of every call in
 * `calls`; produces each part only when read, so an abort between parts
 * stops it there; never touches the network. A call past the end of the
 * script fails with an error naming the call.
 */
export class ScriptedLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  /** The call options of every `doStream` / `doGenerate` call, as received. */
  readonly calls: LanguageModelV3CallOptions[] = [];
  private readonly script: readonly ScriptedTurn[];

  constructor(script: readonly ScriptedTurn[], options: ScriptedLanguageModelOptions = {}) {
    this.script = script;
    this.provider = options.provider ?? 'scripted';
    this.modelId = options.modelId ?? 'scripted-model';
  }

  /** Calls made so far. */
  get callCount(): number {
    return this.calls.length;
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const turn = this.nextTurn(options);
    const parts = scriptedParts(turn, true);
    const signal = options.abortSignal;
    let index = 0;
    let onAbort: (() => void) | undefined;
    const stream = new ReadableStream<LanguageModelV3StreamPart>(
      {
        start(controller) {
          if (signal === undefined) return;
          onAbort = () => controller.error(signal.reason);
          signal.addEventListener('abort', onAbort, { once: true });
        },
        pull(controller) {
          if (signal?.aborted === true) return;
          const next = parts[index];
          index += 1;
          if (next === undefined) {
            if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
            controller.close();
            return;
          }
          if (next === HANG) return new Promise<void>(() => undefined);
          controller.enqueue(next);
          return undefined;
        },
        cancel() {
          if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
        },
      },
      { highWaterMark: 0 },
    );
    return { stream, request: { body: { prompt: options.prompt } } };
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const turn = this.nextTurn(options);
    const content: LanguageModelV3Content[] = [];
    for (const part of turn.parts ?? []) {
      if (part.type === 'text') content.push({ type: 'text', text: part.text, ...metadata(part.providerMetadata) });
      else if (part.type === 'reasoning') content.push({ type: 'reasoning', text: part.text, ...metadata(part.providerMetadata) });
      else if (part.type === 'tool-call') content.push({ type: 'tool-call', toolCallId: part.id, toolName: part.name, input: toolInputText(part), ...metadata(part.providerMetadata) });
      else if (part.type === 'error') throw part.error;
      else throw new Error('ScriptedLanguageModel: a `hang` part needs doStream');
    }
    return {
      content,
      finishReason: finishReasonOf(turn),
      usage: toV3Usage(turn.usage),
      ...metadata(turn.providerMetadata),
      warnings: [],
    };
  }

  private nextTurn(options: LanguageModelV3CallOptions): ScriptedTurn {
    this.calls.push(options);
    options.abortSignal?.throwIfAborted();
    const turn = this.script[this.calls.length - 1];
    if (turn === undefined) {
      throw new Error(`ScriptedLanguageModel: call ${this.calls.length} has no scripted turn (the script has ${this.script.length})`);
    }
    if (turn.throws !== undefined) throw turn.throws;
    return turn;
  }
}

const HANG = Symbol('hang');

/**
 * The `LanguageModelV3` stream parts of a scripted turn, as a provider would
 * send them (`hang` parts excluded; they exist only for `ScriptedLanguageModel`).
 */
export function scriptedStreamParts(turn: ScriptedTurn): LanguageModelV3StreamPart[] {
  return scriptedParts(turn, false).filter((part): part is LanguageModelV3StreamPart => part !== HANG);
}

function scriptedParts(turn: ScriptedTurn, keepHang: boolean): Array<LanguageModelV3StreamPart | typeof HANG> {
  const parts: Array<LanguageModelV3StreamPart | typeof HANG> = [{ type: 'stream-start', warnings: [] }];
  (turn.parts ?? []).forEach((part, index) => {
    switch (part.type) {
      case 'text': {
        const id = `text-${index}`;
        parts.push({ type: 'text-start', id, ...metadata(part.providerMetadata) });
        for (const delta of wordDeltas(part.text)) parts.push({ type: 'text-delta', id, delta });
        parts.push({ type: 'text-end', id });
        break;
      }
      case 'reasoning': {
        const id = `reasoning-${index}`;
        parts.push({ type: 'reasoning-start', id });
        for (const delta of wordDeltas(part.text)) parts.push({ type: 'reasoning-delta', id, delta });
        parts.push({ type: 'reasoning-end', id, ...metadata(part.providerMetadata) });
        break;
      }
      case 'tool-call': {
        const input = toolInputText(part);
        parts.push({ type: 'tool-input-start', id: part.id, toolName: part.name });
        parts.push({ type: 'tool-input-delta', id: part.id, delta: input });
        parts.push({ type: 'tool-input-end', id: part.id });
        parts.push({ type: 'tool-call', toolCallId: part.id, toolName: part.name, input, ...metadata(part.providerMetadata) });
        break;
      }
      case 'error':
        parts.push({ type: 'error', error: part.error });
        break;
      case 'hang':
        if (keepHang) parts.push(HANG);
        break;
    }
  });
  parts.push({ type: 'finish', finishReason: finishReasonOf(turn), usage: toV3Usage(turn.usage), ...metadata(turn.providerMetadata) });
  return parts;
}

function finishReasonOf(turn: ScriptedTurn): LanguageModelV3FinishReason {
  const hasToolCalls = (turn.parts ?? []).some((part) => part.type === 'tool-call');
  return { unified: turn.finishReason ?? (hasToolCalls ? 'tool-calls' : 'stop'), raw: turn.rawFinishReason };
}

function toolInputText(part: Extract<ScriptedPart, { type: 'tool-call' }>): string {
  return part.rawInput ?? JSON.stringify(part.input ?? {});
}

/** Words with their trailing whitespace: the deltas concatenate to `text` exactly. */
function wordDeltas(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text.length === 0 ? [] : [text]);
}

function metadata(providerMetadata: SharedV3ProviderMetadata | undefined): { providerMetadata?: SharedV3ProviderMetadata } {
  return providerMetadata === undefined ? {} : { providerMetadata };
}

function toV3Usage(usage: ModelUsage | undefined): LanguageModelV3Usage {
  const input = usage?.inputTokens;
  const cached = usage?.cachedInputTokens;
  return {
    inputTokens: {
      total: input,
      noCache: input === undefined ? undefined : input - (cached ?? 0),
      cacheRead: cached,
      cacheWrite: usage?.cacheWriteInputTokens,
    },
    outputTokens: {
      total: usage?.outputTokens,
      text: usage?.outputTokens === undefined ? undefined : usage.outputTokens - (usage.reasoningTokens ?? 0),
      reasoning: usage?.reasoningTokens,
    },
  };
}
