/**
 * `fleet syslog`: the HookOS syslog receiver alone, for a lab that runs fleetd without the
 * privilege of UDP 514 (`fleet serve --syslog-listen off` beside it). It writes the same journal
 * entries and audit lines fleetd's own receiver does, and, when asked, serves its counters on a
 * loopback /metrics of its own. A receiver that cannot start ends it with its reason.
 */
import Fastify from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { createAudit } from '../audit.js';
import { parseSyslogConfig } from '../config/syslog-config.js';
import { syslogUsage } from '../config/syslog-options.js';
import { listen } from '../http/server.js';
import { Parts, untilStopped } from '../parts.js';
import { JournalSocket } from './journal-socket.js';
import { startSyslogReceiver } from './receiver.js';
import { SyslogMetrics } from './syslog-metrics.js';

export async function runSyslog(
  args: string[],
  onListening: (port: number) => void = (p) => console.error(`fleet syslog: receiving on udp port ${p}`),
): Promise<number> {
  const cfg = parseSyslogConfig(args, process.env);
  if (cfg === 'help') {
    console.log(syslogUsage());
    return 0;
  }
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'fleet_syslog_process_' });
  const metrics = new SyslogMetrics(registry);
  const parts = new Parts();
  try {
    const journal = JournalSocket.open(cfg.journalSocket);
    const receiver = parts.add('syslog', await startSyslogReceiver({ listen: cfg.listen, journal, metrics, audit: createAudit() }), (r) => r.close());
    if (cfg.metricsListen) {
      const app = Fastify();
      app.get('/metrics', async (_req, reply) => reply.header('content-type', registry.contentType).send(await registry.metrics()));
      parts.add('metrics', await listen(app, cfg.metricsListen, false), () => app.close());
    }
    onListening(receiver.port);
    await untilStopped();
  } finally {
    await parts.stopAll();
  }
  return 0;
}
