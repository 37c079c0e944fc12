/** Where the examples are exported: `STRATA_CONTEXT_EXAMPLE_DIR`, then the documented alias. */
export const EXAMPLE_DIR_NAMES = ['STRATA_CONTEXT_EXAMPLE_DIR', 'SCIENCE_AGENT_CONTEXT_EXAMPLE_DIR'] as const;

/** The example directory named by the environment, or undefined when neither name is set. Pure: the caller passes the environment. */
export function exampleDirectory(environment: Readonly<Record<string, string | undefined>>): string | undefined {
  for (const name of EXAMPLE_DIR_NAMES) {
    const value = environment[name]?.trim();
    if (value) return value;
  }
  return undefined;
}
