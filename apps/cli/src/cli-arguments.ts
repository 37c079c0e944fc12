import { sep } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliInputError } from './cli-input-error.js';

/** `parseArgs`, strict, its errors turned into one-line `CliInputError`s naming the command. */
export function parseCommandArguments<T extends NonNullable<ParseArgsConfig['options']>>(command: string, args: readonly string[], options: T): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliInputError({ culprit: command, message: `${command}: ${(error as Error).message.split('\n')[0]}` });
  }
}

/** A positive integer option, or a `CliInputError` naming it. */
export function positiveInteger(value: string | undefined, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(number) || number <= 0) {
    throw new CliInputError({ culprit: option, message: `${option} must be a positive integer, got "${value}"` });
  }
  return number;
}

/** One of `allowed`, or a `CliInputError` naming the option and the choices. */
export function oneOf<T extends string>(value: string | undefined, option: string, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new CliInputError({ culprit: option, message: `${option} "${value}" is not one of ${allowed.join(', ')}` });
  }
  return value as T;
}

/**
 * A path under one the user typed, spelled from theirs (`../data/` and `a.json`
 * give `../data/a.json`), so what the command prints is what they gave, not
 * the resolved absolute path.
 */
export function pathUnder(given: string, ...names: readonly string[]): string {
  return names.reduce((path, name) => (path.endsWith(sep) ? `${path}${name}` : `${path}${sep}${name}`), given);
}
