/**
 * Loads the `cap` package (libpcap) only when a capture starts, so the agent runs, and attests
 * without an LLDP frame, on a machine without libpcap or without cap.node beside the bundle.
 */
import { errorMessage } from '../../shared/errors.js';

export type CapModule = typeof import('cap')['default'];

export type CapLoad = { cap: CapModule } | { reason: string };

let loading: Promise<CapLoad> | undefined;

export function loadCap(): Promise<CapLoad> {
  // A failed load is remembered too: the same require fails the same way until a restart.
  loading ??= import('cap').then(
    (m) => ({ cap: m.default }),
    (err: unknown) => ({ reason: loadFailure(err) }),
  );
  return loading;
}

function loadFailure(err: unknown): string {
  const message = errorMessage(err).split('\n')[0]!;
  if (/libpcap\.so/.test(message)) return `LLDP capture unavailable: libpcap cannot be loaded (${message}); install libpcap0.8`;
  if (/cap\.node/.test(message)) {
    return `LLDP capture unavailable: cap.node cannot be loaded (${message}); the agent bundle needs cap.node beside agent.mjs`;
  }
  return `LLDP capture unavailable: the cap package cannot be loaded (${message})`;
}
