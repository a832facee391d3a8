import { randomBytes } from 'node:crypto';
import { makeCredential } from '../../shared/tpm/make-credential.js';
import type { StartRequest, StartResponse } from '../../shared/wire/schemas.js';
import { errorMessage } from '../../shared/errors.js';
import { checkAk, checkEks } from './keys.js';
import { Refusal } from './refusal.js';
import type { Session, SessionStore } from './session-store.js';

/**
 * `start`: checks the claimed EKs and AK and answers one credential per EK, each wrapping a fresh
 * secret to that EK and bound to the AK's Name, plus the nonce the quote must sign.
 */
export function startSession(store: SessionStore, req: StartRequest, peer: string): { session: Session; response: StartResponse } {
  store.admit(peer);
  const eks = checkEks(req);
  const ak = checkAk(req.ak);
  const secrets = new Map<string, Uint8Array>();
  const challenges = eks.map((ek) => {
    const secret = randomBytes(32);
    secrets.set(ek.kind, secret);
    let c;
    try {
      c = makeCredential(ek.pub, ak.name, secret);
    } catch (err) {
      throw new Refusal('ek-invalid', `no credential can be made for the ${ek.kind} EK: ${errorMessage(err)}`);
    }
    return { kind: ek.kind, credentialBlob: b64(c.credentialBlob), secret: b64(c.secret) };
  });
  const session: Session = {
    id: store.newId(),
    serial: req.serial,
    mac: req.mac,
    eks,
    ak,
    nonce: randomBytes(32),
    secrets,
    expiresAt: store.deadline(),
  };
  store.add(session, peer);
  return { session, response: { session: session.id, nonce: b64(session.nonce), challenges, expiresInMs: store.ttlMs } };
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
