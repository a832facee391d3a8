import type { ActionIO } from '../lib/io.js';
import { silent, unreachable } from '../lib/http.js';
import { Refusal } from '../lib/refusal.js';
import { lastLine } from '../lib/run.js';
import { WIPE_LINES } from '../lines/wipe.js';

/**
 * What the run installs must be there before the disk is wiped: the Talos installer pulled into
 * this boot's image cache (install runs it from there), or the disk image's URL answering (a HEAD;
 * image-to-disk downloads and checks it later) and, for a disk image, the seed service answering
 * at `seedUrl` itself. Never at `<seedUrl>/<code>`: fleetd serves a seed once, and image-to-disk
 * fetches it; any answer below 500 (fleetd's 404 for the bare URL too) says the service is up. A
 * retirement names none of them and installs nothing; a run that installs has already been refused
 * if it lacks one (run-needs.ts).
 */
export async function preflight(io: ActionIO, say: (text: string) => void, need: { installerImage: string; imageUrl: string; seedUrl: string }): Promise<void> {
  const { installerImage, imageUrl, seedUrl } = need;
  if (installerImage) {
    const pull = await io.run('docker', ['pull', installerImage]);
    if (pull.code !== 0) throw new Refusal(WIPE_LINES.cannotPull(installerImage, lastLine(pull)));
    say(WIPE_LINES.pulled(installerImage));
  }
  if (imageUrl) {
    const why = await unreachable(imageUrl);
    if (why) throw new Refusal(WIPE_LINES.imageUnreachable(imageUrl, why));
    say(WIPE_LINES.imageAnswers(imageUrl));
  }
  if (seedUrl) {
    const why = await silent(seedUrl);
    if (why) throw new Refusal(WIPE_LINES.seedSilent(seedUrl, why));
    say(WIPE_LINES.seedAnswers(seedUrl));
  }
}
