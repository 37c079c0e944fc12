// Placeholder until the assembler lands: prints the public error markers.
import { StrataError } from '@strata/context';
console.log('strata example: StrataError available:', typeof StrataError.isInstance === 'function');
