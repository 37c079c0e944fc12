import type { CanonicalMessage } from './messages.js';
import type { ToolSchema } from './token-estimator.js';

/**
 * Exactly what one model call receives: the rendered system prompt as the
 * leading system message, then history and call-local messages; the tools
 * sorted by name.
 */
export interface ModelInput {
  readonly messages: readonly CanonicalMessage[];
  readonly tools: readonly ToolSchema[];
}
