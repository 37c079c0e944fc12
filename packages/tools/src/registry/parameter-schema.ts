import { z } from 'zod';
import { ToolDefinitionError } from '../errors/tool-definition-error.js';
import { type JsonSchemaValidator, compileParameterSchema } from '../schema/json-schema-validator.js';
import { isStandardJsonSchema } from './standard-schema.js';

/** True for a zod 4 schema object. */
function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** A tool's parameters as JSON Schema, with the validator compiled from it. */
export interface NormalizedParameters {
  readonly schema: Readonly<Record<string, unknown>>;
  readonly validate: JsonSchemaValidator;
}

/**
 * The JSON Schema of a tool's parameters, compiled. Accepts a JSON Schema
 * object (draft 2020-12, or draft-07 by its `$schema`), a Standard Schema
 * with the JSON Schema converter (input side, draft 2020-12), or a zod 4
 * schema (`z.toJSONSchema`, input side, so fields with defaults are
 * optional); a converted schema's `$schema` marker is dropped. Throws
 * `ToolDefinitionError` naming the tool and the JSON Pointer of the first
 * problem, including a schema ajv refuses to compile.
 */
export function normalizeParameterSchema(toolName: string, parameters: unknown): NormalizedParameters {
  let schema = parameters;
  if (isStandardJsonSchema(parameters) || isZodSchema(parameters)) {
    try {
      const converted = isStandardJsonSchema(parameters)
        ? parameters['~standard'].jsonSchema.input({ target: 'draft-2020-12' })
        : (z.toJSONSchema(parameters as z.ZodType, { io: 'input' }) as Record<string, unknown>);
      const { $schema: _dialect, ...rest } = converted;
      schema = rest;
    } catch (error) {
      throw new ToolDefinitionError({
        code: 'TOOL_SCHEMA_INVALID',
        toolName,
        schemaPath: '',
        message: `tool "${toolName}": its parameter schema has no JSON Schema form: ${(error as Error).message}`,
        cause: error,
      });
    }
  }
  const compiled = compileParameterSchema(schema);
  if ('problem' in compiled) {
    const { problem } = compiled;
    throw new ToolDefinitionError({
      code: 'TOOL_SCHEMA_INVALID',
      toolName,
      schemaPath: problem.path,
      message: `tool "${toolName}": malformed parameter schema at ${problem.path === '' ? '(root)' : problem.path}: ${problem.message}`,
    });
  }
  return { schema: schema as Readonly<Record<string, unknown>>, validate: compiled.validate };
}
