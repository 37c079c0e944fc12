import type { LanguageModelV3StreamPart, LanguageModelV3Usage, SharedV3ProviderMetadata } from '@ai-sdk/provider';
import type { AssistantMessage, JsonValue, ReasoningPart, ToolCall } from '@strata/context';
import type { ModelEvent, ModelFinishReason, ModelUsage } from './model-client.js';
import { PART_METADATA_KEY, mergeProviderMetadata, parseToolInput } from './prompt-conversion.js';
import type { AssistantPartMetadata } from './prompt-conversion.js';

interface ReasoningBlock {
  text: string;
  providerMetadata: SharedV3ProviderMetadata | undefined;
}

/**
 * Folds the `LanguageModelV3` stream parts of one turn into agent events and
 * the canonical assistant message. Text blocks concatenate in arrival order;
 * reasoning blocks stay separate, each with the merged provider metadata of
 * its start, deltas and end (Anthropic sends its signature in a delta).
 * Provider-executed tool calls are not client tool calls and are left out.
 */
export class AssistantMessageBuilder {
  private text = '';
  private textMetadata: SharedV3ProviderMetadata | undefined;
  private readonly reasoning = new Map<string, ReasoningBlock>();
  private readonly toolCalls: ToolCall[] = [];
  private readonly toolCallMetadata: Record<string, SharedV3ProviderMetadata> = {};
  private finishMetadata: SharedV3ProviderMetadata | undefined;
  private warningTexts: string[] = [];
  /** Set once a `finish` part arrived. */
  finish: { reason: ModelFinishReason; rawReason: string | undefined; usage: ModelUsage } | undefined;
  /** The provider's response id and the model that answered, from the stream's response metadata. */
  response: { id?: string; modelId?: string } = {};
  /** True once any part the consumer sees (text, reasoning, tool call) arrived. */
  hasOutput = false;

  /** Consumes one stream part; returns the events it produces. `error` parts are the caller's. */
  accept(part: LanguageModelV3StreamPart): ModelEvent[] {
    switch (part.type) {
      case 'stream-start':
        this.warningTexts = part.warnings.map((warning) => JSON.stringify(warning));
        return [];
      case 'text-start':
      case 'text-end':
        this.textMetadata = mergeProviderMetadata(this.textMetadata, part.providerMetadata);
        return [];
      case 'text-delta':
        this.textMetadata = mergeProviderMetadata(this.textMetadata, part.providerMetadata);
        if (part.delta.length === 0) return [];
        this.text += part.delta;
        this.hasOutput = true;
        return [{ type: 'text-delta', text: part.delta }];
      case 'reasoning-start':
      case 'reasoning-end':
        this.reasoningBlock(part.id).providerMetadata = mergeProviderMetadata(this.reasoningBlock(part.id).providerMetadata, part.providerMetadata);
        return [];
      case 'reasoning-delta': {
        const block = this.reasoningBlock(part.id);
        block.providerMetadata = mergeProviderMetadata(block.providerMetadata, part.providerMetadata);
        if (part.delta.length === 0) return [];
        block.text += part.delta;
        this.hasOutput = true;
        return [{ type: 'reasoning-delta', text: part.delta }];
      }
      case 'tool-call': {
        if (part.providerExecuted === true) return [];
        const toolCall: ToolCall = { id: part.toolCallId, name: part.toolName, input: parseToolInput(part.input) };
        this.toolCalls.push(toolCall);
        if (part.providerMetadata !== undefined) this.toolCallMetadata[part.toolCallId] = part.providerMetadata;
        this.hasOutput = true;
        return [{ type: 'tool-call', toolCall }];
      }
      case 'response-metadata':
        this.response = { ...this.response, ...(part.id === undefined ? {} : { id: part.id }), ...(part.modelId === undefined ? {} : { modelId: part.modelId }) };
        return [];
      case 'finish': {
        const usage = toModelUsage(part.usage);
        this.finishMetadata = part.providerMetadata;
        this.finish = { reason: part.finishReason.unified, rawReason: part.finishReason.raw, usage };
        return [{ type: 'usage', usage }];
      }
      default:
        // tool-input-*, provider tool results, files, sources, response metadata, raw chunks.
        return [];
    }
  }

  get warnings(): readonly string[] {
    return this.warningTexts;
  }

  /** The canonical assistant message so far; optional fields are absent when empty. */
  message(): AssistantMessage {
    const reasoning: ReasoningPart[] = [];
    for (const block of this.reasoning.values()) {
      if (block.text.length === 0 && block.providerMetadata === undefined) continue;
      reasoning.push({ text: block.text, ...(block.providerMetadata === undefined ? {} : { providerMetadata: block.providerMetadata as ReasoningPart['providerMetadata'] }) });
    }
    const partMetadata: AssistantPartMetadata = {
      ...(this.textMetadata === undefined ? {} : { text: this.textMetadata }),
      ...(Object.keys(this.toolCallMetadata).length === 0 ? {} : { toolCalls: this.toolCallMetadata }),
    };
    const providerMetadata: Record<string, JsonValue> = {
      ...((this.finishMetadata ?? {}) as Record<string, JsonValue>),
      ...(Object.keys(partMetadata).length === 0 ? {} : { [PART_METADATA_KEY]: partMetadata as unknown as JsonValue }),
    };
    return {
      role: 'assistant',
      content: this.text,
      ...(reasoning.length === 0 ? {} : { reasoning }),
      ...(this.toolCalls.length === 0 ? {} : { toolCalls: [...this.toolCalls] }),
      ...(Object.keys(providerMetadata).length === 0 ? {} : { providerMetadata }),
    };
  }

  private reasoningBlock(id: string): ReasoningBlock {
    let block = this.reasoning.get(id);
    if (block === undefined) {
      block = { text: '', providerMetadata: undefined };
      this.reasoning.set(id, block);
    }
    return block;
  }
}

/** `LanguageModelV3Usage` to `ModelUsage`; unreported figures stay absent. */
function toModelUsage(usage: LanguageModelV3Usage): ModelUsage {
  const figures: Record<string, number | undefined> = {
    inputTokens: usage.inputTokens.total,
    outputTokens: usage.outputTokens.total,
    cachedInputTokens: usage.inputTokens.cacheRead,
    cacheWriteInputTokens: usage.inputTokens.cacheWrite,
    reasoningTokens: usage.outputTokens.reasoning,
  };
  return Object.fromEntries(Object.entries(figures).filter((entry): entry is [string, number] => typeof entry[1] === 'number')) as ModelUsage;
}
