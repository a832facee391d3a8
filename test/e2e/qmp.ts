/**
 * QEMU's machine protocol (QMP) on a boot's socket: what the BMC double powers a machine off with,
 * and how the harness hears why a machine stopped (QEMU runs with -no-reboot, so a guest's reset
 * ends the process too: only the SHUTDOWN event's reason tells a reboot from a power-off).
 */
import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { waitUntil } from '../syslog/wait.js';

/** SHUTDOWN's reasons (qapi/run-state.json) the harness acts on; others are passed through. */
export type StopReason = 'guest-shutdown' | 'guest-reset' | 'host-qmp-quit' | 'guest-panic' | (string & {});

export class Qmp {
  /** The reason of the first SHUTDOWN event, once QEMU sent one. */
  stopReason: StopReason | null = null;
  private readonly replies: Array<(r: Record<string, unknown>) => void> = [];

  private constructor(private readonly socket: Socket) {
    // readline passes its input's errors on as its own: QEMU resetting the socket as it exits.
    createInterface({ input: socket })
      .on('error', () => undefined)
      .on('line', (line) => {
        let msg: Record<string, unknown>;
        try {
          msg = JSON.parse(line) as Record<string, unknown>;
        } catch {
          return;
        }
        if (msg.event === 'SHUTDOWN') this.stopReason ??= String((msg.data as { reason?: string } | undefined)?.reason ?? 'unknown');
        else if ('return' in msg || 'error' in msg) this.replies.shift()?.(msg);
      });
    // A QEMU gone answers nothing more: whoever waits for a reply stops waiting.
    socket.on('close', () => {
      for (const r of this.replies.splice(0)) r({});
    });
  }

  static async connect(path: string, alive: () => boolean): Promise<Qmp> {
    await waitUntil(
      () => existsSync(path) || !alive(),
      30_000,
      () => `QEMU made no QMP socket ${path}`,
    );
    const socket = connect(path);
    socket.on('error', () => undefined); // QEMU resetting the socket as it exits, or before we connected
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('close', () => reject(new Error(`QMP socket ${path} closed`))));
    const qmp = new Qmp(socket);
    await qmp.execute('qmp_capabilities');
    return qmp;
  }

  execute(command: string): Promise<Record<string, unknown>> {
    if (this.socket.destroyed) return Promise.resolve({});
    return new Promise((resolve) => {
      this.replies.push(resolve);
      this.socket.write(`${JSON.stringify({ execute: command })}\n`);
    });
  }

  close(): void {
    this.socket.destroy();
  }
}
