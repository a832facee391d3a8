import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readAttestedMarker } from '../../shared/worker/marker.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { buildReport, finishRequest, startRequest } from '../../agent/attest/attest-once.js';
import { runAttestation } from '../../agent/attest/run.js';
import { postJson } from '../../agent/attest/verifier-client.js';
import { AttestationKeys } from '../../agent/tpm/attestation-keys.js';
import { ByteWriter } from '../../shared/bytes/writer.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { TPM_ALG, TPM_CC } from '../../shared/tpm/constants.js';
import { marshalPublic } from '../../shared/tpm/public.js';
import { TpmError } from '../../shared/tpm/rc.js';
import { akTemplate } from '../../shared/tpm/templates.js';
import { quote } from '../../shared/tpm/commands/quote.js';
import { reportBytes } from '../../shared/wire/report.js';
import { FinishResponse, PATHS, StartAnswer, type FinishRequest, type StartResponse } from '../../shared/wire/schemas.js';
import { installCodeHash } from '../../verifier/install/code.js';
import { withoutEcc } from '../swtpm/ecc-less-tpm.js';
import { goldenTpm } from '../swtpm/provision.js';
import type { Device } from '../../verifier/inventory/device.js';
import { RIG_PORT, startRig, type Rig } from '../swtpm/rig.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function hashesOf(machine: 'a' | 'b') {
  const g = await goldenTpm(machine);
  return { rsa2048: ekHashOfCertificate(g.ekCertRsaDer), eccp256: ekHashOfCertificate(g.ekCertEccDer) };
}

async function node(r: Rig, fields: Record<string, unknown>) {
  return r.declare(fields);
}

async function attest(r: Rig) {
  const lines: string[] = [];
  const outcome = await runAttestation({
    tpm: r.tpm,
    client: { baseUrl: r.url },
    boot: r.boot,
    installCodePath: r.installCodePath,
    say: (l) => lines.push(l),
    tries: 1,
  });
  return { outcome, lines };
}

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

/** The attestation wrote nothing: no verdict, MAC, facts, journal or code; the refusal lives in the audit line only. */
async function expectNothingWritten(r: Rig) {
  expect(r.inventory.record('node-1') ?? { verdict: null, mac: null, attested: null }).toMatchObject({ verdict: null, mac: null, attested: null });
  const device = await r.inventory.deviceByName('node-1');
  if (device) expect(await r.inventory.journalOf(device)).toEqual([]);
  expect(r.store.installCode('node-1')).toBeNull();
}

/** Nothing but the verdict reached the device: no MAC, no attested facts, no journal, no install code. */
async function expectOnlyVerdict(r: Rig, verdict: string) {
  const d = r.inventory.record('node-1');
  expect(d?.verdict).toBe(verdict);
  expect(d?.mac).toBeNull();
  expect(d?.attested).toBeNull();
  expect(await r.inventory.journalOf((await r.inventory.deviceByName('node-1'))!)).toEqual([]);
  expect(r.store.installCode('node-1')).toBeNull();
}

/** node-1's provision is under way (fleetd started its Workflow). */
async function wantProvision(r: Rig, _device: Device) {
  r.runUnderWay('provision');
}

