/** What a boot's script saved with lib.sh's boot_facts, read back on the host. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EventLog } from '../../shared/eventlog/log.js';
import { parseEventLog } from '../../shared/eventlog/parse.js';
import type { Machine } from './machine.js';

/** Boot N's firmware event log as the guest read it, and the SHA-256 PCRs its TPM then held. */
export function bootLog(m: Machine, boot: number): { log: EventLog; pcrs: Map<number, Buffer> } {
  const log = parseEventLog(new Uint8Array(readFileSync(join(m.share, 'out', `boot-${boot}`, 'eventlog.bin'))));
  const pcrs = new Map(
    m
      .out(boot, 'pcrs.txt')!
      .trim()
      .split('\n')
      .map((l) => l.split(' '))
      .map(([i, v]) => [Number(i), Buffer.from(v!, 'hex')]),
  );
  return { log, pcrs };
}

/** The SHA-256 digests of the log's events in `pcr`, in order, as hex. */
export function sha256DigestsIn(log: EventLog, pcr: number): string[] {
  const bank = log.bankIndex('sha256');
  return Array.from({ length: log.length }, (_, i) => i)
    .filter((i) => log.pcrOf(i) === pcr)
    .map((i) => Buffer.from(log.digestOf(i, bank)!).toString('hex'));
}
