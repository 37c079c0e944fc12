// A LangChain chat model that answers from a script, for the adapter's tests.
// It uses only what @langchain/core has had since 1.0.0 (BaseChatModel), so the
// same tests run against the oldest core the adapter's peer range admits and
// the newest (core's own `fakeModel` appeared later than 1.0.0).
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';

/** A scripted reply: the message itself, or made from the messages the model was given. */
export type ScriptedChatReply = AIMessage | ((messages: BaseMessage[]) => AIMessage);

/**
 * Answers each call with the next reply of its script, in order; a call past
 * the end fails naming the call. Tools bound to it are accepted and ignored
 * (the script names the calls). `calls` holds each call's messages, as core's
 * `fakeModel` records them.
 */
export class ScriptedChatModel extends BaseChatModel {
  private readonly replies: ScriptedChatReply[] = [];
  readonly calls: Array<{ readonly messages: BaseMessage[] }> = [];

  constructor() {
    super({});
  }

  /** Appends a reply to the script. */
  respond(reply: ScriptedChatReply): this {
    this.replies.push(reply);
    return this;
  }

  _llmType(): string {
    return 'strata-scripted';
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.push({ messages });
    const reply = this.replies.shift();
    if (reply === undefined) throw new Error(`ScriptedChatModel: call ${this.calls.length} has no scripted reply`);
    const message = typeof reply === 'function' ? reply(messages) : reply;
    return { generations: [{ message, text: typeof message.content === 'string' ? message.content : '' }] };
  }
}

/** A new scripted chat model (the tests' stand-in for core's `fakeModel`). */
export function scriptedChatModel(): ScriptedChatModel {
  return new ScriptedChatModel();
}
