import { describe, expect, it } from 'vitest';
import { decodeEvent } from '../../shared/eventlog/decode.js';
import type { EventLog } from '../../shared/eventlog/log.js';
import { parseEventLog } from '../../shared/eventlog/parse.js';
import { replay } from '../../shared/eventlog/replay.js';
import { secureBootState } from '../../shared/eventlog/secureboot.js';
import * as T from '../../shared/eventlog/types.js';
import { eventBytes, findEvent, keylimeLog, rebuild, toolsLog, withType } from './fixtures.js';

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
      ['event-uefivar.bin', true],
      ['event-uefi-sha1-log.bin', false], // SecureBoot measured with no data: the variable is absent
    ];
    for (const [name, enabled] of cases) expect([name, secureBootState(parseEventLog(toolsLog(name)))]).toEqual([name, { enabled, problems: [] }]);
  });

  it('cannot tell from a log without the SecureBoot variable', () => {
    const state = secureBootState(parseEventLog(toolsLog('event-uefiaction.bin')));
    expect(state).toEqual({ enabled: null, problems: ['no verified SecureBoot variable in PCR 7'] });
  });

  describe('forged from real logs', () => {
    const disabled = parseEventLog(keylimeLog('binary_bios_measurements'));
    const enabled = parseEventLog(keylimeLog('binary_bios_measurements-secureboot'));

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
      const state = secureBootState(log);
      expect(state.enabled).toBeNull();
      expect(state.problems).toContain(`event ${i} (PCR 7, EV_EFI_VARIABLE_DRIVER_CONFIG): event data does not hash to its digest`);
    });

    it('rejects a second separator on a PCR', () => {
      const events = eventBytes(enabled);
      const s = pcr7SeparatorIndex(enabled);
      const state = secureBootState(parseEventLog(rebuild([...events.slice(0, s + 1), events[s]!, ...events.slice(s + 1)])));
      expect(state.enabled).toBeNull();
      expect(state.problems).toEqual([`event ${s + 1} (PCR 7, EV_SEPARATOR) is a second separator on PCR 7 (the first is event ${s})`]);
    });

    it('rejects Secure Boot configuration measured after PCR 7’s separator', () => {
      const events = eventBytes(enabled);
      const sb = secureBootIndex(enabled);
      const s = pcr7SeparatorIndex(enabled);
      const moved = [...events.slice(0, sb), ...events.slice(sb + 1, s + 1), events[sb]!, ...events.slice(s + 1)];
      const state = secureBootState(parseEventLog(rebuild(moved)));
      expect(state.enabled).toBeNull();
      expect(state.problems).toEqual([`event ${s} (PCR 7, EV_EFI_VARIABLE_DRIVER_CONFIG): Secure Boot configuration measured after PCR 7's separator`]);
    });

    it('rejects a relabelled SecureBoot event (EventType is covered by no digest)', () => {
      const events = eventBytes(disabled);
      const sb = secureBootIndex(disabled);
      for (const type of [T.EV_EFI_VARIABLE_AUTHORITY, T.EV_EFI_ACTION]) {
        const relabelled = events.map((e, i) => (i === sb ? withType(e, type) : e));
        const state = secureBootState(parseEventLog(rebuild(relabelled)));
        expect(state.enabled).toBeNull();
        expect(state.problems.join('\n')).toMatch(`event ${sb} (PCR 7, ${T.eventTypeName(type)}) holds the SecureBoot variable`);
      }
    });

    it('rejects event types firmware does not measure into PCR 7', () => {
      const events = eventBytes(enabled);
      const db = findEvent(enabled, (e) => {
        const d = decodeEvent(e);
        return e.pcr === 7 && d.kind === 'variable' && d.name === 'db';
      });
      const state = secureBootState(parseEventLog(rebuild(events.map((e, i) => (i === db ? withType(e, T.EV_EFI_VARIABLE_BOOT) : e)))));
      expect(state.enabled).toBeNull();
      expect(state.problems).toEqual([`event ${db} (PCR 7, EV_EFI_VARIABLE_BOOT): firmware does not measure this event type into PCR 7`]);
    });

    it('rejects an error separator on PCR 7', () => {
      const s = pcr7SeparatorIndex(enabled);
      const e = enabled.event(s);
      const forged = new Uint8Array(enabled.bytes);
      forged[e.offset + e.size - 4] = 1;
      expect(secureBootState(parseEventLog(forged)).problems).toEqual([
        `event ${s} (PCR 7, EV_SEPARATOR): not a normal (zero) separator`,
        `event ${s} (PCR 7, EV_SEPARATOR): event data does not hash to its digest`,
      ]);
    });
  });
});
