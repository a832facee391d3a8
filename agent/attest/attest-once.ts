import { createHash } from 'node:crypto';
import { toHex } from '../../shared/bytes/hex.js';
import type { Tpm } from '../../shared/tpm/client.js';
import { reportBytes } from '../../shared/wire/report.js';
import { FinishResponse, PATHS, StartAnswer, type FinishRequest, type Report, type StartRequest, type StartResponse } from '../../shared/wire/schemas.js';
import { AttestationKeys } from '../tpm/attestation-keys.js';
import { postJson, type ClientOptions } from './verifier-client.js';

/** What the agent knows of this boot before it attests. */
export interface BootFacts {
  serial: string;
  mac: string;
  bootId: string;
  /** The SMBIOS system UUID, or null when the firmware gives none. */
  uuid: string | null;
  /** binary_bios_measurements, or null when the machine has none. */
  eventLog: Uint8Array | null;
  /** The switch's LLDP frame, or null when none arrived. */
  lldp: Uint8Array | null;
}

/**
 * The facts while the LLDP capture may still run: the frame is needed only for the report, after
 * the keys and the first round trip, so the capture overlaps the TPM's work.
 */
export type PendingBootFacts = Omit<BootFacts, 'lldp'> & { lldp: BootFacts['lldp'] | Promise<BootFacts['lldp']> };

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const unb64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));

/** `start`: the EKs the TPM has (with their certificates) and this boot's AK. */
export function startRequest(keys: AttestationKeys, boot: PendingBootFacts): StartRequest {
  return {
    serial: boot.serial,
    mac: boot.mac,
    eks: keys.eks.map((ek) => ({ kind: ek.kind, public: b64(ek.area), certificate: ek.certificate ? b64(ek.certificate) : null })),
    ak: b64(keys.ak.area),
  };
}

export function buildReport(session: string, boot: BootFacts): Report {
  return {
    version: 1,
    session,
    serial: boot.serial,
    mac: boot.mac,
    lldp: boot.lldp ? toHex(boot.lldp) : null,
    eventLogSha256: boot.eventLog ? createHash('sha256').update(boot.eventLog).digest('hex') : null,
    bootId: boot.bootId,
    uuid: boot.uuid,
  };
}

/**
 * `finish`: ActivateCredential for each challenge, then one quote over the SHA-256 PCRs with
 * qualifyingData = SHA-256(nonce ‖ canonical report bytes), which binds freshness, the report and
 * the PCR state into the one signature.
 */
export async function finishRequest(keys: AttestationKeys, start: StartResponse, report: Report, eventLog: Uint8Array | null): Promise<FinishRequest> {
  const secrets: FinishRequest['secrets'] = [];
  for (const c of start.challenges) {
    secrets.push({ kind: c.kind, secret: b64(await keys.activate(c.kind, unb64(c.credentialBlob), unb64(c.secret))) });
  }
  const rb = reportBytes(report);
  const qualifyingData = createHash('sha256').update(unb64(start.nonce)).update(rb).digest();
  const { quote, pcrs } = await keys.quote(qualifyingData);
  return {
    session: start.session,
    secrets,
    report: b64(rb),
    quote: { attest: b64(quote.attest), signature: b64(quote.signature) },
    pcrs: Object.fromEntries([...pcrs].map(([i, v]) => [String(i), toHex(v)])),
    eventLog: eventLog ? b64(eventLog) : null,
  };
}

/**
 * One attestation, both round trips. Resolves with the verifier's verdict; rejects when the TPM
 * or the network fails. Every TPM object it creates is flushed, also on failure.
 */
export async function attestOnce(tpm: Tpm, client: ClientOptions, boot: PendingBootFacts): Promise<FinishResponse> {
  const keys = await AttestationKeys.open(tpm);
  try {
    const start = await postJson(client, PATHS.start, startRequest(keys, boot), StartAnswer);
    if ('verdict' in start) return start;
    const finish = await finishRequest(keys, start, buildReport(start.session, { ...boot, lldp: await boot.lldp }), boot.eventLog);
    return await postJson(client, PATHS.finish, finish, FinishResponse);
  } finally {
    await keys.close();
  }
}
