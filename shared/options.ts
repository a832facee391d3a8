/**
 * A command's options, each defined once: parseArgs reads them, its --help and its reference page
 * print them (npm run docs), and the command's config reader turns what was given into typed values
 * through `readOptions`. A default here is the value an operator reads in --help.
 */
import { parseArgs } from 'node:util';
import { FleetError } from './errors.js';

export interface OptionDef {
  name: string;
  /** What its value is, as --help shows it; none for a switch. */
  value?: string;
  default?: string;
  /** An environment variable read when the option is not given. */
  env?: string;
  /** May be given more than once (`--set A=1 --set B=2`): `all()` reads every value. */
  multiple?: boolean;
  help: string;
}

/** The option every command takes. */
export const HELP_OPTION = { name: 'help', help: 'print this and exit' } as const satisfies OptionDef;

/**
 * A command as `fleet <command> --help` and docs/reference/cli.md describe it, and as
 * `readCommand` parses it: one definition for all three.
 */
export interface CommandDef<N extends string = string> {
  /** The words after `fleet`: `inventory check`. */
  command: string;
  /** What follows them: `FILE [--node-network CIDR]`. */
  synopsis: string;
  /** What it does, for the reference page (Markdown). */
  about: string;
  options: readonly (OptionDef & { name: N })[];
  /** How many positional arguments it takes: none unless given. */
  positionals?: { min: number; max: number };
  notes?: readonly string[];
}

/** The command's --help. */
export const commandUsage = (def: CommandDef): string => optionsUsage(`fleet ${def.command} ${def.synopsis}`, def.options, def.notes);

/**
 * `args` read through the command's definition, or `help`. Anything the definition does not hold
 * (an unknown option, a value missing, too many or too few positionals) is a usage error that
 * names it, followed by the usage.
 */
export function readCommand<N extends string>(
  def: CommandDef<N>,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): (OptionReader<N> & { positionals: string[] }) | 'help' {
  let reader: ReturnType<typeof readOptions<N>>;
  let positionals: string[];
  try {
    ({ reader, positionals } = readArgs(def.options, args, env, true));
  } catch (err) {
    if (err instanceof FleetError) throw err;
    throw new FleetError('usage', `${(err as Error).message}\n${commandUsage(def)}`);
  }
  if (reader === 'help') return 'help';
  const { min, max } = def.positionals ?? { min: 0, max: 0 };
  if (positionals.length < min || positionals.length > max)
    throw new FleetError('usage', `${positionals.length < min ? 'missing' : 'unexpected'} arguments (${positionals.length} given)\n${commandUsage(def)}`);
  return { ...reader, positionals };
}

/** An option as --help and the reference page write it: `--name VALUE`. */
export const optionFlag = (o: OptionDef): string => `--${o.name}${o.value ? ` ${o.value}` : ''}`;

/** A command's --help: its synopsis, each option with its help, default and variable, then any notes. */
export function optionsUsage(synopsis: string, defs: readonly OptionDef[], notes: readonly string[] = []): string {
  const lines = defs.map((o) => {
    const extra = [o.default !== undefined ? `default ${o.default}` : '', o.env ? `or ${o.env}` : ''].filter(Boolean).join('; ');
    return `  ${optionFlag(o)}\n      ${o.help}${extra ? ` (${extra})` : ''}`;
  });
  return [`usage: ${synopsis}`, ...lines, ...notes.map((n) => `  ${n}`)].join('\n');
}

/** What was given, read through the definitions: no caller looks a flag up by hand. */
export interface OptionReader<N extends string> {
  /** A switch: given or not. */
  flag(name: N): boolean;
  /** As given on the command line, or undefined. */
  given(name: N): string | undefined;
  /** Given, else its environment variable, else its default. */
  value(name: N): string | undefined;
  /** An option --help states a default for: its value is never missing. */
  defaulted(name: N): string;
  /** A positive number of seconds. */
  seconds(name: N): number;
  /** Every value of an option that may be given more than once, in order. */
  all(name: N): string[];
}

/** The reader over `args` and `env`, or `help` when --help was asked for (every definition list holds `help`). */
export function readOptions<N extends string>(defs: readonly (OptionDef & { name: N })[], args: string[], env: NodeJS.ProcessEnv): OptionReader<N> | 'help' {
  return readArgs(defs, args, env, false).reader;
}

function readArgs<N extends string>(
  defs: readonly (OptionDef & { name: N })[],
  args: string[],
  env: NodeJS.ProcessEnv,
  allowPositionals: boolean,
): { reader: OptionReader<N> | 'help'; positionals: string[] } {
  const options = Object.fromEntries(
    defs.map((o) => [o.name, { type: o.value ? ('string' as const) : ('boolean' as const), ...(o.multiple ? { multiple: true } : {}) }]),
  );
  const { values, positionals } = parseArgs({ args, options, strict: true, allowPositionals });
  const got = values as Partial<Record<N, string | boolean | string[]>>;
  if (got['help' as N]) return { reader: 'help', positionals };
  const given = (name: N): string | undefined => {
    const v = got[name];
    return typeof v === 'string' ? v : undefined;
  };
  const value = (name: N): string | undefined => {
    const o = defs.find((x) => x.name === name);
    return given(name) ?? (o?.env ? env[o.env] : undefined) ?? o?.default;
  };
  const defaulted = (name: N): string => {
    const v = value(name);
    if (v === undefined) throw new Error(`option --${name} has no default`);
    return v;
  };
  const seconds = (name: N): number => {
    const n = Number(value(name));
    if (!(n > 0)) throw new FleetError('usage', `--${name} must be a positive number of seconds`);
    return n;
  };
  const all = (name: N): string[] => {
    const v = got[name];
    return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
  };
  return { reader: { flag: (name) => got[name] === true, given, value, defaulted, seconds, all }, positionals };
}
