import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.SkillContractError');

export interface SkillViolation {
  /** Stable code, e.g. `SKILL_SEGMENT_OUTSIDE_INPUT_TAGS`. */
  readonly code: string;
  /** The offending field as a path, e.g. `contextSegments[2].tags[0]`. */
  readonly field: string;
  readonly message: string;
}

/**
 * A worker skill breaks the design checklist (seed 004 §10). Every violation
 * found is listed; the message names the skill and each field.
 */
export class SkillContractError extends StrataError {
  readonly [MARKER] = true;
  readonly skill: string;
  readonly violations: readonly SkillViolation[];

  constructor(options: { skill: string; violations: readonly SkillViolation[] }) {
    const lines = options.violations.map((violation) => `  ${violation.field}: ${violation.message} [${violation.code}]`);
    super({ name: 'SkillContractError', kind: 'input', message: `skill "${options.skill}" breaks its contract:\n${lines.join('\n')}` });
    this.skill = options.skill;
    this.violations = options.violations;
  }

  static override isInstance(error: unknown): error is SkillContractError {
    return markerCheck(MARKER)(error);
  }
}
