/**
 * v1 tokens as NetBox 4.5 generates them (40 ASCII letters and digits, users/constants.py TOKEN_CHARSET),
 * and the 4.5 provisioning answers, checked against the recorded NetBox 4.5.10 responses.
 */
import { describe, expect, it } from 'vitest';
import { parseToken, REDACTED, tokenFromProvisionResponse } from '../../verifier/netbox/token.js';
import { recorded } from './recorded.js';
import { thrown } from './thrown.js';

interface Recording {
  request: { method: string; path: string; body: Record<string, unknown> | null; auth?: string };
  status: number;
  body: Record<string, unknown>;
  note?: string;
}

const rec = (name: string) => recorded<Recording>(`netbox-4.5-recorded/${name}`);

/** The README's placeholders: same format and length as the real tokens. */
const GENERATED_V1 = 'NetBoxGeneratedV1TokenPlaceholderXYZ0001';
const GIVEN_HEX_V1 = 'f1ee7000000000000000000000000000000000a1';

describe('v1 tokens of NetBox 4.5 (40 letters and digits)', () => {
  it('NetBox 4.5 accepted its generated, non-hex v1 token sent as Token <t>', () => {
    const r = rec('auth-generated-v1-token.json');
    expect(r.request.auth).toMatch(/^Token <v1 token .*\(40 letters and digits\)>$/);
    expect(r.status).toBe(200);
    expect(r.body['netbox-version']).toMatch(/^4\.5\./);
    // The provisioned token (token-v1-format.json) is that format: not hex.
    const token = rec('token-v1-format.json').body['token'];
    expect(token).toBe(GENERATED_V1);
    expect(token).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(token).not.toMatch(/^[0-9a-fA-F]{40}$/);
  });

  it('parseToken accepts a generated v1 token and builds the Token header', () => {
    expect(parseToken(GENERATED_V1)).toMatchObject({ version: 1, header: `Token ${GENERATED_V1}` });
    expect(parseToken(`  ${GENERATED_V1}\n`).header).toBe(`Token ${GENERATED_V1}`);
    // 40 hex characters (the other recorded v1 token) are still v1.
    expect(parseToken(GIVEN_HEX_V1)).toMatchObject({ version: 1, header: `Token ${GIVEN_HEX_V1}` });
  });

  it('parseToken still refuses anything but 40 letters and digits or nbt_<key>.<secret>, without echoing it', () => {
    const bad = [
      GENERATED_V1.slice(1), // 39
      `${GENERATED_V1}0`, // 41
      `${GENERATED_V1.slice(0, 39)}-`,
      `${GENERATED_V1.slice(0, 39)}_`,
      `${GENERATED_V1.slice(0, 20)} ${GENERATED_V1.slice(21)}`,
      `${GENERATED_V1.slice(0, 39)}é`,
      `Token ${GENERATED_V1}`,
      `Bearer ${GENERATED_V1}`,
    ];
    for (const b of bad) {
      const err = thrown(() => parseToken(b));
      expect(err.code).toBe('netbox-config-invalid');
      expect(err.message).toMatch(/v1 token \(40 letters and digits\)/);
      expect(err.message).toMatch(/it is \d+ characters long/);
      expect(err.message.includes(b.trim())).toBe(false);
      expect(err.message.includes(GENERATED_V1.slice(0, 20))).toBe(false);
    }
  });

  it('redacts a letters-and-digits v1 token in any case', () => {
    const t = parseToken(GENERATED_V1);
    const text = `a ${GENERATED_V1} b ${GENERATED_V1.toLowerCase()} c ${GENERATED_V1.toUpperCase()} d`;
    expect(t.redact(text)).toBe(`a ${REDACTED} b ${REDACTED} c ${REDACTED} d`);
    expect(t.redact(`Authorization: ${t.header}`)).toBe(`Authorization: Token ${REDACTED}`);
    expect(t.redact('nothing secret here')).toBe('nothing secret here');
  });
});

describe('tokenFromProvisionResponse and the recorded NetBox 4.5 answers', () => {
  it('a v1 answer (version 1, key null) gives the plaintext token from `token`', () => {
    const r = rec('token-v1-format.json');
    expect(r.request.body).toMatchObject({ version: 1 });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ version: 1, key: null, token: GENERATED_V1 });
    const token = tokenFromProvisionResponse(r.body);
    expect(token).toBe(GENERATED_V1);
    expect(parseToken(token)).toMatchObject({ version: 1, header: `Token ${GENERATED_V1}` });
    // The same answer with the version as {value, label}, or without it, is still v1.
    expect(tokenFromProvisionResponse({ ...r.body, version: { value: 1, label: 'v1' } })).toBe(GENERATED_V1);
    const { version: _version, ...unversioned } = r.body;
    expect(tokenFromProvisionResponse(unversioned)).toBe(GENERATED_V1);
  });

  it('a v2 answer still gives nbt_<key>.<token>', () => {
    const r = rec('token-v2-format.json');
    expect(r.body).toMatchObject({ version: 2 });
    const token = tokenFromProvisionResponse(r.body);
    expect(token).toBe(`nbt_${r.body['key']}.${r.body['token']}`);
    expect(token).toBe('nbt_TfKeyExample.TerraformV2SecretPlaceholderXYZ000000001');
    expect(parseToken(token)).toMatchObject({ version: 2, header: `Bearer ${token}` });
  });

  it('older shapes keep working: the documented v1 answer and pynetbox fixtures', () => {
    const docs = recorded('netbox-docs/token-provision-response-v1.json');
    expect(tokenFromProvisionResponse(docs)).toBe(docs['key']);
    expect(parseToken(tokenFromProvisionResponse(docs)).version).toBe(1);
    expect(tokenFromProvisionResponse(recorded('pynetbox/api/token_provision_v1_legacy.json'))).toMatch(/^\d{40}$/);
    const v2 = recorded('pynetbox/api/token_provision_v2.json');
    expect(tokenFromProvisionResponse(v2)).toBe(`nbt_${v2['key']}.${v2['token']}`);
  });

  it('refuses answers with no usable token, never taking a v2 secret for a v1 token', () => {
    // POST users/tokens/ (not provision/) answers `token: null`: nothing to use.
    const created = rec('token-create-v1-given-hex.json');
    expect(created.body).toMatchObject({ version: 1, key: null, token: null });
    expect(thrown(() => tokenFromProvisionResponse(created.body)).code).toBe('netbox-error');
    // A listed v2 token has its key but no secret.
    const listed = (rec('tokens-list.json').body['results'] as Record<string, unknown>[]).find((t) => t['version'] === 2)!;
    expect(listed['token']).toBeNull();
    expect(thrown(() => tokenFromProvisionResponse(listed)).code).toBe('netbox-error');
    // A v2 answer missing its key: its 40-character secret alone authenticates nothing.
    const v2 = rec('token-v2-format.json').body;
    expect(thrown(() => tokenFromProvisionResponse({ ...v2, key: null })).code).toBe('netbox-error');
    // A v1 answer whose token is not 40 letters and digits.
    const v1 = rec('token-v1-format.json').body;
    for (const token of [`${GENERATED_V1}0`, `${GENERATED_V1.slice(0, 39)}-`, '', 42]) {
      const err = thrown(() => tokenFromProvisionResponse({ ...v1, token }));
      expect(err.code).toBe('netbox-error');
      expect(err.message.includes(GENERATED_V1.slice(0, 20))).toBe(false);
    }
    expect(thrown(() => tokenFromProvisionResponse(null)).code).toBe('netbox-error');
    expect(thrown(() => tokenFromProvisionResponse([])).code).toBe('netbox-error');
  });
});
