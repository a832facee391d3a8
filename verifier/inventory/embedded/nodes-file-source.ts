import { readFileSync, statSync, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { FleetError, errorMessage } from '../../../shared/errors.js';
import { readNodesFile, type NodeDecl, type NodesFile, type Problem } from './nodes-file.js';
import { readNodesFileOffThread } from './nodes-file-thread.js';

/** A nodes file as served: its declarations, indexed so a lookup costs the same at 10 or 10,000 nodes. */
export interface Declarations {
  file: NodesFile;
  bySerial: ReadonlyMap<string, NodeDecl>;
  byName: ReadonlyMap<string, NodeDecl>;
  /** When this content was read. */
  readAt: Date;
}

/** What became of one change to the file. */
export type NodesFileChange =
  | { outcome: 'reloaded'; path: string; nodes: number }
  /** Refused whole: the last good declarations (`kept` nodes, read at `keptSince`, ISO 8601) are still served. */
  | { outcome: 'refused'; path: string; problems: string[]; kept: number; keptSince: string };

/** The change the file holds now, when it was refused; null when what is served is what the file says. */
export type RefusedChange = Extract<NodesFileChange, { outcome: 'refused' }> & { at: Date };

const problemText = (p: Problem) => (p.where ? `${p.where}: ${p.message}` : p.message);

function index(file: NodesFile, readAt: Date): Declarations {
  return { file, readAt, bySerial: new Map(file.nodes.map((n) => [n.serial, n])), byName: new Map(file.nodes.map((n) => [n.hostname, n])) };
}

/** The file's identity and version as stat sees it: any write, rename over it or re-pointed link changes it. */
function stampOf(path: string): string {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch (err) {
    return `unreadable:${errorMessage(err)}`;
  }
}

/**
 * The lab's nodes file, read once per change and off the request path. At start it is read at
 * once and a file with problems is refused (fleetd does not start). After that, a change (seen by
 * the directory watch, by SIGHUP's reload(), or by a lookup that finds the file's stamp moved) is
 * parsed on a worker thread and swapped in whole only if it has no problem; otherwise the last
 * good declarations stay and the change is reported, with every problem, until the file changes
 * again. A lookup made after an edit waits for that edit's reading, so it never answers from a
 * file the operator has already changed.
 */
export class NodesFileSource {
  private served: Declarations;
  private servedSource: string;
  /** The stamp of the content last read, good or refused. */
  private seen: string;
  private refusedNow: RefusedChange | null = null;
  private reading: Promise<void> | null = null;
  private readAgain = false;

  constructor(
    readonly path: string,
    private readonly opts: { nodeNetwork?: string | undefined; now?: () => Date; onChange?: (change: NodesFileChange) => void } = {},
  ) {
    this.seen = stampOf(path);
    let source: string;
    try {
      source = readFileSync(path, 'utf8');
    } catch (err) {
      throw new FleetError('nodes-invalid', `cannot read the nodes file ${path}: ${errorMessage(err)}`);
    }
    const { file, problems } = readNodesFile(source, path, this.parseOpts());
    if (problems.length)
      throw new FleetError('nodes-invalid', `${path} has ${problems.length} problem(s); run fleet inventory check: ${problems.map(problemText).join('; ')}`);
    this.served = index(file, this.now());
    this.servedSource = source;
  }

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  private parseOpts(): { nodeNetwork?: string } {
    return this.opts.nodeNetwork ? { nodeNetwork: this.opts.nodeNetwork } : {};
  }

  /** The declarations served, once any change the file shows now has been read. */
  async declarations(): Promise<Declarations> {
    if (stampOf(this.path) !== this.seen) await this.reload();
    else if (this.reading) await this.reading;
    return this.served;
  }

  /** The last change, if it was refused and the file still holds it. */
  refused(): RefusedChange | null {
    return this.refusedNow;
  }

  /** Reads the file now (SIGHUP, the watch); resolves once what it holds is served or refused. */
  reload(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.readAgain = false;
        await this.readOnce();
      } while (this.readAgain);
    })().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    // The stamp is taken before the read: a write after it moves the stamp again, and is read again.
    const stamp = stampOf(this.path);
    let source: string;
    try {
      source = await readFile(this.path, 'utf8');
    } catch (err) {
      return this.refuse(stamp, [`cannot read the nodes file ${this.path}: ${errorMessage(err)}`]);
    }
    if (source === this.servedSource) {
      this.seen = stamp;
      // Put back as it was served: the refused change is gone.
      if (this.refusedNow) this.opts.onChange?.({ outcome: 'reloaded', path: this.path, nodes: this.served.file.nodes.length });
      this.refusedNow = null;
      return;
    }
    let parsed: { file: NodesFile; problems: Problem[] };
    try {
      parsed = await readNodesFileOffThread(source, this.path, this.parseOpts());
    } catch (err) {
      return this.refuse(stamp, [errorMessage(err)]);
    }
    if (parsed.problems.length) return this.refuse(stamp, parsed.problems.map(problemText));
    this.seen = stamp;
    this.served = index(parsed.file, this.now());
    this.servedSource = source;
    this.refusedNow = null;
    this.opts.onChange?.({ outcome: 'reloaded', path: this.path, nodes: parsed.file.nodes.length });
  }

  private refuse(stamp: string, problems: string[]): void {
    this.seen = stamp;
    const change: RefusedChange = {
      outcome: 'refused',
      path: this.path,
      problems,
      kept: this.served.file.nodes.length,
      keptSince: this.served.readAt.toISOString(),
      at: this.now(),
    };
    this.refusedNow = change;
    const { at: _, ...reported } = change;
    this.opts.onChange?.(reported);
  }

  /**
   * Reads each change as it is made: the directory is watched, not the file, since editors and
   * `git checkout` replace the file by renaming another over it. A burst of events is one read.
   */
  watch(): () => void {
    const name = basename(this.path);
    let timer: NodeJS.Timeout | undefined;
    const watcher = watch(dirname(this.path), (_event, changed) => {
      if (changed !== null && changed !== name) return;
      clearTimeout(timer);
      timer = setTimeout(() => void this.reload(), 100);
    });
    // A watch that fails (the directory removed) leaves the lookups' stamp check, which still reads each change.
    watcher.on('error', () => undefined);
    return () => {
      clearTimeout(timer);
      watcher.close();
    };
  }
}
