import type { ContextViolation } from './errors/context-validation-error.js';
import { buildHistoryUnits } from './history-units.js';
import type { CanonicalMessage } from './messages.js';
import { sectionTag } from './system-prompt-renderer.js';
import type { ToolSchema } from './token-estimator.js';
import type { ModelInput } from './model-input.js';
import { isSignedAssistant } from './signed-reasoning.js';
import { isJsonObject } from './tool-call-pairing.js';
import { wrapperBalanceProblem } from './wrapper-markup.js';

export interface ContextValidationRequest {
  readonly input: ModelInput;
  readonly protectedSectionIds: readonly string[];
  /** The tool set governance allows this turn. */
  readonly governedTools: readonly ToolSchema[];
  /** Every assistant and tool message the input may carry: those of the composed history. */
  readonly historyMessages: { has(message: CanonicalMessage): boolean };
  /**
   * The canonical history's own message objects (never mutated, so the same
   * object is the same bytes). When given, an assistant message with signed
   * reasoning must be one of them: never an edited copy.
   */
  readonly canonicalMessages?: { has(message: CanonicalMessage): boolean };
}

export interface ContextValidator {
  validate(request: ContextValidationRequest): ContextViolation[];
}

/**
 * The last gate before a provider. Authority: protected sections present,
 * the tool set exactly the governed one, no assistant or tool message that
 * did not come from the history (contributors cannot forge them). Provider
 * validity: a user turn first, no empty text, every call id non-empty and
 * unique in the request, arguments as JSON objects, every call answered right
 * after its message and every result answering such a call; an assistant
 * message with signed reasoning exactly as the canonical history holds it
 * (`signed-unchanged`, see `signed-reasoning.ts`). Trust: in
 * every message Strata wraps (system prompts, data_only messages) each
 * wrapper tag (section, checkpoint, attachment, context_message,
 * tool_output) is balanced and none opens inside another, so wrapped data
 * never escaped its wrapper.
 */
export class DefaultContextValidator implements ContextValidator {
  validate(request: ContextValidationRequest): ContextViolation[] {
    const violations: ContextViolation[] = [];
    const { input } = request;
    const system = input.messages[0]?.role === 'system' ? input.messages[0].content : '';
    for (const id of request.protectedSectionIds) {
      if (!system.includes(sectionTag(id))) violations.push({ rule: 'protected-present', message: `protected section "${id}" is missing from the system prompt` });
    }
    const sent = input.tools.map((tool) => tool.name).sort();
    const governed = request.governedTools.map((tool) => tool.name).sort();
    if (sent.join('\n') !== governed.join('\n')) {
      violations.push({ rule: 'governed-tools', message: `tool set [${sent.join(', ')}] differs from the governed set [${governed.join(', ')}]` });
    }
    const conversation = input.messages.findIndex((message) => message.role !== 'system');
    if (conversation < 0) violations.push({ rule: 'user-first', message: 'the input has no message besides the system prompt' });
    else if (input.messages[conversation]!.role !== 'user') violations.push({ rule: 'user-first', message: `the first turn (input[${conversation}]) is not the user's` });
    const callIds = new Set<string>();
    input.messages.forEach((message, index) => {
      if (message.role === 'system' && index > conversation && conversation >= 0) violations.push({ rule: 'system-first', message: `system message at input[${index}] after the conversation started` });
      if ((message.role === 'user' || (message.role === 'assistant' && !message.toolCalls?.length)) && message.content.trim() === '') {
        violations.push({ rule: 'text-nonempty', message: `${message.role} message at input[${index}] has no text` });
      }
      if ((message.role === 'assistant' || message.role === 'tool') && !request.historyMessages.has(message)) {
        violations.push({ rule: 'no-forged-message', message: `${message.role} message at input[${index}] did not come from the history` });
      }
      if (request.canonicalMessages && isSignedAssistant(message) && !request.canonicalMessages.has(message)) {
        violations.push({ rule: 'signed-unchanged', message: `assistant message at input[${index}] carries signed reasoning but is not the canonical message: a signed message goes out unedited` });
      }
      if (message.role === 'system' || (message.role === 'user' && message.authority === 'data_only')) {
        const problem = wrapperBalanceProblem(message.content);
        if (problem !== undefined) violations.push({ rule: 'wrappers-balanced', message: `${message.role} message at input[${index}] has an unbalanced wrapper: ${problem}` });
      }
      for (const call of message.role === 'assistant' ? message.toolCalls ?? [] : []) {
        if (call.id === '' || callIds.has(call.id)) violations.push({ rule: 'call-id-unique', message: `tool call id "${call.id}" at input[${index}] is empty or used before in this request` });
        callIds.add(call.id);
        if (!isJsonObject(call.input)) violations.push({ rule: 'call-arguments-object', message: `tool call "${call.id}" at input[${index}] has arguments that are not a JSON object` });
      }
    });
    for (const unit of buildHistoryUnits(input.messages)) {
      if (unit.kind === 'orphan-result') {
        const result = unit.messages[0]!;
        violations.push({ rule: 'no-orphan-result', message: `tool result at input[${unit.start}] (${result.role === 'tool' ? result.toolCallId : ''}) answers no call right before it` });
      }
      if (unit.pendingCallIds.length > 0) {
        violations.push({ rule: 'calls-answered', message: `tool calls ${unit.pendingCallIds.join(', ')} at input[${unit.start}] have no results right after them` });
      }
    }
    return violations;
  }
}
