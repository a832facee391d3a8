import { describe, expect, it } from 'vitest';
import { decodeEvent } from '../../shared/eventlog/decode.js';
import type { EventLog } from '../../shared/eventlog/log.js';
import { parseEventLog } from '../../shared/eventlog/parse.js';
import { replay } from '../../shared/eventlog/replay.js';
import { EFI_GLOBAL_VARIABLE_GUID, secureBootState } from '../../shared/eventlog/secureboot.js';
import * as T from '../../shared/eventlog/types.js';
import { eventBytes, findEvent, keylimeLog, measuredEvent, rebuild, toolsLog, variableData, withJunkData, withType } from './fixtures.js';

function secureBootIndex(log: EventLog): number {
  return findEvent(log, (e) => {
    const d = decodeEvent(e);
    return e.pcr === 7 && d.kind === 'variable' && d.name === 'SecureBoot';
  });
}

function pcr7SeparatorIndex(log: EventLog): number {
  return findEvent(log, (e) => e.pcr === 7 && e.type === T.EV_SEPARATOR);
}

describe('secureBootState', () => {
  it('reads the states keylime asserts', () => {
    expect(secureBootState(parseEventLog(keylimeLog('binary_bios_measurements-secureboot')))).toEqual({ enabled: true, problems: [] });
    expect(secureBootState(parseEventLog(keylimeLog('binary_bios_measurements')))).toEqual({ enabled: false, problems: [] });
    expect(secureBootState(parseEventLog(keylimeLog('mb_log.b64'))).enabled).toBe(true);
  });

  it('agrees with tpm2-tools on the logs it decodes', () => {
    const cases: [string, boolean][] = [
      ['event-arch-linux.bin', false],
      ['event-bootorder.bin', false],
      ['event-moklisttrusted.bin', true],
      ['event-postcode.bin', true],
    ];
    for (const [name, enabled] of cases) expect([name, secureBootState(parseEventLog(toolsLog(name)))]).toEqual([name, { enabled, problems: [] }]);
    // SecureBoot measured with no data: the variable is absent. This log has only a SHA-1 bank.
    expect(secureBootState(parseEventLog(toolsLog('event-uefi-sha1-log.bin')), 'sha1')).toEqual({ enabled: false, problems: [] });
  });

  it('cannot tell without the SecureBoot variable, or without the separator that closes the firmware’s configuration', () => {
    expect(secureBootState(parseEventLog(toolsLog('event-uefiaction.bin')))).toEqual({
      enabled: null,
      problems: [
        "PCR 7 has no separator, so the firmware's configuration cannot be told from what came after",
        "no proven SecureBoot variable before PCR 7's separator",
      ],
    });
    // tpm2-tools' one-event sample: SecureBoot=01, and nothing to say the firmware measured it.
    expect(secureBootState(parseEventLog(toolsLog('event-uefivar.bin'))).problems).toEqual([
      "PCR 7 has no separator, so the firmware's configuration cannot be told from what came after",
    ]);
    expect(secureBootState(parseEventLog(toolsLog('event-uefi-sha1-log.bin')))).toEqual({ enabled: null, problems: ['the log has no sha256 bank'] });
  });

  describe('forged from real logs', () => {
    const disabled = parseEventLog(keylimeLog('binary_bios_measurements'));
    const enabled = parseEventLog(keylimeLog('binary_bios_measurements-secureboot'));
    const on = variableData(EFI_GLOBAL_VARIABLE_GUID, 'SecureBoot', new Uint8Array([1]));

    it('distrusts SecureBoot data that no longer hashes to its digest (disabled rewritten as enabled)', () => {
      const i = secureBootIndex(disabled);
      const e = disabled.event(i);
      const forged = new Uint8Array(disabled.bytes);
      forged[e.offset + e.size - 1] = 0x01; // the variable's one data byte
      const log = parseEventLog(forged);
      // The digests, and so the replay a quote would be checked against, are untouched.
      expect(replay(log)).toEqual(replay(disabled));
      const variable = decodeEvent(log.event(i));
      expect(variable.kind === 'variable' && [...variable.data]).toEqual([1]);
      expect(secureBootState(log)).toEqual({ enabled: null, problems: ["no proven SecureBoot variable before PCR 7's separator"] });
    });

    it('reads Secure Boot off through relabelled firmware events, and refuses a SecureBoot=01 and separator appended after them', () => {
      const events = eventBytes(disabled);
      const sb = secureBootIndex(disabled);
      const s = pcr7SeparatorIndex(disabled);
      const relabel = (e: Uint8Array) => withType(e, T.EV_EFI_VARIABLE_AUTHORITY);
      const relabelled = events.map((e, i) => (i === sb || i === s ? relabel(e) : e));
      // Labels count for nothing: the proven SecureBoot=00 before the separator's digest still reads off.
      expect(secureBootState(parseEventLog(rebuild(relabelled)))).toEqual({ enabled: false, problems: [] });
      // The attack: the firmware's two events relabelled with junk data, a new SecureBoot=01 and separator extended after.
      const junked = events.map((e, i) => (i === sb || i === s ? withJunkData(relabel(e)) : e));
      const n = events.length;
      const forged = parseEventLog(
        rebuild([...junked, measuredEvent(disabled, 7, T.EV_EFI_VARIABLE_DRIVER_CONFIG, on), measuredEvent(disabled, 7, T.EV_SEPARATOR, new Uint8Array(4))]),
      );
      expect(secureBootState(forged)).toEqual({
        enabled: null,
        problems: [
          `event ${n} (PCR 7, labelled EV_EFI_VARIABLE_DRIVER_CONFIG): SecureBoot measured after PCR 7's separator (event ${s}), where only the firmware configures Secure Boot`,
          `event ${n + 1} (PCR 7, labelled EV_SEPARATOR) is a second separator on PCR 7 (the first is event ${s})`,
          "no proven SecureBoot variable before PCR 7's separator",
        ],
      });
    });

    it('finds the separator by its digest in the quoted bank, not by another bank’s', () => {
      const s = pcr7SeparatorIndex(disabled);
      const e = disabled.event(s);
      const forged = new Uint8Array(disabled.bytes);
      const sha1At = e.digests.get('sha1')!.byteOffset - disabled.bytes.byteOffset;
      forged.fill(0x5a, sha1At, sha1At + 20);
      const events = eventBytes(parseEventLog(forged));
      const log = parseEventLog(rebuild([...events, measuredEvent(disabled, 7, T.EV_EFI_VARIABLE_DRIVER_CONFIG, on)]));
      expect(secureBootState(log).enabled).toBeNull();
      expect(secureBootState(log).problems[0]).toMatch("SecureBoot measured after PCR 7's separator");
    });

    it('rejects a second separator on PCR 7', () => {
      const events = eventBytes(enabled);
      const s = pcr7SeparatorIndex(enabled);
      const state = secureBootState(parseEventLog(rebuild([...events.slice(0, s + 1), withType(events[s]!, T.EV_EFI_ACTION), ...events.slice(s + 1)])));
      expect(state).toEqual({
        enabled: null,
        problems: [`event ${s + 1} (PCR 7, labelled EV_EFI_ACTION) is a second separator on PCR 7 (the first is event ${s})`],
      });
    });

    it.each([
      ['SecureBoot', EFI_GLOBAL_VARIABLE_GUID],
      ['PK', EFI_GLOBAL_VARIABLE_GUID],
      ['dbx', 'd719b2cb-3d3a-4596-a3bc-dad00e67656f'],
    ])('rejects %s measured after PCR 7’s separator, whatever its label', (name, guid) => {
      const events = eventBytes(enabled);
      const added = measuredEvent(enabled, 7, T.EV_EFI_VARIABLE_AUTHORITY, variableData(guid, name, new Uint8Array([1])));
      const state = secureBootState(parseEventLog(rebuild([...events, added])));
      expect(state.enabled).toBeNull();
      expect(state.problems).toEqual([
        `event ${events.length} (PCR 7, labelled EV_EFI_VARIABLE_AUTHORITY): ${name} measured after PCR 7's separator (event ${pcr7SeparatorIndex(enabled)}), where only the firmware configures Secure Boot`,
      ]);
    });

    it('accepts a db authority after the separator, as firmware measures one for each image it lets run', () => {
      const added = measuredEvent(enabled, 7, T.EV_EFI_VARIABLE_AUTHORITY, variableData('d719b2cb-3d3a-4596-a3bc-dad00e67656f', 'db', new Uint8Array(40)));
      expect(secureBootState(parseEventLog(rebuild([...eventBytes(enabled), added])))).toEqual({ enabled: true, problems: [] });
    });

    it('rejects a SecureBoot variable measured twice before the separator', () => {
      const events = eventBytes(enabled);
      const sb = secureBootIndex(enabled);
      const state = secureBootState(parseEventLog(rebuild([...events.slice(0, sb + 1), events[sb]!, ...events.slice(sb + 1)])));
      expect(state.enabled).toBeNull();
      expect(state.problems).toEqual([`event ${sb + 1} (PCR 7, labelled EV_EFI_VARIABLE_DRIVER_CONFIG) measures SecureBoot again (first in event ${sb})`]);
    });

    it('rejects a separator whose digest is the error value’s', () => {
      const events = eventBytes(enabled);
      const s = pcr7SeparatorIndex(enabled);
      const error = measuredEvent(enabled, 7, T.EV_SEPARATOR, new Uint8Array([1, 0, 0, 0]));
      expect(secureBootState(parseEventLog(rebuild(events.map((e, i) => (i === s ? error : e)))))).toEqual({
        enabled: null,
        problems: [`event ${s} (PCR 7, labelled EV_SEPARATOR): the firmware's separator reports an error`],
      });
    });
  });
});
