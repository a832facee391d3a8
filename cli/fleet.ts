#!/usr/bin/env node
/**
 * `fleet <command> [args]`: one CLI for every part. Each command lives in `cli/commands/<name>.ts`
 * and is loaded only when named, so `fleet eventlog` does not pay for the verifier's imports.
 */
import { FleetError, errorMessage } from '../shared/errors.js';

interface Command {
  summary: string;
  load: () => Promise<{ run(args: string[]): Promise<number> }>;
}

const COMMANDS: Record<string, Command> = {
  serve: {
    summary: 'run the verifier: fleet serve --nodes FILE --state DIR [--listen HOST:PORT] [--cert F --key F]',
    load: () => import('./commands/serve.js'),
  },
  syslog: {
    summary: "receive HookOS's syslog into the journal, apart from fleet serve: fleet syslog [--listen HOST:PORT] [--metrics-listen HOST:PORT]",
    load: () => import('./commands/syslog.js'),
  },
  agent: { summary: 'attest this machine once: fleet agent --url URL [--tpm SPEC] [--ca FILE] ...', load: () => import('./commands/agent.js') },
  attest: {
    summary:
      'print a waiting claim, its EK certificates and the EK binding lines: fleet attest approve SERIAL --state DIR [--ek-roots DIR [--platform-cert FILE [--platform-roots DIR]]]',
    load: () => import('./commands/attest.js'),
  },
  status: {
    summary:
      'one line per device: its status, verdict, switch port, desired_action, run and last journal line: fleet status --nodes FILE --state DIR [--kubeconfig FILE] [--watch] [--json]',
    load: () => import('./commands/status.js'),
  },
  inventory: {
    summary: 'check a nodes file, show a device, set desired_action: fleet inventory check|show|action ...',
    load: () => import('./commands/inventory.js'),
  },
  'render-class-inputs': {
    summary: "write each class's Talos inputs: fleet render-class-inputs --secrets FILE --settings FILE --out DIR",
    load: () => import('./commands/render-class-inputs.js'),
  },
  eventlog: { summary: 'decode a TCG event log and replay it: fleet eventlog [--json] FILE', load: () => import('./commands/eventlog.js') },
  lldp: { summary: 'decode the LLDP frames of a pcap or raw frame file: fleet lldp [--json] FILE', load: () => import('./commands/lldp.js') },
  'ek-cert': {
    summary: 'read an EK certificate (DER, PEM or as TPM NV holds it) and check its chain: fleet ek-cert [--json] FILE [--roots DIR]',
    load: () => import('./commands/ek-cert.js'),
  },
  'platform-cert': {
    summary: 'read a TCG platform certificate and check its signature: fleet platform-cert [--json] FILE [--roots DIR]',
    load: () => import('./commands/platform-cert.js'),
  },
  hookos: {
    summary:
      "write the HookOS command line, iPXE menu and Hardware script, or print a UKI's PCR 4 digest: fleet hookos generate --config FILE --out DIR [--set NAME=VALUE] | digest UKI...",
    load: () => import('./commands/hookos.js'),
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `usage: fleet <command> [args]\n\ncommands:\n${lines.join('\n')}\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    process.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  const cmd = COMMANDS[name];
  if (!cmd) {
    process.stderr.write(`fleet: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  return (await cmd.load()).run(args);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const code = err instanceof FleetError ? ` [${err.code}]` : '';
    process.stderr.write(`fleet: ${errorMessage(err)}${code}\n`);
    process.exitCode = 1;
  },
);
