import type { ActionName } from '../../images/tink-reprovision-tools/actions.js';
import { DISK_LINES, WHAT_IS_THERE } from '../../images/tink-reprovision-tools/lines/disk.js';
import { DOWNLOAD_OF, IMAGE_FAILURES, IMAGE_LINES } from '../../images/tink-reprovision-tools/lines/image.js';
import { INSTALL_LINES } from '../../images/tink-reprovision-tools/lines/install.js';
import { NEXT_BOOT_FAILURES, NEXT_BOOT_LINES, UNSET } from '../../images/tink-reprovision-tools/lines/next-boot.js';
import { ACTION_WORD } from '../../images/tink-reprovision-tools/lines/printed.js';
import { CONTAINER_DOES, DOING, NOT_DONE, REBOOT_FAILURES, REBOOT_LINES } from '../../images/tink-reprovision-tools/lines/reboot.js';
import { NOTHING, SHARED_LINES, WHY } from '../../images/tink-reprovision-tools/lines/shared.js';
import { LACKS, OS_SHOWN, WIPE_FAILURES, WIPE_LINES } from '../../images/tink-reprovision-tools/lines/wipe.js';
import { template, type Said } from '../../shared/text/line-def.js';
import { cell, type DocPage } from './page.js';

type Registry = Record<string, Said<string[]>>;
const asRegistry = (r: object) => r as Registry;
const code = (s: string) => `\`${cell(s)}\``;

const rows = (lines: object, shown: (text: string) => string) =>
  Object.values(asRegistry(lines)).map(({ def }) => `| ${cell(def.when)} | ${code(shown(template(def)))} |`);

/**
 * An action's lines as a table, each as printed (after `word: `) with its arguments' names in
 * their place; then its failures, each as `failed: ` prints it.
 */
function table(word: string, lines: object, failures: object = {}): string[] {
  return ['| when | line |', '|---|---|', ...rows(lines, (text) => `${word}: ${text}`), ...rows(failures, (text) => `${word}: ${SHARED_LINES.failed(text)}`)];
}

/** A line's piece and what it can be: each definition with its arguments' names, and when it is the one. */
const pieces = (name: string, defs: object) =>
  `\`<${name}>\`: ${Object.values(asRegistry(defs))
    .map(({ def }) => `${code(template(def))} (${def.when})`)
    .join('; ')}.`;

/** A piece keyed by what it is for: each value with its key. */
const values = (name: string, byKey: Record<string, string>) =>
  `\`<${name}>\`: ${Object.entries(byKey)
    .map(([key, text]) => `${code(text)} (${key})`)
    .join(', ')}.`;

/** `a, b or c`. */
const orList = (items: string[]) => `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;

const section = (action: ActionName, file: string) => `## ${action} (\`images/tink-reprovision-tools/lines/${file}\`)`;

/** docs/reference/action-lines.md: every line the Template actions print, by action. */
export const actionLinesPage: DocPage = {
  path: 'docs/reference/action-lines.md',
  render() {
    return [
      '<!-- Generated from images/tink-reprovision-tools/lines/*.ts by npm run docs: edit the lines, not this page. -->',
      "# The Template actions' lines",
      '',
      'Every line the Template actions print on stdout, each defined once in',
      "`images/tink-reprovision-tools/lines/`. A line starts with its action's word (`wipe:`,",
      '`install:`, …); `<name>` stands for an argument. A refusal (`refuses:`) ends the run with exit',
      'code 1, and so does a failure, an error that is no refusal, printed as `failed: <message>`:',
      'each action lists those it expects (its `failed:` lines), and any other prints its own message',
      `the same way. A refusal that ends in ${orList(Object.values(NOTHING).map(code))} comes before`,
      "the action's first write. After a failure that spent a seed, image-to-disk says what to do on",
      'one more line.',
      '',
      section('wipe-disk', 'wipe.ts'),
      '',
      'It also says the disk identity refusals and the shared lines below, with its word.',
      '',
      ...table(ACTION_WORD['wipe-disk'], WIPE_LINES, WIPE_FAILURES),
      '',
      pieces('OS', OS_SHOWN),
      `\`<what it lacks>\`: those of ${Object.entries(LACKS)
        .map(([variable, text]) => code(`${text} (${variable})`))
        .join(', ')} the run lacks, in that order, joined as \`a, b and c\`.`,
      '',
      section('install', 'install.ts'),
      '',
      ...table(ACTION_WORD.install, INSTALL_LINES),
      '',
      section('image-to-disk', 'image.ts'),
      '',
      ...table(ACTION_WORD['image-to-disk'], IMAGE_LINES, IMAGE_FAILURES),
      '',
      pieces('what', DOWNLOAD_OF),
      '',
      section('next-boot', 'next-boot.ts'),
      '',
      ...table(ACTION_WORD['next-boot'], NEXT_BOOT_LINES, NEXT_BOOT_FAILURES),
      '',
      `A BootNext or BootOrder the firmware does not hold reads ${code(UNSET)}.`,
      '',
      section('reboot', 'reboot.ts'),
      '',
      ...table(ACTION_WORD.reboot, REBOOT_LINES, REBOOT_FAILURES),
      '',
      values('doing', DOING),
      values('what it does', CONTAINER_DOES),
      values('what was not done', NOT_DONE),
      '',
      '## The disk (`images/tink-reprovision-tools/lines/disk.ts`)',
      '',
      'wipe-disk checks the declared serial; install, image-to-disk and next-boot check the serial',
      'wipe-disk recorded, and image-to-disk and next-boot the EFI system partition.',
      '',
      ...table('<action>', DISK_LINES),
      '',
      pieces('what is there', WHAT_IS_THERE),
      '',
      '## Said by several actions (`images/tink-reprovision-tools/lines/shared.ts`)',
      '',
      ...table('<action>', SHARED_LINES),
      '',
      values('nothing', NOTHING),
      pieces('why', WHY),
      '',
    ].join('\n');
  },
};
