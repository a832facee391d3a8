import { readFileSync } from 'node:fs';
import { FleetError, errorMessage } from '../../../shared/errors.js';
import type { Verdict } from '../../../shared/wire/verdicts.js';
import type { Db } from '../../state/database.js';
import type { AttestedFacts, Authorship, DesiredAction, Device, DeviceStatus, JournalEntry, JournalKind } from '../device.js';
import { deriveDevice } from '../derive.js';
import type { Inventory } from '../inventory.js';
import { readNodesFile, type NodeClass, type NodeDecl, type NodesFile } from './nodes-file.js';

interface StateRow {
  status: DeviceStatus;
  mac: string | null;
  verdict: string | null;
  attested: string | null;
  desired_action: DesiredAction | null;
  last_run: string | null;
}

/** What fleet wrote about a device, beside its declaration (for `fleet inventory show` and tests). */
export interface DeviceRecord {
  status: DeviceStatus;
  mac: string | null;
  verdict: string | null;
  verdictAt: string | null;
  attested: AttestedFacts | null;
  desiredAction: DesiredAction | null;
  lastRun: string | null;
}

/**
 * The inventory of a single machine and the demo: declarations from the lab's nodes file, read
 * again whenever it changes, and everything fleet writes in SQLite (status, MAC, attested facts,
 * verdict, desired_action, journal), which survives restarts. The file is the git-reviewed source
 * of the binding, so its binding is authored by definition.
 */
export class EmbeddedInventory implements Inventory {
  private file: NodesFile | null = null;
  private source = '';

  private readonly now: () => Date;
  /** The node network fleetd names (`--node-network`), for addresses the file writes without a prefix. */
  private readonly nodeNetwork: string | undefined;

  constructor(
    readonly nodesPath: string,
    private readonly db: Db,
    opts: { nodeNetwork?: string | undefined; now?: () => Date } = {},
  ) {
    this.now = opts.now ?? (() => new Date());
    this.nodeNetwork = opts.nodeNetwork;
    this.declarations(); // refuse a broken file at start, not at the first boot
  }

  /**
   * The declarations, parsed again whenever the file's contents changed (it is small; comparing
   * contents misses no edit, as timestamps can). A file with problems is refused whole: no stale approvals.
   */
  private declarations(): NodesFile {
    let source: string;
    try {
      source = readFileSync(this.nodesPath, 'utf8');
    } catch (err) {
      throw new FleetError('nodes-invalid', `cannot read the nodes file ${this.nodesPath}: ${errorMessage(err)}`);
    }
    if (source === this.source && this.file) return this.file;
    this.file = null;
    const { file, problems } = readNodesFile(source, this.nodesPath, this.nodeNetwork ? { nodeNetwork: this.nodeNetwork } : {});
    if (problems.length) {
      const list = problems.map((p) => (p.where ? `${p.where}: ${p.message}` : p.message)).join('; ');
      throw new FleetError('nodes-invalid', `${this.nodesPath} has ${problems.length} problem(s); run fleet inventory check: ${list}`);
    }
    this.file = file;
    this.source = source;
    return file;
  }

  private stateOf(hostname: string): StateRow | undefined {
    return this.db.prepare('SELECT status, mac, verdict, attested, desired_action, last_run FROM device_state WHERE hostname = ?').get(hostname) as
      | StateRow
      | undefined;
  }

  private toDevice(decl: NodeDecl, file: NodesFile, row = this.stateOf(decl.hostname)): Device {
    return deriveDevice(
      {
        id: decl.hostname,
        hostname: decl.hostname,
        serial: decl.serial,
        status: row?.status ?? 'planned',
        binding: decl.binding,
        className: decl.className,
        address: decl.address,
        switchPort: decl.switchPort,
        bmcType: decl.bmcType,
        installDisk: decl.disk,
        installDiskSerial: decl.diskSerial,
        desiredAction: row?.desired_action ?? undefined,
        mac: row?.mac ?? undefined,
        lastRun: row?.last_run ?? undefined,
        verdict: (row?.verdict as Verdict | null) ?? undefined,
        attested: row?.attested ? (JSON.parse(row.attested) as AttestedFacts) : undefined,
      },
      file.classes,
    );
  }

