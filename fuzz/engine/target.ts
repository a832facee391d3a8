import { FleetError, ParseError } from '../../shared/errors.js';

/**
 * One parser under fuzz. `run` feeds it one input and exercises what consumes its result; it
 * returns normally when the parser answered a value or its documented error, and throws (or lets
 * through) anything else: that is a finding.
 */
export interface Target {
  name: string;
  /** What the parser takes, and so how inputs are mutated. */
  kind: 'bytes' | 'json' | 'yaml';
  /** Where the seeds come from, for the README and the report. */
  seedSources: string[];
  /** Real inputs to start from (read in place, not copied). */
  seeds(): Uint8Array[];
  /** Tokens the byte mutator inserts: magic values, keywords, TLV headers. */
  dictionary?: Array<string | Uint8Array>;
  /** Inputs longer than this are cut. */
  maxLen: number;
  /** One input taking longer than this is a finding (a hang, or a quadratic path). */
  slowMs?: number;
  /** The parser's own source files: its coverage is reported apart from the libraries'. */
  sources: string[];
  /** The oracle's own words: what the parser may answer. */
  oracle: string;
  run(input: Uint8Array): void | Promise<void>;
}

/** Thrown by a target's checks when a value came back but breaks a promise the parser makes. */
export class OracleViolation extends Error {
  override name = 'OracleViolation';
}

/** The house rule for parsers: a typed FleetError (ParseError, TpmError, NetBoxError…) is the only refusal. */
export function typedOnly(err: unknown): void {
  if (!(err instanceof FleetError)) throw err;
}

/** Runs `fn`; its typed refusals pass, anything else is rethrown as the finding. */
export async function refusesTyped(fn: () => unknown): Promise<void> {
  try {
    await fn();
  } catch (err) {
    typedOnly(err);
  }
}

export function refusesTypedSync(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    typedOnly(err);
  }
}

/** The parser's value, or undefined when it refused with a ParseError; anything else goes on. */
export function unlessParseError<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch (err) {
    if (err instanceof ParseError) return undefined;
    throw err;
  }
}
