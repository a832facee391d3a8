import type { Verdict } from '../../../shared/wire/verdicts.js';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../state/database.js';
import type { AttestedFacts, Authorship, DesiredAction, Device, DeviceStatus, JournalEntry, JournalKind } from '../device.js';
import { deriveDevice } from '../derive.js';
import type { Inventory } from '../inventory.js';
import type { NodeClass, NodeDecl, NodesFile } from './nodes-file.js';
import { NodesFileSource, type NodesFileChange } from './nodes-file-source.js';

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
 * once per change (a change with problems is refused, and the last good one served), and
 * everything fleet writes in SQLite (status, MAC, attested facts, verdict, desired_action,
 * journal), which survives restarts. The file is the git-reviewed source of the binding, so its
 * binding is authored by definition.
 */
export class EmbeddedInventory implements Inventory {
  /** The nodes file, read once per change (nodes-file-source.ts). */
  readonly nodes: NodesFileSource;
  private readonly now: () => Date;
  /** Prepared once: `fleet status` asks them once per device, 10,000 times at the size the inventory must serve. */
  private readonly stateQuery: Statement;
  private readonly journalQuery: Statement;

  constructor(
    readonly nodesPath: string,
    private readonly db: Db,
    opts: { nodeNetwork?: string | undefined; now?: () => Date; onChange?: (change: NodesFileChange) => void } = {},
  ) {
    this.now = opts.now ?? (() => new Date());
    this.stateQuery = db.prepare('SELECT status, mac, verdict, attested, desired_action, last_run FROM device_state WHERE hostname = ?');
    this.journalQuery = db.prepare('SELECT at, kind, message FROM journal WHERE hostname = ? ORDER BY id');
    // Read at once: a broken file is refused at start, not at the first boot.
    this.nodes = new NodesFileSource(nodesPath, {
      ...opts,
      onChange: (change) => {
        this.recordChange(change);
        opts.onChange?.(change);
      },
    });
  }

  /** Keeps the refused change where `fleet status`, another process, reads it; a good one clears it. */
  private recordChange(change: NodesFileChange): void {
    if (change.outcome === 'reloaded') this.db.prepare('DELETE FROM inventory_refused').run();
    else
      this.db
        .prepare('INSERT INTO inventory_refused (id, at, body) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET at = excluded.at, body = excluded.body')
        .run(this.now().toISOString(), JSON.stringify(change));
  }

  /** The change fleetd last refused and has not seen replaced by a good one, as it recorded it. */
  static refusedChange(db: Db): { at: string; change: Extract<NodesFileChange, { outcome: 'refused' }> } | null {
    const row = db.prepare('SELECT at, body FROM inventory_refused WHERE id = 1').get() as { at: string; body: string } | undefined;
    return row ? { at: row.at, change: JSON.parse(row.body) } : null;
  }

  private stateOf(hostname: string): StateRow | undefined {
    return this.stateQuery.get(hostname) as StateRow | undefined;
  }

  private toDevice(decl: NodeDecl, file: NodesFile, row: StateRow | undefined): Device {
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
    const { file, bySerial } = await this.nodes.declarations();
    const decl = bySerial.get(serial);
    return decl ? this.toDevice(decl, file, this.stateOf(decl.hostname)) : null;
  }

  async deviceByName(hostname: string): Promise<Device | null> {
    const { file, byName } = await this.nodes.declarations();
    const decl = byName.get(hostname);
    return decl ? this.toDevice(decl, file, this.stateOf(decl.hostname)) : null;
  }

  async listDevices(): Promise<Device[]> {
    const { file } = await this.nodes.declarations();
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
    return (await this.nodes.declarations()).file.classes;
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
    return this.journalQuery.all(device.hostname) as JournalEntry[];
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
