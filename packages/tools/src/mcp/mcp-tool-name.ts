import { createHash } from 'node:crypto';

const MAX_TOOL_NAME_CHARS = 64;
const HASH_SUFFIX_CHARS = 8;

/** Letters, digits, `_` and `-` kept; every other character becomes `_`. */
function sanitizeNamePart(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}

/**
 * The registry name of an MCP tool: `mcp__<server>__<tool>`, sanitized to
 * provider rules. A name past 64 characters is cut and ends with 8 hex
 * characters of the full name's SHA-256, so distinct tools stay distinct.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `mcp__${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  if (full.length <= MAX_TOOL_NAME_CHARS) return full;
  const hash = createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, HASH_SUFFIX_CHARS);
  return `${full.slice(0, MAX_TOOL_NAME_CHARS - HASH_SUFFIX_CHARS - 1)}_${hash}`;
}
