import { readFile } from 'node:fs/promises';
import type { ErrorCode } from '../shared/error-codes.js';
import { FleetError, errorMessage } from '../shared/errors.js';

/** What a decoding command prints: one JSON object with --json, else text for people. */
export interface Report {
  json: unknown;
  text: string;
}

/** The decoding commands, each with the code of a file it cannot read. */
const UNREADABLE = {
  eventlog: 'eventlog-unreadable',
  lldp: 'lldp-unreadable',
  'ek-cert': 'ek-cert-unreadable',
  'platform-cert': 'platform-cert-unreadable',
} as const satisfies Record<string, ErrorCode>;

/** A command's options that take a value (`--roots DIR`): each name with the word its usage shows. */
export type ValueOptions = Record<string, string>;

/**
 * `fleet <name> [--json] FILE [--option VALUE]` for the commands that decode a file (eventlog,
 * lldp, ek-cert, platform-cert): reads it, hands the bytes and the options given to `decode`,
 * prints the report. A typed error is one line on stderr naming the file and the code, exit 1;
 * bad arguments print the usage, exit 2. Never a stack trace for bad input.
 */
export async function runFileCommand<O extends ValueOptions>(
  name: keyof typeof UNREADABLE,
  args: string[],
  decode: (bytes: Buffer, options: Partial<Record<keyof O, string>>) => Report | Promise<Report>,
  valueOptions?: O,
): Promise<number> {
  const parsed = parse(args, valueOptions ?? {});
  if (!parsed) {
    const shown = Object.entries(valueOptions ?? {}).map(([option, word]) => ` [--${option} ${word}]`);
    process.stderr.write(`usage: fleet ${name} [--json] FILE${shown.join('')}\n`);
    return 2;
  }
  const { json, file, options } = parsed;
  try {
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (err) {
      throw new FleetError(UNREADABLE[name], `cannot read: ${errorMessage(err)}`);
    }
    const report = await decode(bytes, options as Partial<Record<keyof O, string>>);
    process.stdout.write(json ? `${JSON.stringify(report.json)}\n` : report.text);
    return 0;
  } catch (err) {
    if (!(err instanceof FleetError)) throw err;
    process.stderr.write(`fleet ${name}: ${file}: ${err.message.replace(/\s*\n\s*/g, ' ')} [${err.code}]\n`);
    return 1;
  }
}

/** --json, one FILE, and each value option at most once with its value; null for anything else. */
function parse(args: string[], valueOptions: ValueOptions): { json: boolean; file: string; options: Record<string, string> } | null {
  let json = false;
  const files: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const option = a.startsWith('--') ? a.slice(2) : null;
    if (a === '--json') json = true;
    else if (option !== null && Object.hasOwn(valueOptions, option)) {
      const v = args[++i];
      if (v === undefined || Object.hasOwn(options, option)) return null;
      options[option] = v;
    } else if (a.startsWith('-')) return null;
    else files.push(a);
  }
  return files.length === 1 ? { json, file: files[0]!, options } : null;
}
