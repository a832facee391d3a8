import { type OptionDef, optionFlag } from '../../shared/options.js';
import { cell } from './page.js';

/** A command's options as a table, as its --help lists them. */
export function optionsTable(defs: readonly OptionDef[]): string[] {
  const rows = defs.map(
    (o) => `| \`${optionFlag(o)}\` | ${o.default === undefined ? '' : `\`${o.default}\``} | ${o.env ? `\`${o.env}\`` : ''} | ${cell(o.help)} |`,
  );
  return ['| option | default | environment | what it does |', '|---|---|---|---|', ...rows];
}
