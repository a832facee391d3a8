import type { ErrorCode } from './error-codes.js';

/**
 * Every error fleet raises on purpose carries a stable `code` (for logs, tests and the wire; the
 * registry in error-codes.ts holds them all) and a message a person can act on. Parsers raise
 * `ParseError`, so malformed input from a TPM, an event log, a frame or a request body is always a
 * typed refusal, never a crash.
 */
export class FleetError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FleetError';
    this.code = code;
  }
}

/** Malformed bytes or text: `code` names the format (`tpm-malformed`, `eventlog-malformed`, ...). */
export class ParseError extends FleetError {
  /** Byte offset where parsing failed, when it is known. */
  readonly offset: number | undefined;
  constructor(code: ErrorCode, message: string, offset?: number) {
    super(code, offset === undefined ? message : `${message} (at byte ${offset})`);
    this.name = 'ParseError';
    this.offset = offset;
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
