import { z } from 'zod';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import { checkToolParameterSchema } from '../schema/json-schema-check.js';

/** True for a zod 4 schema object. */
export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/**
 * The JSON Schema of a tool's parameters, checked. A zod schema is converted
 * with `z.toJSONSchema` (input side: defaults make fields optional) and its
 * `$schema` marker dropped. Throws `ToolDefinitionError` naming the tool and
 * the JSON Pointer of the first problem.
 */
export function normalizeParameterSchema(toolName: string, parameters: unknown): Readonly<Record<string, unknown>> {
  let schema = parameters;
  if (isZodSchema(parameters)) {
    try {
      const { $schema: _dialect, ...converted } = z.toJSONSchema(parameters, { io: 'input' }) as Record<string, unknown>;
      schema = converted;
    } catch (error) {
      throw new ToolDefinitionError({
        code: 'TOOL_SCHEMA_INVALID',
        toolName,
        schemaPath: '',
        message: `tool "${toolName}": its zod parameter schema has no JSON Schema form: ${(error as Error).message}`,
        cause: error,
      });
    }
  }
  const problem = checkToolParameterSchema(schema);
  if (problem !== undefined) {
    throw new ToolDefinitionError({
      code: 'TOOL_SCHEMA_INVALID',
      toolName,
      schemaPath: problem.path,
      message: `tool "${toolName}": malformed parameter schema at ${problem.path === '' ? '(root)' : problem.path}: ${problem.message}`,
    });
  }
  return schema as Readonly<Record<string, unknown>>;
}