describe('admission on a real TPM (swtpm)', () => {
  it('a serial no entry names waits for approval, and the claim gives the binding lines', async () => {
    rig = await startRig();
    const { outcome, lines } = await attest(rig);
    expect(outcome).toEqual({ kind: 'failed', verdict: 'pending-approval' });
    expect(lines).toEqual([ATTEST_LINES.failed('pending-approval', 'no EK of this machine is approved yet; approve its EKs')]);
    expect(rig.audits[0]).toMatchObject({ verdict: 'pending-approval', reason: 'no node entry names the serial SN-TEST-0001' });
    const claim = rig.store.claim(rig.boot.serial);
    const h = await hashesOf('a');
    const g = await goldenTpm('a');
    expect(claim).toMatchObject({ serial: rig.boot.serial, mac: rig.boot.mac, switchPort: RIG_PORT });
    // The certificates as the NV indexes held them: swtpm's hold the DER alone.
    expect(claim?.eks).toEqual([
      { kind: 'rsa2048', hash: h.rsa2048, certificate: { der: g.ekCertRsaDer.toString('base64') } },
      { kind: 'eccp256', hash: h.eccp256, certificate: { der: g.ekCertEccDer.toString('base64') } },
    ]);
    expect(await exists(rig.installCodePath)).toBe(false);
  });

  it('an entry that approves no EK waits for approval too', async () => {
    rig = await startRig();
    await wantProvision(rig, await node(rig, {}));
    const { outcome } = await attest(rig);
    expect(outcome).toEqual({ kind: 'failed', verdict: 'pending-approval' });
    const d = rig.inventory.record('node-1');
    expect(d).toMatchObject({ verdict: 'pending-approval', mac: null, attested: null });
    expect(rig.store.claim(rig.boot.serial)).not.toBeNull();
  });

  it.each([
    ['RSA only', ['rsa2048']],
    ['ECC only', ['eccp256']],
    ['both', ['rsa2048', 'eccp256']],
  ] as const)('admits a TPM that proves every approved EK (%s)', async (_name, kinds) => {
    rig = await startRig();
    const h = await hashesOf('a');
    await node(rig, Object.fromEntries(kinds.map((k) => [`approved_ek_${k}`, h[k]])));
    const { outcome, lines } = await attest(rig);
    expect(lines).toEqual([ATTEST_LINES.passed()]);
    expect(outcome).toEqual({ kind: 'passed', installCode: false });
    const d = rig.inventory.record('node-1');
    expect(d?.verdict).toBe('attested');
    expect(d?.mac).toBe(rig.boot.mac);
    expect(d?.attested).toMatchObject({
      eks: Object.fromEntries(kinds.map((k) => [k, h[k]])),
      secureBoot: true,
      switchPort: RIG_PORT,
      bootId: rig.boot.bootId,
    });
    expect(rig.store.installCode('node-1')).toBeNull();
    expect(rig.audits.find((a) => a.audit === 'attest.install')).toMatchObject({ issued: false, reason: 'no provision: auto-provision is off' });
    expect(await exists(rig.installCodePath)).toBe(false);
    const verdicts = rig.audits.filter((a) => a.audit === 'attest.verdict');
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ verdict: 'attested', node: 'node-1', eks: h, switchPort: RIG_PORT, request: expect.any(String) });
    const journal = await rig.inventory.journalOf((await rig.inventory.deviceByName('node-1'))!);
    expect(journal).toEqual([expect.objectContaining({ kind: 'success', message: expect.stringMatching(/^node-1 attested from HookOS/) })]);
  });

  it('answers an install code when a provision waits: written 0600, only its hash kept, never logged', async () => {
    rig = await startRig();
    const h = await hashesOf('a');
    await wantProvision(rig, await node(rig, { approved_ek_rsa2048: h.rsa2048, approved_ek_eccp256: h.eccp256 }));
    const { lines } = await attest(rig);
    expect(lines).toEqual([ATTEST_LINES.passed(), ATTEST_LINES.codeWritten()]);
    const code = await readFile(rig.installCodePath, 'utf8');
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await stat(rig.installCodePath)).mode & 0o777).toBe(0o600);
    expect(await readAttestedMarker(dirname(rig.installCodePath))).toEqual({ bootId: rig.boot.bootId, at: expect.any(String) });
    expect(rig.store.installCode('node-1')?.sha256).toBe(installCodeHash(code));
    rig.db.pragma('wal_checkpoint(TRUNCATE)');
    for (const f of await readdir(rig.stateDir)) expect((await readFile(join(rig.stateDir, f))).includes(code)).toBe(false);
    expect(JSON.stringify(rig.audits)).not.toContain(code);
    expect(rig.audits.find((a) => a.audit === 'attest.install')).toMatchObject({ node: 'node-1', issued: true });
  });

  it("refuses another TPM's EK (ek-hash-mismatch) and names the refused hash in the audit line", async () => {
    rig = await startRig({ machine: 'a' });
    const other = await hashesOf('b');
    const mine = await hashesOf('a');
    await wantProvision(rig, await node(rig, { approved_ek_rsa2048: other.rsa2048, approved_ek_eccp256: other.eccp256 }));
    const { outcome } = await attest(rig);
    expect(outcome).toEqual({ kind: 'failed', verdict: 'ek-hash-mismatch' });
    await expectNothingWritten(rig);
    expect(rig.audits.find((a) => a.audit === 'attest.verdict')).toMatchObject({
      verdict: 'ek-hash-mismatch',
      refused: { kind: 'rsa2048', hash: mine.rsa2048, approved: other.rsa2048 },
    });
    expect(await exists(rig.installCodePath)).toBe(false);
    // Counted for the node whose serial it claimed, as the dashboard's refusals panel reads it.
    expect(await rig.install.metrics.registry.metrics()).toContain('fleet_attest_verdicts_total{verdict="ek-hash-mismatch",node="node-1"} 1');
  });

  it('refuses a TPM that lacks an approved EK (ek-missing)', async () => {
    rig = await startRig({ wrap: withoutEcc });
    const h = await hashesOf('a');
    await wantProvision(rig, await node(rig, { approved_ek_rsa2048: h.rsa2048, approved_ek_eccp256: h.eccp256 }));
    const { outcome, lines } = await attest(rig);
    expect(outcome).toEqual({ kind: 'failed', verdict: 'ek-missing' });
    expect(lines[0]).toBe(ATTEST_LINES.failed('ek-missing', 'this TPM proved no EK of a kind the entry approves'));
    expect(rig.audits[0]).toMatchObject({ verdict: 'ek-missing', reason: "the TPM proved no eccp256 EK, which node-1's entry approves" });
    await expectNothingWritten(rig);
  });

  it('the same TPM without ECC still passes when only its RSA EK is approved', async () => {
    rig = await startRig({ wrap: withoutEcc });
    const h = await hashesOf('a');
    await node(rig, { approved_ek_rsa2048: h.rsa2048 });
    expect((await attest(rig)).outcome).toEqual({ kind: 'passed', installCode: false });
  });

  it('admits with an RSA-2048 AK (RSASSA) as well as the default ECC P-256 AK', async () => {
    rig = await startRig();
    const h = await hashesOf('a');
    await node(rig, { approved_ek_rsa2048: h.rsa2048, approved_ek_eccp256: h.eccp256 });
    const keys = await AttestationKeys.open(rig.tpm, { akKind: 'rsa' });
    try {
      expect(keys.ak.pub.type).toBe('rsa');
      const start = await postJson({ baseUrl: rig.url }, PATHS.start, startRequest(keys, rig.boot), StartAnswer);
      if ('verdict' in start) throw new Error(start.message);
      const body = await finishRequest(keys, start, buildReport(start.session, rig.boot), rig.boot.eventLog);
      expect((await postJson({ baseUrl: rig.url }, PATHS.finish, body, FinishResponse)).verdict).toBe('attested');
    } finally {
      await keys.close();
    }
  });

  it('uses the persisted EKs of a TPM that has them, without TPM2_CreatePrimary', async () => {
    const commands: number[] = [];
    rig = await startRig({
      persistEks: true,
      wrap: (t) => ({ transmit: (c) => (commands.push(Buffer.from(c).readUInt32BE(6)), t.transmit(c)), close: () => t.close() }),
    });
    const g = await goldenTpm('a', { persistEks: true });
    await node(rig, { approved_ek_rsa2048: ekHashOfCertificate(g.ekCertRsaDer), approved_ek_eccp256: ekHashOfCertificate(g.ekCertEccDer) });
    commands.length = 0;
    expect((await attest(rig)).outcome).toEqual({ kind: 'passed', installCode: false });
    expect(commands).not.toContain(TPM_CC.CreatePrimary);
    expect(commands).toContain(TPM_CC.ReadPublic);
  });

  it('removes an install code an earlier boot left when this attestation fails', async () => {
    rig = await startRig();
    const h = await hashesOf('a');
    await wantProvision(rig, await node(rig, { approved_ek_rsa2048: h.rsa2048 }));
    await attest(rig);
    expect(await exists(rig.installCodePath)).toBe(true);
    await node(rig, { approved_ek_rsa2048: (await hashesOf('b')).rsa2048 });
    expect((await attest(rig)).outcome).toEqual({ kind: 'failed', verdict: 'ek-hash-mismatch' });
    expect(await exists(rig.installCodePath)).toBe(false);
    expect(await readAttestedMarker(dirname(rig.installCodePath))).toBeNull();
  });
});

