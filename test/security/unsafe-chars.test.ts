import { describe, expect, it } from 'vitest';
import { printable } from '../../shared/text/terminal.js';
import { APPROVE_LINES as L } from '../../verifier/approve-lines.js';
import { approvalLines } from '../../verifier/approve.js';
import { unquotableParameters } from '../../verifier/reconcile/desired.js';
import type { Claim } from '../../verifier/state/claim.js';

/**
 * The characters a peer's text must not carry as it is, to a terminal (printable) or into a
 * Template's quotes (the reconciler's guard): C0 and C1 controls (NEL among them, a line break to
 * YAML 1.1 inside quotes), line separators, bidi controls and zero-width characters. And what
 * fleet attest approve shows an operator to compare is ASCII: a fullwidth serial is escaped.
 */
const UNSAFE: Array<[string, string]> = [
  ['\u0000', '\\x00'],
  ['\u001b', '\\x1b'],
  ['\u007f', '\\x7f'],
  ['\u0085', '\\x85'],
  ['\u009b', '\\x9b'],
  ['\u2028', '\\u2028'],
  ['\u2029', '\\u2029'],
  ['\u061c', '\\u061c'],
  ['\u200e', '\\u200e'],
  ['\u200f', '\\u200f'],
  ['\u202a', '\\u202a'],
  ['\u202e', '\\u202e'],
  ['\u2066', '\\u2066'],
  ['\u2069', '\\u2069'],
  ['\u200b', '\\u200b'],
  ['\u200c', '\\u200c'],
  ['\u200d', '\\u200d'],
  ['\u2060', '\\u2060'],
  ['\ufeff', '\\ufeff'],
];

describe('printable', () => {
  it.each(UNSAFE)('escapes %j', (c, shown) => {
    expect(printable(`a${c}b`)).toBe(`a${shown}b`);
  });
});

describe("the reconciler's quote guard", () => {
  it.each(UNSAFE)('refuses %j in a parameter', (c) => {
    expect(unquotableParameters({ install_disk_serial: `S4${c}EV` })).toEqual([{ key: 'install_disk_serial', char: c }]);
  });
  it('lets ordinary text through, accents included', () => {
    expect(unquotableParameters({ install_disk: '/dev/disk/by-id/nvme-Büro_1' })).toEqual([]);
  });
});

describe('fleet attest approve', () => {
  it('escapes a fullwidth serial, so that it cannot pass for the ASCII one', () => {
    const claim: Claim = {
      serial: '\uff33\uff2e1',
      at: '2026-12-01T00:00:00Z',
      mac: '52:54:00:12:34:56',
      peer: '10.0.1.11',
      switchPort: 'Port 5 \u2013 B\u00fcro',
      eks: [],
    };
    const lines = approvalLines(claim, { roots: null, at: new Date('2026-12-02T00:00:00Z') });
    expect(lines[0]).toBe(L.claim('\\uff33\\uff2e1', '52:54:00:12:34:56', 'Port 5 \\u2013 B\\xfcro', '10.0.1.11', '2026-12-01T00:00:00Z'));
    for (const l of lines) expect(l).toMatch(/^[\u0020-\u007e]*$/);
  });
});
