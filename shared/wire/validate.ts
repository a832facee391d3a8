import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { ErrorCode } from '../error-codes.js';
import { ParseError } from '../errors.js';

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** Checks `value` against a wire schema; refuses with `code` and the first offending path. */
export function checkValue<T extends TSchema>(schema: T, value: unknown, code: ErrorCode, what: string): Static<T> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  if (check.Check(value)) return value as Static<T>;
  const first = check.Errors(value).First();
  const where = first?.path ? ` at ${first.path}` : '';
  throw new ParseError(code, `${what} is invalid${where}: ${first?.message ?? 'does not match the schema'}`);
}
