/** Every line install prints (after `install: `); lines/disk.ts and lines/shared.ts hold the ones it shares. */
import { said } from '../../../shared/text/line-def.js';
import { TAIL_LINES } from '../install/installer.js';
import { CODE_BLANK, NOTHING } from './shared.js';

export const INSTALL_LINES = {
  skipped: said({
    when: 'INSTALL is not true (a retirement): it does nothing (exit 0)',
    args: ['INSTALL'],
    text: (v) => `INSTALL is "${v}", not true: ${NOTHING.install} (a retirement wipes only)`,
  }),
  noInstaller: said({ when: 'refuses: INSTALLER_IMAGE is empty', args: [], text: () => 'no installer image is declared' }),
  noConfigUrl: said({ when: 'refuses: CONFIG_URL is empty', args: [], text: () => 'no config URL is given' }),
  running: said({
    when: 'the installer starts',
    args: ['INSTALLER_IMAGE', 'INSTALL_DISK'],
    text: (image, disk) => `running the installer ${image} on ${disk}`,
  }),
  installerSays: said({
    when: `the installer failed: each of its last ${TAIL_LINES} lines, the install code in them shown as \`${CODE_BLANK}\` (a second run in the same boot shows Talos's \`failed to perform disk operations: disk <disk> is not empty, skipping install, detected "gpt"\`)`,
    args: ['its line'],
    text: (line) => line,
  }),
  installerFailed: said({
    when: 'refuses: the installer exited non-zero',
    args: [],
    text: () => 'the installer failed; the lines above are its last output',
  }),
  installed: said({ when: 'the installer succeeded', args: ['INSTALL_DISK'], text: (disk) => `installed Talos to ${disk}` }),
};
