import { createHash } from 'node:crypto';

/** A skill's revision: `sha256:` and the lowercase hex SHA-256 of the file's bytes. Any change to the bytes changes it. */
export function skillRevision(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The durable reference a `read_skill` result records. */
export interface SkillReference {
  readonly name: string;
  readonly revision: string;
}
