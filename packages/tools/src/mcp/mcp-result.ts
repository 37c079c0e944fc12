import type { JsonValue, ToolOutcome } from '@strata/context';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describeThrown, toolErrorOutcome } from '../tool-error.js';
import { neutraliseControlMarkers } from './control-markers.js';

/** The parts of an MCP `CallToolResult` the bridge reads. */
export interface McpCallResult {
  readonly content?: readonly McpContentBlock[];
  readonly structuredContent?: { readonly [key: string]: unknown };
  readonly isError?: boolean;
}

export type McpContentBlock = { readonly type: string; readonly [key: string]: unknown };

export interface McpToolIdentity {
  /** The registry name, e.g. `mcp__files__read`. */
  readonly name: string;
  readonly server: string;
  /** The tool's name on its server. */
  readonly mcpTool: string;
}

/**
 * The text of MCP content blocks. Text is kept as is; images, audio and
 * binary resources become a one-line placeholder (their bytes never enter
 * the context); blocks are joined by newlines.
 */
export function mcpContentText(blocks: readonly McpContentBlock[]): string {
  return blocks.map(blockText).join('\n');
}

function blockText(block: McpContentBlock): string {
  switch (block.type) {
    case 'text':
      return String(block['text'] ?? '');
    case 'image':
    case 'audio': {
      const data = typeof block['data'] === 'string' ? block['data'] : '';
      return `[${block.type} ${String(block['mimeType'] ?? 'unknown type')}, ${Math.floor((data.length * 3) / 4)} bytes, not shown]`;
    }
    case 'resource': {
      const resource = (block['resource'] ?? {}) as { uri?: unknown; text?: unknown; mimeType?: unknown };
      if (typeof resource.text === 'string') return resource.text;
      return `[resource ${String(resource.uri ?? '')}${resource.mimeType === undefined ? '' : ` (${String(resource.mimeType)})`}, binary, not shown]`;
    }
    case 'resource_link':
      return `[resource link ${String(block['uri'] ?? '')}${block['name'] === undefined ? '' : ` "${String(block['name'])}"`}]`;
    default:
      return `[${block.type} content, not shown]`;
  }
}

/**
 * An MCP call result as a tool outcome. `isError` results become a
 * structured `MCP_TOOL_ERROR` carrying the server's text; structured content
 * is kept in `data` (and is the text when there are no content blocks).
 * The text is remote: what imitates our control markers is neutralised
 * before anything stores it, and `data.controlMarkersNeutralised` says what.
 */
export function mcpResultOutcome(identity: McpToolIdentity, result: McpCallResult): ToolOutcome {
  const blocks = result.content ?? [];
  const structured = result.structuredContent;
  const raw = blocks.length > 0 ? mcpContentText(blocks) : structured !== undefined ? JSON.stringify(structured) : '';
  const { text, neutralised } = neutraliseControlMarkers(raw);
  const marks: { [key: string]: JsonValue } = neutralised.length === 0 ? {} : { controlMarkersNeutralised: [...neutralised] };
  if (result.isError === true) {
    const outcome = toolErrorOutcome({
      code: 'MCP_TOOL_ERROR',
      tool: identity.name,
      message: text === '' ? `the MCP tool "${identity.mcpTool}" of server "${identity.server}" reported an error` : text,
      details: { server: identity.server, mcpTool: identity.mcpTool },
    });
    return { ...outcome, data: { ...(outcome.data as { [key: string]: JsonValue }), ...marks } };
  }
  const data: { [key: string]: JsonValue } = { server: identity.server, mcpTool: identity.mcpTool, ...marks };
  if (structured !== undefined) data['structuredContent'] = structured as JsonValue;
  return { content: text, data };
}

/** A thrown protocol failure as a structured outcome: timeout, closed connection, or any other JSON-RPC error. */
export function mcpFailureOutcome(identity: McpToolIdentity, thrown: unknown, connectionClosed: boolean): ToolOutcome {
  const details = { server: identity.server, mcpTool: identity.mcpTool };
  const where = `MCP server "${identity.server}"`;
  if (thrown instanceof McpError && thrown.code === ErrorCode.RequestTimeout) {
    return toolErrorOutcome({ code: 'MCP_TIMEOUT', tool: identity.name, message: `${where} did not answer in time: ${thrown.message}`, details });
  }
  if (connectionClosed || (thrown instanceof McpError && thrown.code === ErrorCode.ConnectionClosed)) {
    return toolErrorOutcome({ code: 'MCP_CONNECTION_CLOSED', tool: identity.name, message: `the connection to ${where} is closed: ${describeThrown(thrown)}`, details });
  }
  const code = thrown instanceof McpError ? thrown.code : undefined;
  return toolErrorOutcome({
    code: 'MCP_PROTOCOL_ERROR',
    tool: identity.name,
    message: `${where} failed the call: ${describeThrown(thrown)}`,
    details: code === undefined ? details : { ...details, mcpErrorCode: code },
  });
}
