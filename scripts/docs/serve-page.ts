import { SERVE_OPTIONS, type ServeOption } from '../../verifier/config/serve-options.js';
import { cell, type DocPage } from './page.js';

/** docs/reference/serve.md: `fleet serve`'s options, as --help prints them. */
export const servePage: DocPage = {
  path: 'docs/reference/serve.md',
  render() {
    const rows = SERVE_OPTIONS.map(
      (o: ServeOption) =>
        `| \`--${o.name}${o.value ? ` ${o.value}` : ''}\` | ${o.default === undefined ? '' : `\`${o.default}\``} | ${o.env ? `\`${o.env}\`` : ''} | ${cell(o.help)} |`,
    );
    return [
      '<!-- Generated from verifier/config/serve-options.ts by npm run docs: edit the options, not this page. -->',
      '# fleet serve',
      '',
      '`fleet serve --state DIR (--nodes FILE | --netbox-url URL ...) [options]` runs fleetd until SIGTERM',
      'or SIGINT. Every option is read once, at start, into the typed config each part is handed',
      '(`verifier/config/serve-config.ts`): a usage error stops fleetd before it opens or binds anything.',
      "`FLEET_LOG_LEVEL` sets the request log's level (pino's levels; default `warn`). `fleet serve --help`",
      'prints the same list.',
      '',
      '| option | default | environment | what it does |',
      '|---|---|---|---|',
      ...rows,
      '',
    ].join('\n');
  },
};
