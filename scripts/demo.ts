/**
 * `npm run demo`: fleet's main job on one machine, end to end, with real parts: a software TPM
 * (swtpm) provisioned like a PC's, the verifier (`fleet serve`, HTTPS on loopback with a private
 * CA) and the HookOS agent bundle (dist/agent.mjs) talking raw TPM 2.0 to it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { get as httpsGet } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parse, stringify } from 'yaml';
import { ATTEST_LINES } from '../agent/attest/lines.js';
import { SETTINGS, talosSecrets } from '../test/install/talos-fixture.js';
import { Tpm } from '../shared/tpm/client.js';
import { SocketTransport } from '../shared/tpm/transport.js';
import { buildLldpFrame } from '../test/lldp/frame.js';
import { bootSimulatedFirmware } from '../test/swtpm/firmware.js';
import { provisionTpm } from '../test/swtpm/provision.js';
import { startSwtpm, type RunningSwtpm } from '../test/swtpm/swtpm.js';
import { issued, selfSigned, tlsFiles } from '../test/tls-files.js';
import { buildAll } from './build.js';
import { demoMachine } from './demo-machine.js';

const SERIAL = 'DEMO-0001';
const PORT = 'Port 5';
/** The lab's models and classes, as its nodes file declares them. */
const CATALOGUE = {
  models: { m720q: { vendor: 'Lenovo', cpu: 'i5-9500T' } },
  classes: { worker: { payload: 'talos', installer_image: 'ghcr.io/siderolabs/installer:v1.9.5' } },
};
const MAC = '52:54:00:de:40:01';
const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);

function step(n: number, title: string, words: string): void {
  console.log(`\n${bold(`${n}. ${title}`)}\n${words.replace(/^/gm, '   ')}`);
}

function show(lines: string[], prefix = '   │ '): void {
  for (const l of lines) console.log(`${prefix}${l}`);
}

/** Runs a command without blocking this process, so the verifier's audit lines keep arriving. */
function run(cmd: string, args: string[]): Promise<{ code: number; lines: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, lines: out.trimEnd().split('\n') }));
  });
}

/** The audit lines of one attestation: the verifier writes them before it answers. */
async function takeAudit(audit: string[], count: number): Promise<string[]> {
  for (let i = 0; i < 100 && audit.length < count; i++) await new Promise((r) => setTimeout(r, 20));
  return audit.splice(0);
}

