import { CODE_BLANK } from '../lines/shared.js';

/**
 * How the Talos installer image is run: its entrypoint is /bin/installer, whose `install` takes
 * --disk, --platform and --config (the value it writes to the installed kernel's talos.config, as
 * machined itself runs it for an upgrade). --privileged and /dev give it the disk; the image is
 * already in this boot's cache (wipe-disk pulled it). No stdin: the installer then skips validating
 * a machine config it has none of. `--log-driver none`: the action reads the installer's output
 * itself, and HookOS's Docker would otherwise send it to spore's syslog, install code and all (the
 * installer prints its kernel command line, talos.config=<url>/<code>).
 */
export function installerArgs(image: string, disk: string, configUrl: string, code: string): string[] {
  return [
    'run',
    '--rm',
    '--privileged',
    '--log-driver',
    'none',
    '-v',
    '/dev:/dev',
    image,
    'install',
    '--disk',
    disk,
    '--platform',
    'metal',
    '--config',
    `${configUrl.replace(/\/+$/, '')}/${code}`,
  ];
}

/** How many of the installer's last lines a failure shows: its error and what led to it. */
export const TAIL_LINES = 20;

/**
 * The installer's last non-empty lines, with the install code blanked wherever it shows (an
 * installer that echoes its command line must not put the code in the journal).
 */
export function installerTail(lines: readonly string[], code: string): string[] {
  return lines
    .filter((l) => l.trim() !== '')
    .slice(-TAIL_LINES)
    .map((l) => l.split(code).join(CODE_BLANK));
}
