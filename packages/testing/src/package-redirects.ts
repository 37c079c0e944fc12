// For tests that run an adapter's test files again against another release of its peer (installed at the root under an
// alias, such as `ai-oldest`): what is installed, and a module hook that sends every import of the peer to the alias.
// Its own subpath (`@strata/testing/package-redirects`), so that importing it loads no peer before the hook is registered.
import { readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const rootRequire = createRequire(import.meta.url);

/** The version of the package installed under `name` (an alias included), or undefined when it is not installed. */
export function installedVersion(name: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(rootRequire.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;
  } catch {
    return undefined;
  }
}

/**
 * Sends every later import of each `from` and `from/…` in this process
 * (the adapter's, the tests', the framework's own) to `to` and `to/…`.
 * Register before importing anything that imports them.
 */
export function redirectPackages(redirects: ReadonlyArray<readonly [from: string, to: string]>): void {
  const hooks = `const redirects = ${JSON.stringify(redirects)};
  export async function resolve(specifier, context, next) {
    for (const [from, to] of redirects) if (specifier === from || specifier.startsWith(from + '/')) return next(to + specifier.slice(from.length), context);
    return next(specifier, context);
  }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, import.meta.url);
}
