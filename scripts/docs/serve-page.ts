import { SERVE_OPTIONS } from '../../verifier/config/serve-options.js';
import { SYSLOG_OPTIONS, SYSLOG_SYNOPSIS } from '../../verifier/config/syslog-options.js';
import { optionsTable } from './options-table.js';
import type { DocPage } from './page.js';

/** docs/reference/serve.md: `fleet serve`'s options and `fleet syslog`'s, as their --help prints them. */
export const servePage: DocPage = {
  path: 'docs/reference/serve.md',
  render() {
    return [
      '<!-- Generated from verifier/config/serve-options.ts and syslog-options.ts by npm run docs: edit the options, not this page. -->',
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
    ].join('\n');
  },
};
