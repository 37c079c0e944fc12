import type { JsonValue, ToolDefinition, ToolExecutionContext, ToolOutcome } from '@strata/context';
import type { z } from 'zod';
import { toolErrorOutcome } from '../tool-error.js';
import { normalizeParameterSchema } from './parameter-schema.js';

export interface ZodToolOptions<Schema extends z.ZodType> {
  readonly name: string;
  readonly description?: string;
  readonly parameters: Schema;
  readonly concurrencySafe?: boolean;
  execute(input: z.output<Schema>, context: ToolExecutionContext): Promise<ToolOutcome> | ToolOutcome;
}

/**
 * A `ToolDefinition` from a zod schema: the model sees its JSON Schema form,
 * and the handler receives the zod-parsed value (defaults and transforms
 * applied). What JSON Schema cannot express (refinements) still fails as a
 * structured `TOOL_ARGUMENTS_INVALID` outcome.
 */
export function defineZodTool<Schema extends z.ZodType>(options: ZodToolOptions<Schema>): ToolDefinition {
  const parameters = normalizeParameterSchema(options.name, options.parameters);
  const base = { name: options.name, parameters, concurrencySafe: options.concurrencySafe === true };
  return {
    ...base,
    ...(options.description === undefined ? {} : { description: options.description }),
    async execute(input: JsonValue, context: ToolExecutionContext): Promise<ToolOutcome> {
      const parsed = options.parameters.safeParse(input);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((issue) => ({ path: `/${issue.path.map(String).join('/')}`, message: issue.message }));
        return toolErrorOutcome({
          code: 'TOOL_ARGUMENTS_INVALID',
          tool: options.name,
          message: `the arguments for "${options.name}" are invalid: ${issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`,
          details: { issues },
        });
      }
      return options.execute(parsed.data, context);
    },
  };
}
