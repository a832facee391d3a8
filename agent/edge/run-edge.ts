import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../../shared/errors.js';
import { parseLldpFrame } from '../../shared/lldp/parse.js';
import { Tpm } from '../../shared/tpm/client.js';
import { openTransport } from '../../shared/tpm/transport.js';
import { ATTEST_LINES } from '../attest/lines.js';
import { runAttestation, type AttestOutcome } from '../attest/run.js';
import { parseCmdline } from '../boot/cmdline.js';
import { BOOT_FACT_LINES, CMDLINE_LINES, NIC_LINES, NO_ATTEMPT, SECURITYFS_LINES } from '../boot/lines.js';
import { pickBootNic } from '../boot/nic.js';
import { ensureSecurityfs, SECURITYFS } from '../boot/securityfs.js';
import { DEFAULT_PATHS, readBootId, readEventLog, readSerial, readSystemUuid } from '../boot-facts.js';
import { CLOCK_LINES } from '../clock/lines.js';
import { setClock } from '../clock/set-clock.js';
import { INSTALL_CODE_PATH, removeInstallCode } from '../install-code.js';
import type { LldpCaptureResult } from '../lldp/capture.js';
import { LLDP_LINES, LLDP_WHY } from '../lldp/lines.js';

/** Everything the edge runtime touches, so a test can give it a fake machine. */
export interface EdgeEnv {
  /** Prefix of /proc, /sys and /worker: '' on a machine, a temp dir in tests. */
  root: string;
  tpm: string;
  say: (line: string) => void;
  /** How long to wait for the switch's LLDP frame. */
  lldpWindowMs: number;
  tries: number;
  retryDelayMs: number;
  setClock?: (ms: number) => Promise<void>;
  mountSecurityfs?: (target: string) => Promise<void>;
  capture: (nic: string, opts: { timeoutMs: number; signal?: AbortSignal }) => Promise<LldpCaptureResult>;
}

export type EdgeOutcome = AttestOutcome | { kind: 'no-attempt'; reason: string };

/** The console's line for a frame the capture already parsed once. */
function frameLine(frame: Uint8Array): string {
  try {
    const f = parseLldpFrame(frame);
    return LLDP_LINES.frame(f.systemName ?? f.chassisId.value, f.portId.value, f.portDescription ?? '');
  } catch (err) {
    return LLDP_LINES.unparsable(errorMessage(err));
  }
}

/**
 * One HookOS boot, as hook-bootkit starts the tink-agent-autoid entrypoint: read the kernel command
 * line, set the clock, mount securityfs, find the boot NIC, capture the switch's LLDP frame while
 * the TPM works, attest (5 tries, 30 s apart), write the install code. Every step says on the
 * console what it did or why it could not; nothing here throws for the machine's state.
 */
export async function runEdge(env: EdgeEnv): Promise<EdgeOutcome> {
  const { say } = env;
  const at = (p: string) => join(env.root || '/', p);
  // Whatever happens below, no code an earlier boot left may outlive this one's attestation.
  await removeInstallCode(at(INSTALL_CODE_PATH));
  const cmdline = await readFile(at('/proc/cmdline'), 'utf8').catch((err: unknown) => {
    say(CMDLINE_LINES.unreadable(errorMessage(err)));
    return '';
  });
  const { params, problems } = parseCmdline(cmdline);
  for (const p of problems) say(p);

  // The TPM's key work needs no clock, only TLS to the verifier does: SNTP runs alongside it, and
  // the first request waits for it.
  const clock = params.ntpServer
    ? setClock(params.ntpServer, env.setClock ? { set: env.setClock } : {}).then(say, (err: unknown) => say(CLOCK_LINES.failed(errorMessage(err))))
    : Promise.resolve();

  try {
    if (
      (await ensureSecurityfs({ mountsPath: at('/proc/mounts'), target: at(SECURITYFS), ...(env.mountSecurityfs ? { mount: env.mountSecurityfs } : {}) })) ===
      'mounted'
    ) {
      say(SECURITYFS_LINES.mounted(SECURITYFS));
    }
  } catch (err) {
    say(SECURITYFS_LINES.failed(errorMessage(err)));
  }

  // The clock's line, whenever SNTP answers, comes before the verdict.
  const noAttempt = async (reason: string): Promise<EdgeOutcome> => {
    await clock;
    say(ATTEST_LINES.noVerdict(reason));
    return { kind: 'no-attempt', reason };
  };
  if (!params.attestUrl) return noAttempt(NO_ATTEMPT.noAttestUrl());
  let nic;
  try {
    nic = await pickBootNic(params, at(DEFAULT_PATHS.net), at('/proc/net/route'));
  } catch (err) {
    return noAttempt(errorMessage(err));
  }
  say(NIC_LINES.picked(nic.name, nic.mac, nic.by));

  // The switch sends a frame about every 30 s: listen while the TPM makes its keys. The capture
  // starts once the first TPM command is out, so loading libpcap does not delay the TPM's work.
  const capture = new AbortController();
  let startCapture = (): void => undefined;
  const lldp = new Promise<void>((resolve) => (startCapture = resolve))
    .then(async () => {
      const r = await env.capture(nic.name, { timeoutMs: env.lldpWindowMs, signal: capture.signal });
      if (r.frame) say(frameLine(r.frame));
      else if (r.reason !== 'aborted')
        say(LLDP_LINES.none(nic.name, r.reason === 'timeout' ? LLDP_WHY.timeout(String(Math.round(env.lldpWindowMs / 1000))) : String(r.reason)));
      return r.frame;
    })
    .catch((err: unknown) => {
      // A capture that fails outright costs the switch port, never the attestation.
      say(LLDP_LINES.none(nic.name, errorMessage(err)));
      return null;
    });

  let tpm: Tpm | undefined;
  try {
    const [serial, uuid, bootId, eventLog] = await Promise.all([
      readSerial(at(DEFAULT_PATHS.serial)),
      readSystemUuid(at(DEFAULT_PATHS.uuid)),
      readBootId(at(DEFAULT_PATHS.bootId)),
      readEventLog(at(DEFAULT_PATHS.eventLog)),
    ]);
    if (!eventLog) say(BOOT_FACT_LINES.noEventLog(DEFAULT_PATHS.eventLog));
    const transport = await openTransport(env.tpm);
    tpm = new Tpm({
      transmit: (command) => {
        const answer = transport.transmit(command);
        startCapture();
        return answer;
      },
      close: () => transport.close(),
    });
    return await runAttestation({
      tpm,
      client: { baseUrl: params.attestUrl.href.replace(/\/$/, ''), ready: clock },
      boot: { serial, uuid, mac: nic.mac, bootId, eventLog, lldp },
      installCodePath: at(INSTALL_CODE_PATH),
      say,
      tries: env.tries,
      retryDelayMs: env.retryDelayMs,
    });
  } catch (err) {
    return await noAttempt(errorMessage(err));
  } finally {
    await clock;
    capture.abort();
    startCapture();
    await lldp;
    await tpm?.close().catch(() => undefined);
  }
}
