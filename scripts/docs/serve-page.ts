import { SERVE_OPTIONS } from '../../verifier/config/serve-options.js';
import { STATUS_OPTIONS } from '../../verifier/config/status-options.js';
import { SYSLOG_OPTIONS, SYSLOG_SYNOPSIS } from '../../verifier/config/syslog-options.js';
import { optionsTable } from './options-table.js';
import type { DocPage } from './page.js';

/** docs/reference/serve.md: `fleet serve`'s options, `fleet syslog`'s and `fleet status`'s, as their --help prints them. */
export const servePage: DocPage = {
  path: 'docs/reference/serve.md',
  render() {
    return [
      '<!-- Generated from verifier/config/serve-options.ts, syslog-options.ts and status-options.ts by npm run docs: edit the options, not this page. -->',
      '# fleet serve',
      '',
      '`fleet serve --state DIR (--nodes FILE | --netbox-url URL ...) [options]` runs fleetd until SIGTERM',
      'or SIGINT. Every option is read once, at start, into the typed config each part is handed',
      '(`verifier/config/serve-config.ts`): a usage error stops fleetd before it opens or binds anything.',
      "`FLEET_LOG_LEVEL` sets the request log's level (pino's levels; default `warn`). `fleet serve --help`",
      'prints the same list.',
      '',
      ...optionsTable(SERVE_OPTIONS),
      '',
      '## fleet syslog',
      '',
      `\`${SYSLOG_SYNOPSIS}\` runs the HookOS syslog receiver alone, until SIGTERM or SIGINT:`,
      "the same journal entries and `syslog.*` audit lines as fleetd's own receiver, for a lab that gives",
      'fleetd no privilege for UDP 514 and runs it with `--syslog-listen off`. A receiver that cannot',
      "start ends the command with its reason. Its `/metrics` holds only the receiver's counters",
      '(`fleet_syslog_*`), so that no fleetd alert reads it.',
      '',
      ...optionsTable(SYSLOG_OPTIONS),
      '',
      '## fleet status',
      '',
      '`fleet status` prints one line per device fleet manages: its host name, inventory status, last verdict',
      '(and when its TPM last proved its EKs), the switch port its last attestation saw beside the declared',
      'one, `desired_action`, its last run as Tinkerbell reports it (state, the action it is at and for how',
      "long), and its last journal line. It reads the inventory and Tinkerbell's API with the clients fleetd",
      'uses, given the same options as fleetd, so it works on either backend, beside a running fleetd.',
      '`--json` prints each row as one JSON object; `--watch` prints the view again each time it changes',
      '(redrawn in place on a terminal) until SIGINT.',
      '',
      ...optionsTable(STATUS_OPTIONS),
      '',
    ].join('\n');
  },
};
