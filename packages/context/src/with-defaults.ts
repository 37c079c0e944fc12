/**
 * A component's options over its frozen defaults, merged once: an option
 * given as `undefined` keeps its default (so callers pass optional fields
 * straight through), any other value replaces it.
 */
export function withDefaults<Defaults extends object, Options extends object>(defaults: Readonly<Defaults>, options: Options | undefined): Defaults & Options {
  const merged: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(options ?? {})) if (value !== undefined) merged[key] = value;
  return merged as Defaults & Options;
}
