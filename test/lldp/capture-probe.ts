/**
 * What the network-namespace test runs inside a namespace, bundled as the agent is bundled:
 * `node [--expose-gc] probe.mjs NIC TIMEOUT_MS [ABORT_AFTER_MS]` prints one JSON line,
 * `{"frame": hex | null, "reason"?, "ms"}`. It never calls process.exit: the process ending by
 * itself shows the capture let go of the event loop. With --expose-gc it collects garbage first,
 * which would crash node if a Cap the capture made were collectable (see capture.ts).
 */
import { captureLldpFrame } from '../../agent/lldp/capture.js';
import { toHex } from '../../shared/bytes/hex.js';

const [nic = '', timeoutMs = '0', abortAfterMs] = process.argv.slice(2);
const controller = new AbortController();
if (abortAfterMs !== undefined) setTimeout(() => controller.abort(), Number(abortAfterMs));
const started = performance.now();
const result = await captureLldpFrame(nic, { timeoutMs: Number(timeoutMs), signal: controller.signal });
const ms = Math.round(performance.now() - started);
(globalThis as { gc?: () => void }).gc?.();
const frame = result.frame ? toHex(result.frame) : null;
console.log(JSON.stringify({ frame, ...(result.reason !== undefined ? { reason: result.reason } : {}), ms }));