describe('protocol refusals (before the TPM proves its EKs nothing is written; after, only the verdict)', () => {
  async function begin(opts: Parameters<typeof startRig>[0] = {}) {
    rig = await startRig(opts);
    const h = await hashesOf('a');
    await wantProvision(rig, await node(rig, { approved_ek_rsa2048: h.rsa2048, approved_ek_eccp256: h.eccp256 }));
    const keys = await AttestationKeys.open(rig.tpm);
    const start = await postJson({ baseUrl: rig.url }, PATHS.start, startRequest(keys, rig.boot), StartAnswer);
    if ('verdict' in start) throw new Error(`start refused: ${start.message}`);
    return { r: rig, keys, start };
  }
  const finish = (r: Rig, body: FinishRequest) => postJson({ baseUrl: r.url }, PATHS.finish, body, FinishResponse);
  const honest = (keys: AttestationKeys, start: StartResponse, r: Rig) => finishRequest(keys, start, buildReport(start.session, r.boot), r.boot.eventLog);

  it('a replayed finish is refused; the first one stands', async () => {
    const { r, keys, start } = await begin();
    const body = await honest(keys, start, r);
    await keys.close();
    expect((await finish(r, body)).verdict).toBe('attested');
    const again = await finish(r, body);
    expect(again).toMatchObject({ verdict: 'session-replayed' });
    expect(again.installCode).toBeUndefined();
    expect(r.audits.filter((a) => a.audit === 'attest.install')).toHaveLength(1);
  });

  it('a stale session is refused', async () => {
    const { r, keys, start } = await begin({ sessionTtlMs: 300 });
    const body = await honest(keys, start, r);
    await keys.close();
    await new Promise((res) => setTimeout(res, 400));
    expect((await finish(r, body)).verdict).toBe('session-expired');
    await expectNothingWritten(r);
  });

  it('an unknown session is refused', async () => {
    const { r, keys, start } = await begin();
    const body = await honest(keys, start, r);
    await keys.close();
    expect((await finish(r, { ...body, session: 'A'.repeat(24) })).verdict).toBe('session-unknown');
  });

  it('a credential made for another AK cannot be activated, and a quote by that key is refused', async () => {
    rig = await startRig();
    const r = rig;
    const h = await hashesOf('a');
    await wantProvision(r, await node(r, { approved_ek_rsa2048: h.rsa2048, approved_ek_eccp256: h.eccp256 }));
    const keys = await AttestationKeys.open(r.tpm);
    // The attacker claims a software key dressed as a restricted AK: the verifier binds the credentials to its Name.
    const soft = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = soft.publicKey.export({ format: 'jwk' });
    const fake = { ...akTemplate('ecc'), x: Buffer.from(jwk.x!, 'base64url'), y: Buffer.from(jwk.y!, 'base64url') };
    const req = { ...startRequest(keys, r.boot), ak: Buffer.from(marshalPublic(fake as never)).toString('base64') };
    const start = await postJson({ baseUrl: r.url }, PATHS.start, req, StartAnswer);
    if ('verdict' in start) throw new Error('start refused');
    // The TPM refuses: the loaded AK's Name is not the Name the credential is bound to.
    const c = start.challenges[0]!;
    const err = await keys.activate(c.kind, Buffer.from(c.credentialBlob, 'base64'), Buffer.from(c.secret, 'base64')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TpmError);
    expect((err as TpmError).is('INTEGRITY')).toBe(true);
    // A quote the software key signs perfectly still fails: no secret was activated.
    const report = buildReport(start.session, r.boot);
    const rb = reportBytes(report);
    const extra = createHash('sha256').update(Buffer.from(start.nonce, 'base64')).update(rb).digest();
    const { quote, pcrs } = await keys.quote(extra);
    await keys.close();
    const sig = sign('sha256', quote.attest, { key: soft.privateKey, dsaEncoding: 'ieee-p1363' });
    const tpmtSig = new ByteWriter().u16(TPM_ALG.ECDSA).u16(TPM_ALG.SHA256).tpm2b(sig.subarray(0, 32)).tpm2b(sig.subarray(32)).finish();
    const forged: FinishRequest = {
      session: start.session,
      secrets: start.challenges.map((ch) => ({ kind: ch.kind, secret: Buffer.alloc(32).toString('base64') })),
      report: Buffer.from(rb).toString('base64'),
      quote: { attest: Buffer.from(quote.attest).toString('base64'), signature: Buffer.from(tpmtSig).toString('base64') },
      pcrs: Object.fromEntries([...pcrs].map(([i, v]) => [String(i), Buffer.from(v).toString('hex')])),
      eventLog: Buffer.from(r.boot.eventLog!).toString('base64'),
    };
    expect((await finish(r, forged)).verdict).toBe('credential-mismatch');
    await expectNothingWritten(r);
  });

  it('a report changed after quoting is refused (quote-stale)', async () => {
    const { r, keys, start } = await begin();
    const body = await honest(keys, start, r);
    await keys.close();
    const changed = reportBytes({ ...buildReport(start.session, r.boot), serial: 'SN-OTHER' });
    expect((await finish(r, { ...body, report: Buffer.from(changed).toString('base64') })).verdict).toBe('quote-stale');
    await expectOnlyVerdict(r, 'quote-stale');
  });

  it('a report in non-canonical form is refused even when quoted (report-invalid)', async () => {
    const { r, keys, start } = await begin();
    const report = buildReport(start.session, r.boot);
    const loose = Buffer.from(JSON.stringify(report, null, 1));
    const extra = createHash('sha256').update(Buffer.from(start.nonce, 'base64')).update(loose).digest();
    const body = await honest(keys, start, r);
    const { quote } = await keys.quote(extra);
    await keys.close();
    const res = await finish(r, {
      ...body,
      report: loose.toString('base64'),
      quote: { attest: Buffer.from(quote.attest).toString('base64'), signature: Buffer.from(quote.signature).toString('base64') },
    });
    expect(res.verdict).toBe('report-invalid');
  });

  it.each([
    ['attest', 'quote-invalid'],
    ['signature', 'quote-invalid'],
  ] as const)('a tampered quote %s is refused', async (part, verdict) => {
    const { r, keys, start } = await begin();
    const body = await honest(keys, start, r);
    await keys.close();
    const bytes = Buffer.from(body.quote[part], 'base64');
    bytes[bytes.length - 3]! ^= 0x01;
    expect((await finish(r, { ...body, quote: { ...body.quote, [part]: bytes.toString('base64') } })).verdict).toBe(verdict);
    await expectOnlyVerdict(r, verdict);
  });

  it('tampered PCR values are refused (pcr-mismatch)', async () => {
    const { r, keys, start } = await begin();
    const body = await honest(keys, start, r);
    await keys.close();
    expect((await finish(r, { ...body, pcrs: { ...body.pcrs, '4': 'ab'.repeat(32) } })).verdict).toBe('pcr-mismatch');
    await expectOnlyVerdict(r, 'pcr-mismatch');
  });

  it('an event log other than the reported one is refused (eventlog-mismatch)', async () => {
    const { r, keys, start } = await begin();
    const body = await honest(keys, start, r);
    await keys.close();
    const log = Buffer.from(r.boot.eventLog!);
    log[log.length - 1]! ^= 0x01;
    expect((await finish(r, { ...body, eventLog: log.toString('base64') })).verdict).toBe('eventlog-mismatch');
    await expectOnlyVerdict(r, 'eventlog-mismatch');
  });

  it('a doctored event log that the agent reports and quotes honestly does not replay (eventlog-mismatch)', async () => {
    const { r, keys, start } = await begin();
    // Change the first byte of the last event's SHA-256 digest: the log parses, but no longer replays.
    const log = Buffer.from(r.boot.eventLog!);
    const { parseEventLog } = await import('../../shared/eventlog/parse.js');
    const parsed = parseEventLog(log);
    const last = parsed.length - 1;
    const digest = parsed.digestOf(last, parsed.bankIndex('sha256'))!;
    log[digest.byteOffset - log.byteOffset]! ^= 0xff;
    const body = await finishRequest(keys, start, buildReport(start.session, { ...r.boot, eventLog: log }), log);
    await keys.close();
    const res = await finish(r, body);
    expect(res.verdict).toBe('eventlog-mismatch');
    expect(res.message).toMatch(new RegExp(`PCR ${parsed.pcrOf(last)}`));
    await expectOnlyVerdict(r, 'eventlog-mismatch');
  });

  it('a quote of fewer than all 24 PCRs is refused, however well it verifies (pcr-mismatch)', async () => {
    const { r, keys, start } = await begin();
    const body = await honest(keys, start, r);
    const extra = createHash('sha256').update(Buffer.from(start.nonce, 'base64')).update(Buffer.from(body.report, 'base64')).digest();
    const only23 = await quote(r.tpm, keys.ak.handle, extra, [{ hashAlg: TPM_ALG.SHA256, pcrs: [23] }]);
    await keys.close();
    const res = await finish(r, {
      ...body,
      quote: { attest: Buffer.from(only23.attest).toString('base64'), signature: Buffer.from(only23.signature).toString('base64') },
      pcrs: { '23': body.pcrs['23']! },
    });
    expect(res).toMatchObject({ verdict: 'pcr-mismatch', message: 'the quote does not cover exactly PCRs 0-23 of the SHA-256 bank' });
    expect(res.installCode).toBeUndefined();
  });

  it('an event log that measures no firmware boot is refused (eventlog-invalid)', async () => {
    const { r, keys, start } = await begin();
    const { parseEventLog } = await import('../../shared/eventlog/parse.js');
    const parsed = parseEventLog(r.boot.eventLog!);
    const header = r.boot.eventLog!.subarray(0, parsed.event(1).offset); // the Spec ID event alone
    const body = await finishRequest(keys, start, buildReport(start.session, { ...r.boot, eventLog: header }), header);
    await keys.close();
    const res = await finish(r, body);
    expect(res).toMatchObject({ verdict: 'eventlog-invalid', message: expect.stringMatching(/measures nothing into PCR 0, 1, 2, 3, 4, 5, 6, 7/) });
    await expectOnlyVerdict(r, 'eventlog-invalid');
  });

  it('another TPM claiming the serial cannot mark the device with its refusals', async () => {
    const { r, keys, start } = await begin({ machine: 'b' });
    const body = await honest(keys, start, r);
    await keys.close();
    const bytes = Buffer.from(body.quote.signature, 'base64');
    bytes[bytes.length - 3]! ^= 0x01;
    expect((await finish(r, { ...body, quote: { ...body.quote, signature: bytes.toString('base64') } })).verdict).toBe('quote-invalid');
    await expectNothingWritten(r);
    expect(r.audits.at(-1)).toMatchObject({ verdict: 'quote-invalid', serial: r.boot.serial });
  });

  it('an EK with a SHA-1 nameAlg is refused at start with a verdict, not an error', async () => {
    rig = await startRig();
    const keys = await AttestationKeys.open(rig.tpm);
    const req = startRequest(keys, rig.boot);
    await keys.close();
    const area = Buffer.from(req.eks[0]!.public, 'base64');
    area.writeUInt16BE(TPM_ALG.SHA1, 2);
    const res = await postJson({ baseUrl: rig.url }, PATHS.start, { ...req, eks: [{ ...req.eks[0]!, public: area.toString('base64') }] }, StartAnswer);
    expect(res).toMatchObject({ verdict: 'ek-invalid', message: 'the rsa2048 EK does not use SHA-256 or stronger as its nameAlg' });
  });

  it('no event log is refused (eventlog-missing)', async () => {
    const { r, keys, start } = await begin();
    const body = await finishRequest(keys, start, buildReport(start.session, { ...r.boot, eventLog: null }), null);
    await keys.close();
    expect((await finish(r, body)).verdict).toBe('eventlog-missing');
    await expectOnlyVerdict(r, 'eventlog-missing');
  });
});
