import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { DeviceStatusRow } from '../../verifier/status/device-status.js';
import { statusCells } from '../../verifier/status/status-table.js';
import { isRoot } from '../docker/lab.js';
import type { Backend, Lab } from '../loop/lab.js';
import { fetchConfig, labPerTest, PASSED_WITH_CODE } from '../loop/per-file.js';
import { TSX } from '../tsx.js';

/**
 * `fleet status` beside a running fleetd, through the lab's loop (fleet serve, Kubernetes' own CRD
 * server, the agent on swtpm, the actions): each state of a run, on both inventory backends, as
 * the operator reads it with the options fleetd was given.
 */
const start = labPerTest();
const REPO = fileURLToPath(new URL('../../', import.meta.url));

async function rows(l: Lab, ...extra: string[]): Promise<DeviceStatusRow[]> {
  const r = await l.fleetStatus('--json', ...extra);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as DeviceStatusRow);
}

async function row(l: Lab): Promise<DeviceStatusRow> {
  const [only, ...more] = await rows(l);
  expect(more).toEqual([]);
  return only!;
}

describe.skipIf(!isRoot).each<Backend>(['embedded', 'netbox'])('fleet status (%s)', (backend) => {
  // Each fleet status is a process of its own (tsx's start included), as the operator runs it.
  it('shows a run through its states, as the table an operator reads', { timeout: 240_000 }, async () => {
    const l = await start({ backend, autoProvision: true });
    expect(await row(l)).toMatchObject({
      host: 'node-1',
      status: 'planned',
      verdict: null,
      port: { seen: null, declared: 'Port 5', matches: false },
      run: null,
      lastRun: null,
    });

    expect(await l.bootAndAttest()).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
    const wf = await l.run();
    await l.until('the run recorded', async () => ((await l.device()).lastRun === wf.metadata.name ? true : null));
    const started = await row(l);
    expect(started).toMatchObject({ verdict: 'attested', port: { seen: 'Port 5', declared: 'Port 5', matches: true }, run: { name: wf.metadata.name } });
    expect(started.attestedAt).toBe((await l.device()).attested!.at);
    expect(started.lastJournal?.message).toBe((await l.journal()).at(-1)!.replace(/^\w+: /, ''));

    await l.report(wf, 'RUNNING', [{ name: 'wipe-disk', state: 'RUNNING', executionStart: new Date(Date.now() - 5000).toISOString() }]);
    const running = (await row(l)).run;
    expect(running).toMatchObject({ name: wf.metadata.name, state: 'running', action: 'wipe-disk' });
    expect(running!.actionSeconds).toBeGreaterThanOrEqual(5);

    expect(await l.act(wf, 'wipe-disk')).toMatchObject({ code: 0 });
    expect(await l.act(wf, 'install', 'SUCCESS')).toMatchObject({ code: 0 });
    expect(await fetchConfig(l.fleetd.url, (await l.machine.installCode())!)).toBe(200);
    await l.until('the device active', async () => ((await l.status()) === 'active' ? true : null));
    const done = await row(l);
    expect(done).toMatchObject({ status: 'active', run: { name: wf.metadata.name, state: 'success', action: 'install' } });

    // The table: a heading, then the row's cells in their columns.
    const table = await l.fleetStatus();
    expect(table.code).toBe(0);
    const [heading, line, ...rest] = table.stdout.trimEnd().split('\n');
    expect(heading).toMatch(/^HOST +STATUS +VERDICT +PORT \(SEEN\/DECLARED\) +DESIRED +RUN +LAST JOURNAL LINE$/);
    expect(rest).toEqual([]);
    for (const cell of statusCells(done).slice(0, -1)) expect(line).toContain(cell);
    expect(line).toContain(`${wf.metadata.name} success at install`);

    // Filters: by host, by inventory status.
    expect(await rows(l, '--host', 'node-9')).toEqual([]);
    expect(await rows(l, '--status', 'planned')).toEqual([]);
    expect(await rows(l, '--host', 'node-1', '--status', 'active,planned')).toHaveLength(1);
  });

  // What --watch adds is the same on either backend: one is enough.
  it.skipIf(backend !== 'embedded')('--watch shows each change as it comes, and ends at SIGINT', { timeout: 240_000 }, async () => {
    const l = await start({ backend, autoProvision: true });
    const child = spawn(TSX[0], [...TSX.slice(1), 'cli/fleet.ts', 'status', ...l.statusArgs, '--watch', '--json', '--interval', '1'], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const views: DeviceStatusRow[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.trim()) views.push(JSON.parse(line) as DeviceStatusRow);
    });
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      await l.until('the first view', () => (views.length >= 1 ? true : null));
      expect(views[0]).toMatchObject({ status: 'planned', verdict: null });
      expect(await l.bootAndAttest()).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
      await l.until('a view of the attested machine', () => (views.some((v) => v.verdict === 'attested') ? true : null));
      // It redraws on change only: a quiet fleet prints nothing new.
      await l.until('the run and its journal line in a view', () =>
        views.at(-1)?.run && views.at(-1)?.lastJournal?.message.includes('started Workflow') ? true : null,
      );
      const seen = views.length;
      await new Promise((r) => setTimeout(r, 3000));
      expect(views.length).toBe(seen);
    } finally {
      child.kill('SIGINT');
    }
    expect(await closed).toBe(0);
  });
});
