/** Item types the provider keeps on its side (hosted tools, computer, shell and patch actions, compaction): no chat form. */
const PROVIDER_ITEMS = new Set(['hosted_tool_call', 'computer_call', 'computer_call_result', 'shell_call', 'shell_call_output', 'apply_patch_call', 'apply_patch_call_output', 'tool_search_call', 'tool_search_output', 'compaction']);

/**
 * OpenAI Agents input items in OpenAI chat shape, for the provider-rules
 * oracle: consecutive reasoning, assistant-message and function-call items
 * are one assistant message, a function-call result a tool message.
 * Provider-side items are left out (`providerItems: 'skip'`) or kept as a
 * message of role `unknown:<type>` the oracle reports (the default,
 * `'flag'`), as is any other item type.
 */
export function agentItemsAsOpenAIChat(instructions: string | undefined, items: readonly unknown[], options: { readonly providerItems?: 'flag' | 'skip' } = {}): unknown[] {
  const out: Array<Record<string, unknown>> = instructions ? [{ role: 'system', content: instructions }] : [];
  let open: Record<string, unknown> | undefined;
  for (const item of items) {
    const fields = item as Record<string, unknown>;
    const type = fields.type ?? 'message';
    if (type === 'reasoning' || type === 'function_call' || (type === 'message' && fields.role === 'assistant')) {
      if (!open) out.push((open = { role: 'assistant', content: '' }));
      if (type === 'function_call') open.tool_calls = [...((open.tool_calls as unknown[]) ?? []), { id: fields.callId, type: 'function', function: { name: fields.name, arguments: fields.arguments } }];
      else if (type === 'message') open.content = `${String(open.content ?? '')}${(fields.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('')}`;
      else if (open.content === '') open.content = null;
      continue;
    }
    if (options.providerItems === 'skip' && PROVIDER_ITEMS.has(String(type))) continue;
    open = undefined;
    if (type === 'function_call_result') out.push({ role: 'tool', tool_call_id: fields.callId, content: typeof fields.output === 'string' ? fields.output : JSON.stringify(fields.output) });
    else if (type === 'message') out.push({ role: fields.role, content: typeof fields.content === 'string' ? fields.content : [{ type: 'text', text: 'parts' }] });
    else out.push({ role: `unknown:${String(type)}` });
  }
  return out;
}
