/**
 * The parts of Standard Schema (https://standardschema.dev) the tool layer
 * uses: `validate`, and the Standard JSON Schema converter. Declared here
 * structurally so any library that implements them (zod 4, Valibot, ArkType)
 * works without a dependency on it.
 */
export interface StandardSchemaIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardSchemaIssue> };

export interface StandardSchemaWithJsonSchema<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
    readonly jsonSchema: { input(options: { readonly target: string }): Record<string, unknown> };
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

export type StandardSchemaOutput<Schema> = Schema extends StandardSchemaWithJsonSchema<unknown, infer Output> ? Output : unknown;

/** True for an object that implements Standard Schema with the JSON Schema converter. */
export function isStandardJsonSchema(value: unknown): value is StandardSchemaWithJsonSchema {
  if (typeof value !== 'object' || value === null || !('~standard' in value)) return false;
  const props = (value as { '~standard': unknown })['~standard'] as { validate?: unknown; jsonSchema?: { input?: unknown } } | undefined;
  return typeof props?.validate === 'function' && typeof props.jsonSchema?.input === 'function';
}

/** A JSON Pointer for a Standard Schema issue path: `/items/0/name`. */
export function standardIssuePath(issue: StandardSchemaIssue): string {
  const segments = (issue.path ?? []).map((segment) => String(typeof segment === 'object' && segment !== null ? segment.key : segment));
  return segments.length === 0 ? '/' : `/${segments.map((segment) => segment.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
}
