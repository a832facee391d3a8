import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FleetError, errorMessage } from '../../shared/errors.js';
import { writeFileAtomic } from '../../shared/fs/atomic-write.js';
import type { Verdict } from '../../shared/wire/verdicts.js';
import type { AttestationFacts, Claim, Inventory, NodeEntry } from './inventory.js';
import { parseNodesFile } from './nodes-file.js';

/** What the verifier has written about a device, beside its declaration. */
export interface DeviceState {
  verdict?: Verdict;
  verdictAt?: string;
  mac?: string;
  attested?: AttestationFacts;
  installCode?: { sha256: string; bootId: string; at: string };
}

interface State {
  devices: Record<string, DeviceState>;
  claims: Record<string, Claim>;
}

/**
 * The inventory for a single machine and the demo: declarations from the lab's nodes file, which
 * the operator edits (it is read again whenever it changes), and the verifier's writes in a state
 * file beside it, replaced atomically on every write.
 */
export class EmbeddedInventory implements Inventory {
  private nodes: NodeEntry[] = [];
  private nodesStamp = '';
  private state: State = { devices: {}, claims: {} };
  private writes: Promise<void> = Promise.resolve();

  private constructor(
    readonly nodesPath: string,
    readonly statePath: string,
  ) {}

  static async open(nodesPath: string, stateDir: string): Promise<EmbeddedInventory> {
    const inv = new EmbeddedInventory(nodesPath, join(stateDir, 'state.json'));
    await inv.refreshNodes();
    try {
      inv.state = JSON.parse(await readFile(inv.statePath, 'utf8')) as State;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new FleetError('state-invalid', `cannot read the inventory state ${inv.statePath}: ${errorMessage(err)}`);
      }
    }
    return inv;
  }

  /** Re-reads the nodes file when it changed; a broken edit keeps serving nothing rather than stale approvals. */
  private async refreshNodes(): Promise<void> {
    let s;
    try {
      s = await stat(this.nodesPath);
    } catch (err) {
      throw new FleetError('nodes-invalid', `cannot read the nodes file ${this.nodesPath}: ${errorMessage(err)}`);
    }
    const stamp = `${s.mtimeMs}:${s.size}:${s.ino}`;
    if (stamp === this.nodesStamp) return;
    this.nodesStamp = '';
    this.nodes = [];
    this.nodes = parseNodesFile(await readFile(this.nodesPath, 'utf8'), this.nodesPath);
    this.nodesStamp = stamp;
  }

  async lookup(serial: string): Promise<NodeEntry | null> {
    await this.refreshNodes();
    return this.nodes.find((n) => n.serial === serial) ?? null;
  }

  async entries(): Promise<NodeEntry[]> {
    await this.refreshNodes();
    return [...this.nodes];
  }

  device(hostname: string): DeviceState | undefined {
    return this.state.devices[hostname];
  }

  private update(fn: (s: State) => void): Promise<void> {
    const run = async () => {
      fn(this.state);
      await writeFileAtomic(this.statePath, `${JSON.stringify(this.state, null, 2)}\n`, 0o600);
    };
    const next = this.writes.then(run, run);
    this.writes = next.catch(() => undefined);
    return next;
  }

  private dev(s: State, hostname: string): DeviceState {
    return (s.devices[hostname] ??= {});
  }

  recordAttested(entry: NodeEntry, facts: AttestationFacts): Promise<void> {
    return this.update((s) => {
      const d = this.dev(s, entry.hostname);
      d.verdict = facts.verdict;
      d.verdictAt = facts.at;
      d.mac = facts.mac;
      d.attested = facts;
      delete s.claims[entry.serial];
    });
  }

  async recordVerdict(serial: string, verdict: Verdict, at: string): Promise<void> {
    const entry = await this.lookup(serial);
    if (!entry) return;
    await this.update((s) => {
      const d = this.dev(s, entry.hostname);
      d.verdict = verdict;
      d.verdictAt = at;
    });
  }

  recordClaim(claim: Claim): Promise<void> {
    return this.update((s) => {
      s.claims[claim.serial] = claim;
    });
  }

  async claim(serial: string): Promise<Claim | null> {
    return this.state.claims[serial] ?? null;
  }

  recordInstallCode(entry: NodeEntry, sha256: string, bootId: string, at: string): Promise<void> {
    return this.update((s) => {
      this.dev(s, entry.hostname).installCode = { sha256, bootId, at };
    });
  }
}
