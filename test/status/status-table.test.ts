import { describe, expect, it } from 'vitest';
import type { Device } from '../../verifier/inventory/device.js';
import type { WorkflowView } from '../../verifier/reconcile/workflow-view.js';
import { deviceStatusRow } from '../../verifier/status/device-status.js';
import { statusCells, statusTable } from '../../verifier/status/status-table.js';
import { device } from '../tinkerbell/fixtures.js';

const NOW = Date.parse('2026-12-03T10:00:00Z');
const attested = (switchPort: string | null): Device =>
  device('n1', {
    switchPort: 'Port 5',
    verdict: 'attested',
    attested: { at: '2026-12-03T09:59:00.000Z', mac: 'm', bootId: 'b', eks: {}, secureBoot: false, switchPort },
  });
const run = (over: Partial<WorkflowView> = {}): WorkflowView => ({
  name: 'provision-n1-1',
  device: 'n1',
  kind: 'provision',
  state: 'running',
  created: NOW - 60_000,
  globalTimeout: 3600,
  actions: [{ name: 'wipe-disk', state: 'running', started: NOW - 42_000, stopped: null, message: '' }],
  begun: true,
  renderError: null,
  current: 'wipe-disk',
  endedAt: null,
  ...over,
});

describe("a device's status row", () => {
  it('names the action a run is at and for how long', () => {
    const r = deviceStatusRow(attested('port 5 '), [], run(), NOW);
    expect(r.port).toEqual({ seen: 'port 5 ', declared: 'Port 5', matches: true });
    expect(statusCells(r)[5]).toBe('provision-n1-1 running at wipe-disk for 42 s');
  });

  it('says when the port differs, or none was seen', () => {
    expect(statusCells(deviceStatusRow(attested('Port 7'), [], null, NOW))[3]).toBe('Port 7/Port 5 (differs)');
    expect(statusCells(deviceStatusRow(attested(null), [], null, NOW))[3]).toBe('none/Port 5');
  });

  it("shows the inventory's last run when Tinkerbell's API holds it not", () => {
    expect(statusCells(deviceStatusRow(device('n1', { lastRun: 'provision-n1-0' }), [], null, NOW))[5]).toBe("provision-n1-0 (not in Tinkerbell's API)");
  });

  it('escapes what the inventory holds and cuts a long journal line, which --json keeps whole', () => {
    const message = `evil\u001b[2J ${'x'.repeat(200)}`;
    const r = deviceStatusRow(device('n1\u202e'), [{ at: '2026-12-03T09:00:00.000Z', kind: 'warning', message }], null, NOW);
    const cells = statusCells(r);
    expect(cells[0]).toBe('n1\\u202e');
    expect(cells[6]).toMatch(/^2026-12-03T09:00:00.000Z warning: evil\\x1b\[2J x+…$/);
    expect(r.lastJournal?.message).toBe(message);
  });

  it('lines the columns up under their headings', () => {
    const [heading, a, b] = statusTable([deviceStatusRow(attested('Port 5'), [], run(), NOW), deviceStatusRow(device('a-much-longer-host'), [], null, NOW)]);
    const at = (line: string) => line.indexOf('  ', 0);
    expect(heading!.indexOf('STATUS')).toBe(a!.indexOf(a!.split(/ {2,}/)[1]!));
    expect(b!.indexOf(b!.split(/ {2,}/)[1]!)).toBe(heading!.indexOf('STATUS'));
    expect(at(heading!)).toBeGreaterThan(0);
  });
});
