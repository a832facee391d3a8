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
  help: string;
}

/** The option every command takes. */
export const HELP_OPTION = { name: 'help', help: 'print this and exit' } as const satisfies OptionDef;

/** A command as its --help describes it and `readCommand` parses it: one definition for both. */
export interface CommandDef<N extends string = string> {
  /** The words after `fleet`: `render-class-inputs`. */
  command: string;
  /** What follows them: `--secrets FILE ...`. */
  synopsis: string;
  options: readonly (OptionDef & { name: N })[];
  notes?: readonly string[];
}

/** The command's --help. */
export const commandUsage = (def: CommandDef): string => optionsUsage(`fleet ${def.command} ${def.synopsis}`, def.options, def.notes);

/**
 * `args` read through the command's definition, or `help`. What the definition does not hold (an
 * unknown option, a value missing, a positional) is a usage error naming it, then the usage.
 */
export function readCommand<N extends string>(def: CommandDef<N>, args: string[], env: NodeJS.ProcessEnv = process.env): OptionReader<N> | 'help' {
  try {
    return readOptions(def.options, args, env);
  } catch (err) {
    if (err instanceof FleetError) throw err;
    throw new FleetError('usage', `${(err as Error).message}\n${commandUsage(def)}`);
  }
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
}

/** The reader over `args` and `env`, or `help` when --help was asked for (every definition list holds `help`). */
export function readOptions<N extends string>(defs: readonly (OptionDef & { name: N })[], args: string[], env: NodeJS.ProcessEnv): OptionReader<N> | 'help' {
  const options = Object.fromEntries(defs.map((o) => [o.name, { type: o.value ? ('string' as const) : ('boolean' as const) }]));
  const { values } = parseArgs({ args, options, strict: true });
  const got = values as Partial<Record<N, string | boolean>>;
  if (got['help' as N]) return 'help';
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
  return { flag: (name) => got[name] === true, given, value, defaulted, seconds };
}
