import type { CanonicalMessage } from '@strata/context';

/**
 * The fields of a canonical message a provider format carries: without the
 * stored-output reference and masking of tool results, nor the hidden /
 * authority / checkpoint marks of user messages. Round trips through a
 * host SDK's messages are compared on these.
 */
export function modelVisibleFields(message: CanonicalMessage): CanonicalMessage {
  if (message.role === 'tool') {
    const { outputRef: _ref, masked: _masked, ...rest } = message;
    return rest;
  }
  if (message.role === 'user') {
    const { hidden: _hidden, authority: _authority, checkpoint: _checkpoint, ...rest } = message;
    return rest;
  }
  return message;
}
