import { describe, expect, it } from 'vitest';
import { decide } from '../../verifier/attest/policy.js';
import { parseNodesFile } from '../../verifier/inventory/nodes-file.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const C = 'c'.repeat(64);

describe('the admission policy', () => {
  const entry = (binding: Record<string, string>) => ({ hostname: 'n1', binding });
  const both = [
    { kind: 'rsa2048' as const, hash: A },
    { kind: 'eccp256' as const, hash: B },
  ];

  it.each([
    ['no entry', null, both, 'pending-approval'],
    ['an entry that approves nothing', entry({}), both, 'pending-approval'],
    ['both approved and proven', entry({ rsa2048: A, eccp256: B }), both, 'attested'],
    ['RSA approved; the TPM proves more', entry({ rsa2048: A }), both, 'attested'],
    ['ECC approved and proven alone', entry({ eccp256: B }), [both[1]!], 'attested'],
    ['an approved kind the TPM did not prove', entry({ rsa2048: A, eccp256: B }), [both[0]!], 'ek-missing'],
    ['another EK of an approved kind', entry({ rsa2048: C }), both, 'ek-hash-mismatch'],
    ['a mismatch outranks a missing EK', entry({ rsa2048: C, eccp256: B }), [both[0]!], 'ek-hash-mismatch'],
    ['hashes swapped between kinds', entry({ rsa2048: B, eccp256: A }), both, 'ek-hash-mismatch'],
  ] as const)('%s → %s', (_name, e, proven, verdict) => {
    expect(decide(e, 'SN1', proven).verdict).toBe(verdict);
  });

  it('names the refused hash and the approved one', () => {
    expect(decide(entry({ rsa2048: C }), 'SN1', both).refused).toEqual({ kind: 'rsa2048', hash: A, approved: C });
  });
});

describe('the nodes file', () => {
  const yaml = (nodes: string) => `nodes:\n${nodes}`;

  it('reads entries with their bindings and provision flag', () => {
    const nodes = parseNodesFile(yaml(`  - hostname: n1\n    serial: S1\n    approved_ek_rsa2048: ${A}\n    provision: true\n  - hostname: n2\n    serial: 1234\n`));
    expect(nodes).toEqual([
      { hostname: 'n1', serial: 'S1', binding: { rsa2048: A }, provisionWaiting: true },
      { hostname: 'n2', serial: '1234', binding: {}, provisionWaiting: false },
    ]);
  });

  it.each([
    ['a missing serial', '  - hostname: n1\n', /nodes\[0\] \(n1\) has no serial/],
    ['a missing hostname', '  - serial: S1\n', /nodes\[0\] has no hostname/],
    ['a serial another node holds', '  - {hostname: n1, serial: S1}\n  - {hostname: n2, serial: S1}\n', /serial S1 is held by n1/],
    ['a hostname twice', '  - {hostname: n1, serial: S1}\n  - {hostname: n1, serial: S2}\n', /hostname n1 is declared twice/],
    ['an approved EK another node holds', `  - {hostname: n1, serial: S1, approved_ek_rsa2048: ${A}}\n  - {hostname: n2, serial: S2, approved_ek_eccp256: ${A}}\n`, /approved EK n1 holds/],
    ['an uppercase hash', `  - {hostname: n1, serial: S1, approved_ek_rsa2048: ${A.toUpperCase()}}\n`, /not 64 lowercase hex characters/],
    ['a short hash', '  - {hostname: n1, serial: S1, approved_ek_eccp256: abc}\n', /not 64 lowercase hex characters/],
    ['provision not a boolean', '  - {hostname: n1, serial: S1, provision: "yes"}\n', /provision is not true or false/],
  ])('refuses %s', (_name, body, message) => {
    expect(() => parseNodesFile(yaml(body))).toThrow(message);
  });

  it('refuses YAML that does not parse, and nodes that are not a list', () => {
    expect(() => parseNodesFile('nodes: [')).toThrow(expect.objectContaining({ code: 'nodes-invalid' }));
    expect(() => parseNodesFile('nodes: {a: 1}')).toThrow(/nodes is not a list/);
  });
});
