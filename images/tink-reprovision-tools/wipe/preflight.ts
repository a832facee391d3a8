import type { ActionIO } from '../lib/io.js';
import { unreachable } from '../lib/http.js';
import { Refusal } from '../lib/refusal.js';
import { lastLine } from '../lib/run.js';

/**
 * What the run installs must be there before the disk is wiped: the Talos installer pulled into
 * this boot's image cache (install runs it from there), or the disk image's URL answering (a HEAD;
 * image-to-disk downloads and checks it later). A retirement names neither and installs nothing;
 * a run that installs has already been refused if it lacks either (run-needs.ts).
 */
export async function preflight(io: ActionIO, say: (text: string) => void, installerImage: string, imageUrl: string): Promise<void> {
  if (installerImage) {
    const pull = await io.run('docker', ['pull', installerImage]);
    if (pull.code !== 0) throw new Refusal(`the installer image ${installerImage} cannot be pulled (${lastLine(pull)}); nothing wiped`);
    say(`pulled the installer image ${installerImage}`);
  }
  if (imageUrl) {
    const why = await unreachable(imageUrl);
    if (why) throw new Refusal(`the image ${imageUrl} cannot be fetched (${why}); nothing wiped`);
    say(`the image ${imageUrl} answers`);
  }
}