  async deviceBySerial(serial: string): Promise<Device | null> {
    const file = this.declarations();
    const decl = file.nodes.find((n) => n.serial === serial);
    return decl ? this.toDevice(decl, file) : null;
  }

  async deviceByName(hostname: string): Promise<Device | null> {
    const file = this.declarations();
    const decl = file.nodes.find((n) => n.hostname === hostname);
    return decl ? this.toDevice(decl, file) : null;
  }

  async listDevices(): Promise<Device[]> {
    const file = this.declarations();
    const rows = new Map(
      (
        this.db.prepare('SELECT hostname, status, mac, verdict, attested, desired_action, last_run FROM device_state').all() as Array<
          StateRow & { hostname: string }
        >
      ).map((r) => [r.hostname, r]),
    );
    return file.nodes.map((n) => this.toDevice(n, file, rows.get(n.hostname)));
  }

  async classes(): Promise<Map<string, NodeClass>> {
    return this.declarations().classes;
  }

  async bindingAuthorship(): Promise<Authorship> {
    return { authored: true };
  }

  private upsert(hostname: string, set: Record<string, string | null>): void {
    const cols = Object.keys(set);
    this.db
      .prepare(`INSERT INTO device_state (hostname, ${cols.join(', ')}) VALUES (?, ${cols.map(() => '?').join(', ')})
                ON CONFLICT(hostname) DO UPDATE SET ${cols.map((c) => `${c} = excluded.${c}`).join(', ')}`)
      .run(hostname, ...cols.map((c) => set[c] ?? null));
  }

  async recordAttested(device: Device, facts: AttestedFacts): Promise<void> {
    this.upsert(device.hostname, { mac: facts.mac, verdict: 'attested', verdict_at: facts.at, attested: JSON.stringify(facts) });
  }

  async recordVerdict(device: Device, verdict: Verdict): Promise<void> {
    this.upsert(device.hostname, { verdict, verdict_at: this.now().toISOString() });
  }

  async journal(device: Device, kind: JournalKind, message: string): Promise<void> {
    this.db.prepare('INSERT INTO journal (hostname, at, kind, message) VALUES (?, ?, ?, ?)').run(device.hostname, this.now().toISOString(), kind, message);
  }

  async journalOf(device: Device): Promise<JournalEntry[]> {
    return this.db.prepare('SELECT at, kind, message FROM journal WHERE hostname = ? ORDER BY id').all(device.hostname) as JournalEntry[];
  }

  async setDesiredAction(device: Device, action: DesiredAction | null): Promise<void> {
    this.upsert(device.hostname, { desired_action: action });
  }

  async recordRun(device: Device, run: string): Promise<void> {
    this.upsert(device.hostname, { last_run: run, desired_action: null });
  }

  async setStatus(device: Device, status: DeviceStatus): Promise<void> {
    this.upsert(device.hostname, { status });
  }

  /** Everything fleet wrote about a host, or null when it wrote nothing. */
  record(hostname: string): DeviceRecord | null {
    const row = this.db
      .prepare(
        'SELECT status, mac, verdict, verdict_at AS verdictAt, attested, desired_action AS desiredAction, last_run AS lastRun FROM device_state WHERE hostname = ?',
      )
      .get(hostname) as (Omit<DeviceRecord, 'attested'> & { attested: string | null }) | undefined;
    return row ? { ...row, attested: row.attested ? (JSON.parse(row.attested) as AttestedFacts) : null } : null;
  }

  async close(): Promise<void> {
    // The database belongs to the caller, who may share it with the local store.
  }
}
