import type { CanonicalMessage } from './messages.js';

const fingerprints = new WeakMap<CanonicalMessage, string>();

/**
 * A short, stable fingerprint of a message's content (its JSON text): the
 * same for equal messages in any process, so a persisted position can be
 * checked against the history it points into. Two 32-bit FNV-1a hashes with
 * different offsets and the text's length; hand-written, since the pure
 * package takes no crypto and this is a check, not a security boundary.
 * Cached per message object.
 */
export function messageFingerprint(message: CanonicalMessage): string {
  let fingerprint = fingerprints.get(message);
  if (fingerprint !== undefined) return fingerprint;
  const text = JSON.stringify(message);
  let first = 0x811c9dc5;
  let second = 0x01000193 ^ text.length;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    first = Math.imul(first ^ unit, 0x01000193);
    second = Math.imul(second ^ unit, 0x01000193) ^ (second >>> 13);
  }
  fingerprint = `${(first >>> 0).toString(16).padStart(8, '0')}${(second >>> 0).toString(16).padStart(8, '0')}-${text.length.toString(36)}`;
  fingerprints.set(message, fingerprint);
  return fingerprint;
}

/** The fingerprint of a list from the list before its last element (`''` for the empty list) and that element's fingerprint. */
export function chainFingerprint(previous: string, fingerprint: string): string {
  let first = 0x811c9dc5;
  let second = 0x9e3779b9;
  const text = `${previous.slice(0, 16)}|${fingerprint}`;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    first = Math.imul(first ^ unit, 0x01000193);
    second = Math.imul(second ^ unit, 0x5bd1e995) ^ (second >>> 15);
  }
  return `${(first >>> 0).toString(16).padStart(8, '0')}${(second >>> 0).toString(16).padStart(8, '0')}`;
}
