import { beforeAll, describe, expect, it } from 'vitest';
import { desiredHardware, desiredWorkflow, HARDWARE_MAP_KEYS, type RunKind } from '../../verifier/reconcile/desired.js';
import type { NodeClass } from '../../verifier/inventory/embedded/nodes-file.js';
import { device, INSTALLER, MAC, NIXOS, NS, TALOS, templateData, TOOLS, URLS } from './fixtures.js';
import { renderBinary, renderWorkflow, type RenderSuccess } from './render.js';

// The first run on a machine builds tink-render (about 25 s).
beforeAll(() => renderBinary(), 600_000);

/**
 * fleet's two Templates rendered by Tinkerbell's own rendering (real text/template and Sprig,
 * missingkey=error) from the Workflow and Hardware fleetd builds: what each action would run with.
 */
async function renderRun(kind: RunKind, cls: NodeClass): Promise<{ r: RenderSuccess; map: Record<string, string> }> {
  const d = device();
  const wf = desiredWorkflow(d, cls, kind, 1764480000, NS, URLS);
  const r = await renderWorkflow({ template: templateData(String(wf.spec!.templateRef)), workflow: wf, hardware: desiredHardware(d, NS, true) });
  if (!r.ok) throw new Error(`${r.stage}: ${r.error}`);
  return { r, map: wf.spec!.hardwareMap as Record<string, string> };
}

const command = (name: string) => ['node', `/opt/fleet/${name}.mjs`];
const EFIVARS = ['/sys/firmware/efi/efivars:/sys/firmware/efi/efivars'];

/** Each action's name, image, timeout, command, volumes, pid and environment, in order. */
function actions(r: RenderSuccess) {
  return r.tasks[0]!.actions.map(({ name, image, timeout, command, volumes, pid, environment, state }) => ({
    name,
    image,
    timeout,
    command,
    volumes,
    pid,
    environment,
    state,
  }));
}

const action = (name: string, timeout: number, environment: Record<string, string>, more: { volumes?: string[]; pid?: string } = {}) => ({
  name,
  image: TOOLS,
  timeout,
  command: command(name),
  volumes: more.volumes,
  pid: more.pid,
  environment,
  state: 'PENDING',
});

describe("fleet's Templates as Tinkerbell renders them", () => {
  it('a Talos provision: one task on the MAC, wipe-disk, install, next-boot, reboot with their environment', async () => {
    const { r } = await renderRun('provision', TALOS);
    expect(r.agentID).toBe(MAC);
    expect(r.globalTimeout).toBe(3600);
    expect(r.tasks).toHaveLength(1);
    expect(r.tasks[0]).toMatchObject({
      name: 'provision',
      agentID: MAC,
      volumes: ['/dev:/dev', '/sys:/sys:ro', '/worker/fleet:/tmp/fleet', '/var/run/docker.sock:/var/run/docker.sock'],
    });
    const disk = { INSTALL_DISK: '/dev/nvme0n1' };
    expect(actions(r)).toEqual([
      action('wipe-disk', 900, {
        WIPE: 'true',
        ...disk,
        INSTALL_DISK_SERIAL: 'S4EV',
        INSTALL: 'true',
        OS: 'talos',
        INSTALLER_IMAGE: INSTALLER,
        CONFIG_URL: URLS.configUrl,
      }),
      action('install', 1800, { INSTALL: 'true', ...disk, INSTALLER_IMAGE: INSTALLER, CONFIG_URL: URLS.configUrl }),
      action('next-boot', 120, { OS: 'talos', ...disk }, { volumes: EFIVARS }),
      action('reboot', 90, { POWER_OFF: 'false' }, { pid: 'host' }),
    ]);
  });

  it('a disk-image provision: provision-image, image-to-disk with the image, its sha256, the seed URL and the node', async () => {
    const { r } = await renderRun('provision', NIXOS);
    expect(r.tasks[0]).toMatchObject({ name: 'provision-image', agentID: MAC, volumes: ['/dev:/dev', '/sys:/sys:ro', '/worker/fleet:/tmp/fleet'] });
    const image = { IMAGE_URL: NIXOS.imageUrl!, IMAGE_SHA256: NIXOS.imageSha256!, SEED_URL: URLS.seedUrl };
    expect(actions(r)).toEqual([
      action('wipe-disk', 900, { WIPE: 'true', INSTALL_DISK: '/dev/nvme0n1', INSTALL_DISK_SERIAL: 'S4EV', INSTALL: 'true', OS: 'nixos-image', ...image }),
      action('image-to-disk', 2400, { OS: 'nixos-image', INSTALL_DISK: '/dev/nvme0n1', ...image, NODE: 'node-1' }),
      action('next-boot', 120, { OS: 'nixos-image', INSTALL_DISK: '/dev/nvme0n1' }, { volumes: EFIVARS }),
      // This Template's task mounts no Docker socket: reboot's own volume does, for its hand-off.
      action('reboot', 90, { POWER_OFF: 'false' }, { pid: 'host', volumes: ['/var/run/docker.sock:/var/run/docker.sock'] }),
    ]);
  });

  it('a retirement: the provision Template with install off, no OS or installer, and power off', async () => {
    const { r } = await renderRun('retire', TALOS);
    expect(r.tasks[0]!.agentID).toBe(MAC);
    expect(actions(r)).toEqual([
      action('wipe-disk', 900, {
        WIPE: 'true',
        INSTALL_DISK: '/dev/nvme0n1',
        INSTALL_DISK_SERIAL: 'S4EV',
        INSTALL: 'false',
        OS: '',
        INSTALLER_IMAGE: '',
        CONFIG_URL: '',
      }),
      action('install', 1800, { INSTALL: 'false', INSTALL_DISK: '/dev/nvme0n1', INSTALLER_IMAGE: '', CONFIG_URL: '' }),
      action('next-boot', 120, { OS: '', INSTALL_DISK: '/dev/nvme0n1' }, { volumes: EFIVARS }),
      action('reboot', 90, { POWER_OFF: 'true' }, { pid: 'host' }),
    ]);
  });

  it('carries no install code: the hardwareMap is the run parameters only, and every value an action gets is one of them', async () => {
    for (const [kind, cls] of [
      ['provision', TALOS],
      ['provision', NIXOS],
      ['retire', TALOS],
    ] as const) {
      const { r, map } = await renderRun(kind, cls);
      expect(Object.keys(map).sort()).toEqual([...HARDWARE_MAP_KEYS].sort());
      const values = new Set(Object.values(map));
      for (const a of r.tasks[0]!.actions) {
        for (const [k, v] of Object.entries(a.environment ?? {})) expect(values.has(v), `${a.name} ${k}=${v}`).toBe(true);
        expect(
          Object.keys(a.environment ?? {}).some((k) => /CODE|TOKEN|SECRET/.test(k)),
          a.name,
        ).toBe(false);
      }
    }
  });

  it('the status IDs are ULIDs, one per task and action, as the controller gives them', async () => {
    const { r } = await renderRun('provision', TALOS);
    const ids = [r.tasks[0]!.id, ...r.tasks[0]!.actions.map((a) => a.id)];
    for (const id of ids) expect(id).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
