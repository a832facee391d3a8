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

/** Waiting claims kept by default; the oldest go first. */
const MAX_CLAIMS = 1000;

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
    private readonly maxClaims: number,
  ) {}

  static async open(nodesPath: string, stateDir: string, opts: { maxClaims?: number } = {}): Promise<EmbeddedInventory> {
    const inv = new EmbeddedInventory(nodesPath, join(stateDir, 'state.json'), opts.maxClaims ?? MAX_CLAIMS);
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

  /** Changes a copy, writes it, and only then serves it: a failed write changes nothing. */
  private update(fn: (s: State) => void): Promise<void> {
    const run = async () => {
      const next = structuredClone(this.state);
      fn(next);
      await writeFileAtomic(this.statePath, `${JSON.stringify(next, null, 2)}\n`, 0o600);
      this.state = next;
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

  recordVerdict(entry: NodeEntry, verdict: Verdict, at: string): Promise<void> {
    return this.update((s) => {
      const d = this.dev(s, entry.hostname);
      d.verdict = verdict;
      d.verdictAt = at;
    });
  }

  /** Keeps the newest claim per serial, and the newest `maxClaims` in all: claims cost nothing to send. */
  recordClaim(claim: Claim): Promise<void> {
    return this.update((s) => {
      delete s.claims[claim.serial];
      s.claims[claim.serial] = claim;
      const serials = Object.keys(s.claims);
      for (const old of serials.slice(0, Math.max(0, serials.length - this.maxClaims))) delete s.claims[old];
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
