import { describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { INSTALL_LINES } from '../../images/tink-reprovision-tools/lines/install.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { NOTHING, SHARED_LINES } from '../../images/tink-reprovision-tools/lines/shared.js';
import { WIPE_LINES } from '../../images/tink-reprovision-tools/lines/wipe.js';
import { asPrinted } from '../actions/printed-line.js';
import { isRoot } from '../docker/lab.js';
import { matching } from '../line-pattern.js';
import type { Backend, Lab } from './lab.js';
import { fetchConfig, labPerTest, PASSED_WITH_CODE } from './per-file.js';

/**
 * Every run fleetd starts reaches a boot that holds its install code. Each path runs the lab's
 * loop as one piece: `fleet serve` with its reconciler against Kubernetes' own CRD server with the
 * real Tinkerbell and Rufio CRDs (one server for the file, a namespace per lab), the agent (the CLI)
 * on the machine's swtpm, the owner's desired_action, Rufio's power cycle, and the Template's
 * actions in the booted machine (its installer pulled and run by a real Docker engine from a real
 * registry, on a loop device: root), on both inventory backends.
 */
const start = labPerTest();

/** The intake of a planned worker, through its install and its config's fetch: an active node. */
async function installedWorker(l: Lab): Promise<{ code: string; run: string }> {
  expect(await l.bootAndAttest()).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
  const wf = await l.run();
  expect(await l.act(wf, 'wipe-disk')).toMatchObject({ code: 0 });
  expect(await l.act(wf, 'install', 'SUCCESS')).toMatchObject({ code: 0 });
  const code = (await l.machine.installCode())!;
  expect(await fetchConfig(l.fleetd.url, code)).toBe(200);
  await l.until('the device active', async () => (await l.status()) === 'active');
  await l.until('the run seen to end', async () => {
    const hw = await l.hardware();
    return hw?.spec && !JSON.stringify(hw.spec).includes('"allowPXE":true');
  });
  return { code, run: wf.metadata.name };
}

/** A run's power cycle: its Job, as fleetd created it; Rufio runs it; the machine boots HookOS and attests. */
async function powerCycled(l: Lab, run: string): Promise<string[]> {
  const job = await l.until(`the power-cycle Job ${run}`, async () => (await l.jobs()).find((j) => j.metadata.name === run));
  expect((job.spec as { tasks: unknown[] }).tasks).toEqual([
    { powerAction: 'off' },
    { oneTimeBootDeviceAction: { device: ['pxe'], efiBoot: true } },
    { powerAction: 'on' },
  ]);
  await l.rufio(job);
  return l.bootAndAttest();
}

/** Its Workflow's wipe-disk, in the machine: it found a code and wiped the declared disk. */
async function wipes(l: Lab, wf: Parameters<Lab['act']>[0]): Promise<void> {
  const before = l.machine.diskHash();
  const r = await l.act(wf, 'wipe-disk');
  expect(r.lines.at(-1)).toMatch(matching(asPrinted('wipe-disk', WIPE_LINES.wiped), l.machine.disk, /.+/));
  expect(r.code).toBe(0);
  expect(l.machine.diskHash()).not.toBe(before);
}

describe.skipIf(!isRoot).each<Backend>(['embedded', 'netbox'])('the runs fleetd starts hold their codes (%s)', (backend) => {
  it('1. the intake of a planned worker: its attestation gets the code and starts the run, with no power cycle', async () => {
    const l = await start({ backend, autoProvision: true });
    const lines = await l.bootAndAttest();
    expect(lines).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
    const wf = await l.run();
    expect(wf.metadata.labels?.['fleet.lolwtf.ca/boot']).toBe('hookos');
    // fleetd was given no --config-url: the run carries the one under its --base-url.
    expect((wf.spec!.hardwareMap as Record<string, string>).config_url).toBe(`${l.fleetd.url}/v1/config`);
    // The journal line follows the Workflow's creation (fleetd writes the objects a line describes first).
    const started = `info: node-1: started Workflow ${wf.metadata.name}, with the note that the machine attested from HookOS`;
    await l.until(started, async () => (await l.journal()).includes(started));
    await wipes(l, wf);
    expect(await l.jobs()).toEqual([]);
  });

  it("2. a control plane (by its class's definition) waits in HookOS; desired_action provision power-cycles it, and its next attestation gets the code", async () => {
    const l = await start({ backend, className: 'api-edge', autoProvision: true });
    expect(await l.bootAndAttest()).toEqual([ATTEST_LINES.passed()]);
    expect(await l.machine.installCode()).toBeNull();
    await l.setDesiredAction('provision');
    const wf = await l.run();
    expect(wf.metadata.labels?.['fleet.lolwtf.ca/boot']).toBe('bmc');
    expect(await powerCycled(l, wf.metadata.name)).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
    await wipes(l, wf);
  });

  it('3. the reinstall of an active worker: a power cycle, a new code, a wipe', async () => {
    const l = await start({ backend, autoProvision: true });
    const first = await installedWorker(l);
    await l.setDesiredAction('provision');
    const wf = await l.until('a second run', async () => (await l.workflows()).find((w) => w.metadata.name !== first.run));
    expect(wf.metadata.labels?.['fleet.lolwtf.ca/boot']).toBe('bmc');
    expect(await powerCycled(l, wf.metadata.name)).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
    expect(await l.machine.installCode()).not.toBe(first.code);
    expect(await l.status()).toBe('planned');
    await wipes(l, wf);
  });

  it('4. a retirement: its boot gets a code, wipe-disk wipes, the Machine is off, the device offline', async () => {
    const l = await start({ backend, autoProvision: true });
    const first = await installedWorker(l);
    await l.setDesiredAction('retire');
    const wf = await l.until('the retirement', async () => (await l.workflows()).find((w) => w.metadata.name.startsWith('retire-')));
    expect(await powerCycled(l, wf.metadata.name)).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
    expect(await l.machine.installCode()).not.toBe(first.code);
    expect(await l.status()).toBe('decommissioning');
    await wipes(l, wf);
    await l.report(wf, 'SUCCESS', [
      { name: 'reboot', state: 'SUCCESS', executionStart: new Date().toISOString(), executionStop: new Date().toISOString(), message: 'action completed' },
    ]);
    await l.power('off');
    await l.until('the device offline', async () => (await l.status()) === 'offline');
    expect(await l.journal()).toContain(`success: node-1 is retired: Workflow ${wf.metadata.name} wiped its disk, and its BMC reports it off`);
  });

  it('5. a device without a BMC: the journal says once to power it on by hand, and that boot gets the code', async () => {
    const l = await start({ backend, className: 'controlplane', bmc: false });
    expect(await l.bootAndAttest()).toEqual([ATTEST_LINES.passed()]);
    await l.setDesiredAction('provision');
    const wf = await l.run();
    expect(wf.metadata.labels?.['fleet.lolwtf.ca/boot']).toBe('manual');
    const line = `info: node-1: started Workflow ${wf.metadata.name}; it has no BMC fleetd drives: power it on by hand so that it netboots`;
    await l.until('the journal line', async () => (await l.journal()).includes(line));
    expect(await l.bootAndAttest()).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
    await wipes(l, wf);
    expect((await l.journal()).filter((j) => j === line)).toHaveLength(1);
    expect(await l.jobs()).toEqual([]);
  });

  it('6. a power loss mid-run: the new boot gets a new code, the old one is void, and install refuses by boot id', async () => {
    const l = await start({ backend, autoProvision: true });
    expect(await l.bootAndAttest()).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
    const first = (await l.machine.installCode())!;
    const wf = await l.run();
    await wipes(l, wf);
    // The power fails during install; Tinkerbell resumes the run at install in the next HookOS boot.
    expect(await l.bootAndAttest()).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
    const second = (await l.machine.installCode())!;
    expect(second).not.toBe(first);
    expect(await fetchConfig(l.fleetd.url, first)).toBe(404);
    const disk = l.machine.diskHash();
    const install = await l.act(wf, 'install');
    expect(install.lines.at(-1)).toBe(printed('install', SHARED_LINES.resumed(NOTHING.install)));
    expect(l.machine.diskHash()).toBe(disk);
    expect(await l.workflows()).toHaveLength(1);
  });

  it('7. the agent restarted in the same boot: a new code, the old one void, and the repeated install finds the disk not empty', async () => {
    const l = await start({ backend, autoProvision: true });
    expect(await l.bootAndAttest()).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
    const first = (await l.machine.installCode())!;
    const wf = await l.run();
    await wipes(l, wf);
    expect(await l.act(wf, 'install')).toMatchObject({ code: 0 });
    expect(await l.machine.attest(l.fleetd.url)).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
    const second = (await l.machine.installCode())!;
    expect(second).not.toBe(first);
    expect(await fetchConfig(l.fleetd.url, first)).toBe(404);
    const again = await l.act(wf, 'install');
    expect(again.lines).toContain(
      printed('install', `failed to perform disk operations: disk ${l.machine.disk} is not empty, skipping install, detected "gpt"`),
    );
    expect(again.lines.at(-1)).toBe(printed('install', INSTALL_LINES.installerFailed()));
    expect(await l.workflows()).toHaveLength(1);
    expect(await l.jobs()).toEqual([]);
  });

  it('8. a run that could not install never starts: a control plane whose class inputs fleetd lacks is journaled, and nothing is created or wiped', async () => {
    const l = await start({ backend, className: 'api-edge', withoutInputsOf: 'api-edge' });
    const disk = l.machine.diskHash();
    expect(await l.bootAndAttest()).toEqual([ATTEST_LINES.passed()]);
    await l.setDesiredAction('provision');
    const line = await l.until('the journal line', async () =>
      (await l.journal()).find((j) =>
        /^warning: node-1 lacks its class inputs \(the class inputs of api-edge are missing .*\); the run waits for its class inputs$/.test(j),
      ),
    );
    // A few more passes: still no run, the line still once, desired_action still set.
    await new Promise((r) => setTimeout(r, 2500));
    expect(await l.workflows()).toEqual([]);
    expect(await l.jobs()).toEqual([]);
    expect((await l.journal()).filter((j) => j === line)).toHaveLength(1);
    expect((await l.device()).desiredAction).toBe('provision');
    expect(l.machine.diskHash()).toBe(disk);
  });

  it('10. a boot refused its code (on another switch port): nothing wiped; the cable fixed and the machine power-cycled, the run starts again', async () => {
    const l = await start({ backend });
    expect(await l.bootAndAttest()).toEqual([ATTEST_LINES.passed()]);
    await l.setDesiredAction('provision');
    const wf = await l.run();
    // Its power cycle's boot comes up cabled to another port: attested, and refused its code.
    l.machine.port = 'Port 7';
    expect(await l.bootAndAttest()).toEqual([ATTEST_LINES.passed()]);
    const before = l.machine.diskHash();
    const refused = await l.act(wf, 'wipe-disk');
    expect(refused.code).toBe(1);
    expect(l.machine.diskHash()).toBe(before);
    const ended = `warning: node-1: Workflow ${wf.metadata.name} ended FAILED at wipe-disk (action failed); read journalctl -t hookos HOOKOS_HOST=10.0.1.11 on spore for the action's last lines. Its boot got no install code, so nothing was wiped: fix what the journal names, then power-cycle the machine; its next boot that gets a code starts the run again`;
    await l.until('the run ended', async () => (await l.journal()).includes(ended));
    expect(await l.journal()).toContain('warning: node-1 attested on port Port 7, expected Port 5');
    // The runbook's action: the cable back in Port 5, the machine power-cycled. No desired_action is set again.
    l.machine.port = 'Port 5';
    expect(await l.bootAndAttest()).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
    const again = await l.until('the run started again', async () => (await l.workflows()).find((w) => w.metadata.name !== wf.metadata.name));
    expect(again.metadata.labels?.['fleet.lolwtf.ca/boot']).toBe('hookos');
    expect(await l.journal()).toContain(
      `info: node-1 attested with what kept its run ${wf.metadata.name} from its code fixed: the run starts again in this boot`,
    );
    await wipes(l, again);
  });

  it("9. Rufio cannot power the machine: the journal says so once, with Rufio's message and the runbook's action", async () => {
    const l = await start({ backend, className: 'controlplane' });
    expect(await l.bootAndAttest()).toEqual([ATTEST_LINES.passed()]);
    await l.setDesiredAction('provision');
    const wf = await l.run();
    const job = await l.until('the power-cycle Job', async () => (await l.jobs()).find((j) => j.metadata.name === wf.metadata.name));
    await l.rufio(job, {
      failed: 'failed to run task 0 (power off): Post "http://10.0.1.11:16992/wsman": dial tcp 10.0.1.11:16992: connect: no route to host',
    });
    const line = `warning: node-1: Rufio's Job ${wf.metadata.name} failed to power the machine (failed to run task 0 (power off): Post "http://10.0.1.11:16992/wsman": dial tcp 10.0.1.11:16992: connect: no route to host): AMT does not answer at 10.0.1.11. Set AMT's address, or power the machine on by hand`;
    await l.until('the journal line', async () => (await l.journal()).includes(line));
    await new Promise((r) => setTimeout(r, 2000));
    expect((await l.journal()).filter((j) => j === line)).toHaveLength(1);
    // The runbook's action: set AMT's address. fleetd power-cycles the machine again, at the new address.
    await l.setAddress('10.0.1.21/24');
    const again = await l.until('a power cycle at the new address', async () =>
      (await l.jobs()).find((j) => j.metadata.name === wf.metadata.name && j.metadata.annotations?.['fleet.lolwtf.ca/bmc-address'] === '10.0.1.21'),
    );
    expect(await l.journal()).toContain(
      `info: node-1: AMT's address is now 10.0.1.21 (was 10.0.1.11); fleetd power-cycles the machine again for Workflow ${wf.metadata.name}`,
    );
    await l.rufio(again);
    // That power cycle's boot gets the run's code.
    expect(await l.bootAndAttest()).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
  });
});
