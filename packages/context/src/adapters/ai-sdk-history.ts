import type { HostLoopTurn, ImportedMessage } from '../host-loop-context.js';
import type { CanonicalMessage } from '../messages.js';
import { fromAiSdkMessages } from './ai-sdk-messages.js';

// Lossless round trips of AI SDK (v5 and v6) message lists through the
// canonical history, kept here so that adapters over the AI SDK's shapes
// (@strata/ai-sdk, @strata/mastra) share them without depending on `ai`.

/**
 * The two message shapes of the AI SDK that share one structure: `ModelMessage`
 * (what `prepareStep` sees) and `LanguageModelV3Message` (what a language-model
 * middleware sees). Declared structurally so both fit.
 */
export interface SdkMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: unknown;
  readonly providerOptions?: unknown;
}

/** A part of a tool message: the unit the history keeps for a tool result. */
type ToolPart = { readonly type: string };
type ToolMessage<M> = M & { readonly role: 'tool'; readonly content: readonly ToolPart[] };

/** Where a canonical message came from: a whole message, or one tool-result part of a tool message. */
export type SdkOrigin<M> = { readonly message: M } | { readonly toolMessage: ToolMessage<M>; readonly part: ToolPart };

/**
 * The SDK's messages as canonical history, each with its origin. The importer
 * (`fromAiSdkMessages`) gives one canonical message per message and one per
 * tool-result part (approval responses are not model input), in order, so the
 * two lists line up. `read`, when given, is what the importer reads in place
 * of each message (same roles and tool-result parts; the middleware's images
 * as image parts); the origins stay the messages themselves. Any malformed
 * message is one `ContextInputError` naming it.
 */
export function importSdkMessages<M extends SdkMessage>(messages: readonly M[], read?: (message: M) => SdkMessage): ImportedMessage<SdkOrigin<M>>[] {
  const canonical = fromAiSdkMessages(read === undefined ? messages : messages.map(read));
  const origins: SdkOrigin<M>[] = [];
  for (const message of messages) {
    if (message.role !== 'tool') origins.push({ message });
    else {
      const toolMessage = message as ToolMessage<M>;
      for (const part of toolMessage.content) if (part.type === 'tool-result') origins.push({ toolMessage, part });
    }
  }
  return canonical.map((message, index) => ({ message, origin: origins[index]! }));
}

/**
 * The turn's messages in the SDK's shape: an unchanged message is the SDK's own
 * value (every part and provider option kept); a tool message whose parts all
 * go out together, in order, is the original object; what Strata changed is
 * converted (`convert` turns the canonical message into the target shape).
 */
export function exportSdkMessages<M extends SdkMessage>(turn: Pick<HostLoopTurn<SdkOrigin<M>>, 'messages'>, convert: (message: CanonicalMessage) => M[]): M[] {
  const out: M[] = [];
  /** Consecutive tool results, gathered into tool messages: one run per original tool message. */
  let runs: Array<{ parts: ToolPart[]; original: ToolMessage<M> | undefined }> = [];
  const flush = (): void => {
    for (const { parts, original } of runs) out.push(original && sameParts(original, parts) ? original : toolMessage(parts, original));
    runs = [];
  };
  for (const { message, origin } of turn.messages) {
    if (message.role !== 'tool') {
      flush();
      if (origin !== undefined && 'message' in origin) out.push(origin.message);
      else out.push(...convert(message));
      continue;
    }
    const original = origin !== undefined && 'part' in origin ? origin.toolMessage : undefined;
    const parts = original ? [(origin as { part: ToolPart }).part] : convert(message).flatMap((converted) => converted.content as ToolPart[]);
    const last = runs.at(-1);
    if (last && (original === undefined || last.original === undefined || last.original === original)) {
      last.parts.push(...parts);
      last.original ??= original;
    } else runs.push({ parts, original });
  }
  flush();
  return out;
}

/** True when `parts` are exactly the tool-result parts of `original`, in order. */
function sameParts<M>(original: ToolMessage<M>, parts: readonly ToolPart[]): boolean {
  const results = original.content.filter((part) => part.type === 'tool-result');
  return results.length === parts.length && results.every((part, index) => parts[index] === part);
}

/** A tool message of these parts, keeping the original's provider options when there was one. */
function toolMessage<M>(parts: ToolPart[], original: ToolMessage<M> | undefined): M {
  const providerOptions = (original as SdkMessage | undefined)?.providerOptions;
  return (providerOptions === undefined ? { role: 'tool', content: parts } : { role: 'tool', content: parts, providerOptions }) as M;
}
