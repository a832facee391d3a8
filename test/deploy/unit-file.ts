/**
 * A systemd unit file read as systemd reads it, for the tests that hold deploy/systemd/ to fleet's
 * commands: sections of keys, each key's assignments in order (a line ending in a backslash goes on),
 * and ExecStart= split into words with the specifiers and ${VAR}s the units use expanded. Anything
 * else on a command line (quotes, escapes, $VAR split at whitespace, another specifier) is refused
 * rather than guessed at.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

export interface UnitFile {
  /** The unit's name: its file's. */
  name: string;
  text: string;
  /** Every assignment of `key` in `section`, in order. */
  all(section: string, key: string): string[];
  /** The last assignment of `key` in `section`, as systemd keeps it for a single-valued key. */
  get(section: string, key: string): string | undefined;
  /** A list-valued key (RestrictAddressFamilies=, CapabilityBoundingSet=, ...): its words, all assignments together. */
  words(section: string, key: string): string[];
}

export function readUnitFile(path: string): UnitFile {
  const text = readFileSync(path, 'utf8');
  const sections = new Map<string, Array<[string, string]>>();
  let section: Array<[string, string]> | undefined;
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  for (const [n, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const heading = /^\[(.+)\]$/.exec(line);
    if (heading) {
      section = [];
      sections.set(heading[1]!, section);
      continue;
    }
    const eq = line.indexOf('=');
    if (!section || eq < 1) throw new Error(`${path}:${n + 1}: not an assignment in a section: ${line}`);
    section.push([
      line.slice(0, eq).trim(),
      line
        .slice(eq + 1)
        .trim()
        .replace(/\s+/g, ' '),
    ]);
  }
  const all = (s: string, key: string) => (sections.get(s) ?? []).filter(([k]) => k === key).map(([, v]) => v);
  return {
    name: basename(path),
    text,
    all,
    get: (s, key) => all(s, key).at(-1),
    words: (s, key) => all(s, key).flatMap((v) => v.split(' ').filter(Boolean)),
  };
}

/** Where a system unit's specifiers point: %S the state root, %d its credentials directory. */
export const stateRoot = '/var/lib';
export const credentialsDir = (unit: UnitFile): string => `/run/credentials/${unit.name}`;

/** ExecStart='s words, expanded as the service manager expands them for this unit, with `env` its EnvironmentFile='s values. */
export function execStart(unit: UnitFile, env: Record<string, string>): string[] {
  const line = unit.get('Service', 'ExecStart');
  if (!line) throw new Error(`${unit.name} has no ExecStart=`);
  if (/["'\\]/.test(line)) throw new Error(`${unit.name}: ExecStart= quotes or escapes; this reader does not follow systemd's quoting`);
  return line.split(' ').map((word) =>
    word
      .replace(/%(.)/g, (_, s: string) => {
        if (s === 'S') return stateRoot;
        if (s === 'd') return credentialsDir(unit);
        if (s === '%') return '%';
        throw new Error(`${unit.name}: specifier %${s} is not one this reader expands`);
      })
      .replace(/\$\{(\w+)\}|\$(\w+)/g, (_, braced: string | undefined, bare: string | undefined) => {
        if (bare) throw new Error(`${unit.name}: $${bare} splits at whitespace; write \${${bare}}`);
        const v = env[braced!];
        if (v === undefined) throw new Error(`${unit.name}: \${${braced}} is not in its EnvironmentFile`);
        return v;
      }),
  );
}

/** An EnvironmentFile= as systemd reads the plain KEY=VALUE lines the repository's files use. */
export function readEnvironmentFile(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [n, raw] of readFileSync(path, 'utf8').split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([A-Za-z_]\w*)=(.*)$/.exec(line);
    if (!m || /["'\\]/.test(m[2]!)) throw new Error(`${path}:${n + 1}: not a plain KEY=VALUE line: ${line}`);
    env[m[1]!] = m[2]!;
  }
  return env;
}
