import { describe, expect, it } from 'vitest';
import { printable } from '../../shared/text/terminal.js';
import { approvalLines, rivalClaimsLine } from '../../verifier/approve.js';

describe("fleet attest approve's lines", () => {
  it('show what the claimant sent with its control characters and direction overrides escaped', () => {
    const lines = approvalLines({
      serial: 'SN1\u001b]0;owned\u0007',
      at: '2026-12-02T00:00:00Z',
      mac: '52:54:00:12:34:56',
      peer: '10.0.1.11',
      switchPort: 'g1\u001b[2J\u001b[H',
      eks: [{ kind: 'rsa2048', hash: 'a'.repeat(64), certificate: { subject: 'CN=EK\u202eevil', issuer: 'CN=CA\r\nfake line' } }],
    });
    for (const l of lines) expect(l).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(lines[0]).toBe('claim: serial SN1\\x1b]0;owned\\x07, MAC 52:54:00:12:34:56, switch port g1\\x1b[2J\\x1b[H, from 10.0.1.11, at 2026-12-02T00:00:00Z');
    expect(lines[1]).toBe(
      `  rsa2048 EK ${'a'.repeat(64)}; EK certificate subject "CN=EK\\u202eevil", issuer "CN=CA\\x0d\\x0afake line" (not checked against a maker)`,
    );
    expect(lines.at(-1)).toBe(`approved_ek_rsa2048: ${'a'.repeat(64)}`);
  });

  it('leave ordinary text, accents included, as it is', () => {
    expect(printable('Port 5 – Büro')).toBe('Port 5 – Büro');
  });

  it('say first when several TPMs claim the serial', () => {
    expect(rivalClaimsLine('SN1\u001b[2J', 3)).toBe(
      '3 different TPMs claim the serial SN1\\x1b[2J; at most one is that machine. Compare each claim below with your evidence, and add only the lines of the one that matches.',
    );
  });
});
