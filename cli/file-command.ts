import { readFile } from 'node:fs/promises';
import type { ErrorCode } from '../shared/error-codes.js';
import { FleetError, errorMessage } from '../shared/errors.js';

/** What a decoding command prints: one JSON object with --json, else text for people. */
export interface Report {
  json: unknown;
  text: string;
}

/** The decoding commands, each with the code of a file it cannot read. */
const UNREADABLE = { eventlog: 'eventlog-unreadable', lldp: 'lldp-unreadable' } as const satisfies Record<string, ErrorCode>;

/**
 * `fleet <name> [--json] FILE` for the commands that decode a file (eventlog, lldp): reads it,
 * hands the bytes to `decode`, prints the report. A typed error is one line on stderr naming the
 * file and the code, exit 1; bad arguments print the usage, exit 2. Never a stack trace for bad input.
 */
export async function runFileCommand(name: keyof typeof UNREADABLE, args: string[], decode: (bytes: Buffer) => Report): Promise<number> {
  const json = args.includes('--json');
  const rest = args.filter((a) => a !== '--json');
  if (rest.length !== 1 || rest[0]!.startsWith('-')) {
    process.stderr.write(`usage: fleet ${name} [--json] FILE\n`);
    return 2;
  }
  const file = rest[0]!;
  try {
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (err) {
      throw new FleetError(UNREADABLE[name], `cannot read: ${errorMessage(err)}`);
    }
    const report = decode(bytes);
    process.stdout.write(json ? `${JSON.stringify(report.json)}\n` : report.text);
    return 0;
  } catch (err) {
    if (!(err instanceof FleetError)) throw err;
    process.stderr.write(`fleet ${name}: ${file}: ${err.message.replace(/\s*\n\s*/g, ' ')} [${err.code}]\n`);
    return 1;
  }
}
