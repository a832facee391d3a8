/**
 * The switch's LLDP frame, captured live on the boot NIC (libpcap through `cap`, promiscuous)
 * while the TPM work runs. Every operational failure resolves `{ frame: null, reason }` rather
 * than throwing: a missing frame must not stop attestation, and the verifier decides what it means.
 */
import { readdir } from 'node:fs/promises';
import { errorMessage } from '../../shared/errors.js';
import { ETHERTYPE_LLDP, LLDP_GROUP_ADDRESSES, parseLldpFrame } from '../../shared/lldp/parse.js';
import { DEFAULT_PATHS } from '../boot-facts.js';
import { loadCap, type CapModule } from './load-cap.js';

/** `reason` when `frame` is null: 'timeout', 'aborted', or a message saying what to fix. */
export interface LldpCaptureResult {
  frame: Uint8Array | null;
  reason?: string;
}

/** LLDP's ethertype, or one of its group destinations: a VLAN tag hides the ethertype from the first. */
export const LLDP_FILTER = [`ether proto 0x${ETHERTYPE_LLDP.toString(16)}`, ...[...LLDP_GROUP_ADDRESSES].map((a) => `ether dst ${a}`)].join(' or ');

/** libpcap's ring; a switch sends one LLDP frame every 30 s or so. */
const RING_BYTES = 1 << 20;
/** cap's snapshot length, so no frame arrives cut off. */
const FRAME_BYTES = 65535;

/**
 * Every Cap this process made stays referenced, never garbage collected: cap's native destructor
 * calls uv_poll_stop on a poll handle that a failed open() never initialised (node dies with
 * SIGSEGV), and a closed Cap's poll handle is never uv_close'd, so libuv keeps pointing at it.
 * The agent makes one per boot.
 */
const pinned: object[] = [];

/** The first frame on `nic` that parses as an LLDPDU within `timeoutMs`; others are skipped. */
export async function captureLldpFrame(nic: string, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<LldpCaptureResult> {
  const { signal } = opts;
  if (signal?.aborted) return { frame: null, reason: 'aborted' };
  const loaded = await loadCap();
  if ('reason' in loaded) return { frame: null, reason: loaded.reason };
  if (signal?.aborted) return { frame: null, reason: 'aborted' };

  const cap = new loaded.cap.Cap();
  pinned.push(cap);
  const buffer = Buffer.alloc(FRAME_BYTES);
  const opened = openCapture(cap, nic, buffer);
  // No close() after a failed open: cap's close() then aborts node (see `pinned`).
  if ('failure' in opened) return { frame: null, reason: await openFailure(nic, opened.failure) };
  if (opened.linkType !== 'ETHERNET') {
    cap.close();
    return { frame: null, reason: `LLDP capture on ${nic}: its link type is ${opened.linkType}, not Ethernet; capture on the boot NIC` };
  }

  return new Promise((resolve) => {
    let done = false;
    const finish = (result: LldpCaptureResult): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      // Stops libuv's poll on the pcap socket, so nothing of the capture keeps the process alive.
      cap.close();
      resolve(result);
    };
    const onAbort = (): void => finish({ frame: null, reason: 'aborted' });
    const timer = setTimeout(() => finish({ frame: null, reason: 'timeout' }), opts.timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    cap.on('packet', (nbytes, truncated) => {
      if (done || truncated) return;
      // cap reuses `buffer` for the next packet.
      const frame = new Uint8Array(buffer.subarray(0, nbytes));
      // Whatever the parser refuses is skipped: thrown here, an error would escape into cap's
      // native callback and end the agent.
      try {
        parseLldpFrame(frame);
      } catch {
        return;
      }
      finish({ frame });
    });
  });
}

type Opened = { linkType: string } | { failure: string };

function openCapture(cap: InstanceType<CapModule['Cap']>, nic: string, buffer: Buffer): Opened {
  try {
    return { linkType: cap.open(nic, LLDP_FILTER, RING_BYTES, buffer) };
  } catch (err) {
    return { failure: errorMessage(err) };
  }
}

async function openFailure(nic: string, message: string): Promise<string> {
  if (/no such device/i.test(message)) {
    const nics = await readdir(DEFAULT_PATHS.net).catch(() => []);
    const here = nics.length ? `; NICs here: ${nics.sort().join(', ')}` : '';
    return `LLDP capture: no NIC named ${nic} (libpcap: ${message})${here}`;
  }
  if (/not permitted|permission/i.test(message)) {
    return `LLDP capture on ${nic}: not permitted (libpcap: ${message}); run the agent as root or with CAP_NET_RAW (the tink-agent-autoid container is privileged)`;
  }
  return `LLDP capture on ${nic} failed (libpcap: ${message})`;
}
