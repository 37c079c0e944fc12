/** Appends one reference token to a JSON Pointer (RFC 6901 escaping). */
export function pointerChild(pointer: string, token: string | number): string {
  return `${pointer}/${String(token).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

