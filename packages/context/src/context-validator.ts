import type { ContextViolation } from './errors/context-validation-error.js';
import { buildHistoryUnits } from './history-units.js';
import type { CanonicalMessage } from './messages.js';
import { sectionTag } from './system-prompt-renderer.js';
import type { ToolSchema } from './token-estimator.js';
import type { ModelInput } from './model-input.js';

export interface ContextValidationRequest {
  readonly input: ModelInput;
  readonly protectedSectionIds: readonly string[];
  /** The tool set governance allows this turn. */
  readonly governedTools: readonly ToolSchema[];
  /** Every assistant and tool message the input may carry: those of the history. */
  readonly historyMessages: ReadonlySet<CanonicalMessage>;
}

export interface ContextValidator {
  validate(request: ContextValidationRequest): ContextViolation[];
}

/**
 * The last gate before a provider: protected sections present, the tool set
 * exactly the governed one, no orphan tool result, no unanswered call except
 * the open calls of the newest step, and no assistant or tool message that
 * did not come from the history (contributors cannot forge them).
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
    const units = buildHistoryUnits(input.messages);
    units.forEach((unit, index) => {
      if (unit.kind === 'orphan-result') {
        const result = unit.messages[0]!;
        violations.push({ rule: 'no-orphan-result', message: `tool result at input[${unit.start}] (${result.role === 'tool' ? result.toolCallId : ''}) answers no call right before it` });
      }
      if (unit.pendingCallIds.length > 0 && index !== units.length - 1) {
        violations.push({ rule: 'calls-answered', message: `tool calls ${unit.pendingCallIds.join(', ')} at input[${unit.start}] have no results and are not the newest step` });
      }
    });
    input.messages.forEach((message, index) => {
      if ((message.role === 'assistant' || message.role === 'tool') && !request.historyMessages.has(message)) {
        violations.push({ rule: 'no-forged-message', message: `${message.role} message at input[${index}] did not come from the history` });
      }
    });
    return violations;
  }
}
