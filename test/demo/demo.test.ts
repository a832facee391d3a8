import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { within } from '../line-pattern.js';

describe('npm run demo', () => {
  it('runs the main job end to end through the CLI and the bundles, and exits 0', () => {
    const r = spawnSync('node_modules/.bin/tsx', ['scripts/demo.ts'], { encoding: 'utf8', timeout: 120_000 });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.status, out).toBe(0);
    const order = [
      within(ATTEST_LINES.failed, 'pending-approval', 'no EK of this machine is approved yet; approve its EKs'),
      /approved_ek_rsa2048: [0-9a-f]{64}/,
      /approved_ek_eccp256: [0-9a-f]{64}/,
      /receiving scan rsa2048: [0-9a-f]{64} matches the claim/,
      within(ATTEST_LINES.passed),
      within(ATTEST_LINES.codeWritten),
      /install_code: mode 600/,
      /desired_action provision/,
      /journal │ success: demo-node-1 attested from HookOS/,
      /journal │ info: demo-node-1 is a planned worker that attested from HookOS: its provision starts/,
      /GET <config-url>\/<code>: 200, \d+ bytes of Talos machine config/,
      /machine.type worker, hostname demo-node-1, address 10.0.1.11\/24, install disk \/dev\/nvme0n1/,
      /GET it again: 404/,
      /inventory: demo-node-1 is active/,
      /journal │ success: fleetd served the config of its run to 127.0.0.1/,
      /journal │ warning: the node asked again for the Talos config fleetd served it/,
      /status │ HOST +STATUS +VERDICT +PORT \(SEEN\/DECLARED\) +DESIRED +RUN +LAST JOURNAL LINE/,
      /status │ demo-node-1 +active +attested \S+ +Port 5 +provision +- +\S+ warning: the node asked again/,
    ];
    let at = 0;
    for (const re of order) {
      const m = re.exec(out.slice(at));
      expect(m, `${re} after byte ${at} of:\n${out}`).not.toBeNull();
      at += m!.index + m![0].length;
    }
  });
});
