import type { JsonValue, ToolDefinition, ToolExecutionContext, ToolOutcome } from '@strata/context';
import { toolErrorOutcome } from '../tool-error.js';
import { normalizeParameterSchema } from './parameter-schema.js';
import { type StandardSchemaOutput, type StandardSchemaWithJsonSchema, standardIssuePath } from './standard-schema.js';

export interface SchemaToolOptions<Schema extends StandardSchemaWithJsonSchema> {
  readonly name: string;
  readonly description?: string;
  /** A zod 4 schema or any Standard Schema with the JSON Schema converter. */
  readonly parameters: Schema;
  readonly concurrencySafe?: boolean;
  execute(input: StandardSchemaOutput<Schema>, context: ToolExecutionContext): Promise<ToolOutcome> | ToolOutcome;
}

/**
 * A `ToolDefinition` from a typed schema: the model sees its JSON Schema
 * form, and the handler receives the schema's parsed output (defaults and
 * transforms applied). What JSON Schema cannot express (refinements) still
 * fails as a structured `TOOL_ARGUMENTS_INVALID` outcome.
 */
export function defineSchemaTool<Schema extends StandardSchemaWithJsonSchema>(options: SchemaToolOptions<Schema>): ToolDefinition {
  const parameters = normalizeParameterSchema(options.name, options.parameters).schema;
  return {
    name: options.name,
    description: options.description,
    parameters,
    concurrencySafe: options.concurrencySafe === true,
    async execute(input: JsonValue, context: ToolExecutionContext): Promise<ToolOutcome> {
      const result = await options.parameters['~standard'].validate(input);
      if (result.issues !== undefined) {
        const issues = result.issues.map((issue) => ({ path: standardIssuePath(issue), message: issue.message }));
        return toolErrorOutcome({
          code: 'TOOL_ARGUMENTS_INVALID',
          tool: options.name,
          message: `the arguments for "${options.name}" are invalid: ${issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`,
          details: { issues },
        });
      }
      return options.execute(result.value as StandardSchemaOutput<Schema>, context);
    },
  };
}