/** A free loopback port: the config URL names fleetd's port before fleetd starts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createNetServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** What Talos does at first boot: GET its talos.config URL (here trusting the demo's CA). */
function fetchConfig(url: string, caPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsGet(url, { ca: readFileSync(caPath) }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

/** A private CA and a certificate for 127.0.0.1: the agent trusts only that CA. */
function makeTls(dir: string): { ca: string; cert: string; key: string } {
  const ca = selfSigned(tlsFiles(dir, 'ca'), { subject: '/CN=fleet demo CA' });
  return { ca: ca.cert, ...issued(tlsFiles(dir, 'server'), ca, { subject: '/CN=fleetd', ips: ['127.0.0.1'] }) };
}

/** The EK hash the way an operator computes it from a receiving scan of the EK certificate. */
function opensslEkHash(certDer: string): string {
  const out = execFileSync('sh', ['-c', 'openssl x509 -inform DER -in "$1" -noout -pubkey | openssl pkey -pubin -outform DER | sha256sum', 'sh', certDer], {
    encoding: 'utf8',
  });
  return out.split(' ')[0]!;
}

async function startVerifier(args: string[], audit: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['dist/fleet.mjs', 'serve', '--syslog-listen', 'off', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  createInterface({ input: child.stdout! }).on('line', (l) => audit.push(l));
  const url = await new Promise<string>((resolve, reject) => {
    const errors: string[] = [];
    createInterface({ input: child.stderr! }).on('line', (l) => {
      const m = /listening on (\S+)/.exec(l);
      if (m) resolve(m[1]!);
      else errors.push(l);
    });
    child.once('exit', (code) => reject(new Error(`fleet serve exited ${code}: ${errors.join('\n')}`)));
  });
  return { url, child };
}

function auditSummary(line: string): string {
  const a = JSON.parse(line) as Record<string, unknown>;
  const keep = ['serial', 'node', 'outcome', 'verdict', 'issued', 'reason', 'secureBoot']
    .filter((k) => a[k] !== undefined)
    .map((k) => `${k}=${JSON.stringify(a[k])}`);
  return `${a.audit as string} ${keep.join(' ')}`;
}

async function main(): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'fleet-demo-'));
  let swtpm: RunningSwtpm | undefined;
  let verifier: ChildProcess | undefined;
  try {
    console.log(bold('fleet demo: a machine proves who it is before anything may wipe and install it'));
    await buildAll();

    step(
      1,
      'A machine with a TPM',
      "swtpm plays the machine's TPM 2.0. Like a PC's, it holds an RSA-2048 and an ECC P-256\nendorsement key (EK) with certificates from its maker (here a private CA in a temp dir).",
    );
    const tpmState = await provisionTpm(join(dir, 'machine-tpm'));
    const certs = { rsa2048: join(dir, 'ek-rsa2048.der'), eccp256: join(dir, 'ek-eccp256.der') };
    await writeFile(certs.rsa2048, tpmState.ekCertRsaDer);
    await writeFile(certs.eccp256, tpmState.ekCertEccDer);
    swtpm = await startSwtpm(tpmState.stateDir);
    const tpm = new Tpm(await SocketTransport.connect({ path: swtpm.socketPath }));
    const eventLog = await bootSimulatedFirmware(tpm);
    await tpm.close();
    const eventLogPath = join(dir, 'binary_bios_measurements');
    await writeFile(eventLogPath, eventLog);
    const bootIdPath = join(dir, 'boot_id');
    await writeFile(bootIdPath, `${randomUUID()}\n`);
    show([`serial ${SERIAL}, boot NIC ${MAC}`, `firmware booted with Secure Boot on: ${eventLog.length} bytes of TCG event log, PCRs extended`]);

    step(
      2,
      'The verifier (fleetd)',
      "It serves HTTPS on loopback with a certificate from its own CA; the agent trusts only that CA.\nIts inventory is the lab's nodes file (models, classes, nodes; checked with fleet inventory check)\nand its own SQLite state. The node is declared with its port, disk and class, but no EK of it is\napproved yet. Auto-provision is on: a planned worker that attests is installed.",
    );
    const tls = makeTls(dir);
    const nodesPath = join(dir, 'nodes.yaml');
    const stateDir = join(dir, 'state');
    const entry: Record<string, unknown> = {
      model: 'm720q',
      serial: SERIAL,
      class: 'worker',
      switch_port: PORT,
      address: '10.0.1.11/24',
      bmc_type: 'amt',
      disk: '/dev/nvme0n1',
      disk_serial: 'S4EVNF0M123456',
    };
    const writeNodes = () => writeFile(nodesPath, stringify({ ...CATALOGUE, nodes: { 'demo-node-1': entry } }));
    await writeNodes();
    show((await run(process.execPath, ['dist/fleet.mjs', 'inventory', 'check', nodesPath])).lines.map((l) => l.replace(nodesPath, 'nodes.yaml')));
    const audit: string[] = [];
    // The cluster's Talos secrets (as talosctl gen secrets makes them) and each class's inputs.
    const secretsPath = join(dir, 'talos-secrets.yaml');
    const settingsPath = join(dir, 'cluster-settings.yaml');
    const classInputs = join(dir, 'class-inputs');
    await writeFile(secretsPath, stringify(await talosSecrets(join(dir, 'talos-ca'))));
    await writeFile(settingsPath, stringify({ ...SETTINGS, classes: { worker: SETTINGS.classes.worker } }));
    show(
      (
        await run(process.execPath, ['dist/fleet.mjs', 'render-class-inputs', '--secrets', secretsPath, '--settings', settingsPath, '--out', classInputs])
      ).lines.map((l) => l.replace(dir, '$TMP')),
    );
    const port = await freePort();
    const configUrl = `https://127.0.0.1:${port}/v1/config`;
    const v = await startVerifier(
      [
        '--nodes',
        nodesPath,
        '--state',
        stateDir,
        '--auto-provision',
        '--class-inputs',
        classInputs,
        '--config-url',
        configUrl,
        '--listen',
        `127.0.0.1:${port}`,
        '--cert',
        tls.cert,
        '--key',
        tls.key,
      ],
      audit,
    );
    verifier = v.child;
    show([`fleet serve listening on ${v.url}`]);
    const lldpPath = join(dir, 'switch-lldp.frame');
    await writeFile(lldpPath, buildLldpFrame({ chassisMac: '24:5a:4c:00:00:01', portId: PORT, systemName: 'usw-rack-1' }));

    const installCode = join(dir, 'worker', 'fleet', 'install_code');
    const agent = () =>
      run(process.execPath, [
        'dist/agent.mjs',
        'attest',
        '--url',
        v.url,
        '--ca',
        tls.ca,
        '--tpm',
        `unix:${swtpm!.socketPath}`,
        '--serial',
        SERIAL,
        '--mac',
        MAC,
        '--event-log',
        eventLogPath,
        '--boot-id-file',
        bootIdPath,
        '--install-code',
        installCode,
        '--lldp-frame',
        lldpPath,
        '--tries',
        '1',
      ]);

    step(
      3,
      'First boot: the agent attests',
      'The agent creates the EKs and a fresh attestation key (AK) in the TPM and sends their public parts.\nThe verifier answers one credential per EK that only this TPM can unwrap, and a nonce. The agent\nunwraps both and sends them back with a TPM quote that signs the nonce, its report and the PCRs;\nthe verifier replays the event log against those PCRs. The TPM proved its EKs, but nobody has\napproved them for this serial, so the machine waits: nothing is written but the verdict.',
    );
    const first = await agent();
    show(first.lines);
    show((await takeAudit(audit, 1)).map(auditSummary), '   audit │ ');
    if (!first.lines.some((l) => l.startsWith(ATTEST_LINES.failed('pending-approval', '')))) throw new Error('the first attestation should wait for approval');

    step(
      4,
      "Approve the machine's EKs",
      'An operator prints the waiting claim\'s lines and compares them with independent evidence, here\nthe EK certificates read at "receiving" and hashed with openssl (docs/protocol.md shows the command).',
    );
    const approve = await run(process.execPath, ['dist/fleet.mjs', 'attest', 'approve', SERIAL, '--state', stateDir]);
    show(approve.lines);
    const lines = Object.fromEntries(approve.lines.filter((l) => l.startsWith('approved_ek_')).map((l) => l.split(': ') as [string, string]));
    for (const [kind, der] of Object.entries(certs)) {
      const scan = opensslEkHash(der);
      const claimed = lines[`approved_ek_${kind}`];
      show([`receiving scan ${kind}: ${scan} ${scan === claimed ? 'matches the claim' : 'DIFFERS: stop'}`], '   check │ ');
      if (scan !== claimed) throw new Error(`the ${kind} EK hash differs from the evidence`);
      entry[`approved_ek_${kind}`] = claimed;
    }
    await writeNodes();
    show(['nodes file: the two approved_ek_* lines added to demo-node-1'], '   edit  │ ');

    step(
      5,
      'Next boot: admitted',
      "The same exchange, and now the TPM proves every EK the entry approves, from the port its entry\ndeclares (the switch's LLDP frame). A planned worker is provisioned: the verifier answers a\none-time install code, keeps only its SHA-256, and sets desired_action. The agent writes the code\nwhere the Template's install action reads it, mode 0600.",
    );
    const second = await agent();
    show(second.lines);
    show((await takeAudit(audit, 2)).map(auditSummary), '   audit │ ');
    if (!second.lines.includes(ATTEST_LINES.passed()) || !second.lines.includes(ATTEST_LINES.codeWritten()))
      throw new Error('the second attestation should pass');
    const mode = ((await stat(installCode)).mode & 0o777).toString(8);
    const shown = await run(process.execPath, ['dist/fleet.mjs', 'inventory', 'show', 'demo-node-1', '--nodes', nodesPath, '--state', stateDir]);
    const d = JSON.parse(shown.lines.join('\n')) as {
      device: { verdict: string; mac: string; desiredAction: string };
      journal: Array<{ kind: string; message: string }>;
    };
    show(
      [`${installCode}: mode ${mode}`, `inventory: demo-node-1 verdict ${d.device.verdict}, MAC ${d.device.mac}, desired_action ${d.device.desiredAction}`],
      '   check │ ',
    );
    show(
      d.journal.map((j) => `${j.kind}: ${j.message}`),
      '   journal │ ',
    );

    step(
      6,
      'The installed node takes its config, once',
      "After wipe-disk and install (the Template's actions), the node boots Talos, which fetches\ntalos.config=<config-url>/<code>. fleetd rendered that config at admission from the class inputs and\nthe node's values, holds it in memory only, and counts it served only once the node's kernel has\nacknowledged every byte; then the device turns active. A second fetch gets nothing, and the\njournal says so.",
    );
    const code = (await readFile(installCode, 'utf8')).trim();
    const fetched = await fetchConfig(`${configUrl}/${code}`, tls.ca);
    const cfg = parse(fetched.body) as {
      machine?: { type?: string; network?: { hostname?: string; interfaces?: Array<{ addresses?: string[] }> }; install?: { disk?: string } };
    };
    show([
      `GET <config-url>/<code>: ${fetched.status}, ${fetched.body.length} bytes of Talos machine config`,
      `machine.type ${cfg.machine?.type}, hostname ${cfg.machine?.network?.hostname}, address ${cfg.machine?.network?.interfaces?.[0]?.addresses?.[0]}, install disk ${cfg.machine?.install?.disk}`,
    ]);
    await new Promise((r) => setTimeout(r, 300)); // the served-once bookkeeping follows the kernel's acknowledgement
    const again = await fetchConfig(`${configUrl}/${code}`, tls.ca);
    show([`GET it again: ${again.status}`]);
    const after = JSON.parse(
      (await run(process.execPath, ['dist/fleet.mjs', 'inventory', 'show', 'demo-node-1', '--nodes', nodesPath, '--state', stateDir])).lines.join('\n'),
    ) as {
      device: { status: string };
      journal: Array<{ kind: string; message: string }>;
    };
    show([`inventory: demo-node-1 is ${after.device.status}`], '   check │ ');
    show(
      after.journal.slice(-2).map((j) => `${j.kind}: ${j.message}`),
      '   journal │ ',
    );
    if (fetched.status !== 200 || again.status !== 404 || after.device.status !== 'active')
      throw new Error('the config should be served once, and the device turn active');
    // The fleet at a glance, as the operator reads it beside fleetd (no Tinkerbell here: no run shown).
    show((await run(process.execPath, ['dist/fleet.mjs', 'status', '--nodes', nodesPath, '--state', stateDir])).lines, '   status │ ');

    console.log(`\n${bold('Done.')} The machine proved its TPM, was admitted, received a code only it holds, and took its config once.`);
    return 0;
  } finally {
    verifier?.kill('SIGTERM');
    await swtpm?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

(process.argv.includes('--machine') ? Promise.resolve(demoMachine()) : main()).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`\ndemo failed: ${(err as Error).message}`);
    process.exit(1);
  },
);
