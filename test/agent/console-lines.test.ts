import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { BOOT_FACT_LINES, CMDLINE_LINES, NIC_LINES, SECURITYFS_LINES } from '../../agent/boot/lines.js';
import { CLOCK_LINES } from '../../agent/clock/lines.js';
import { LLDP_LINES } from '../../agent/lldp/lines.js';
import { CONSOLE_STEPS } from '../../scripts/docs/console-lines-page.js';
import { type Said, template } from '../../shared/text/line-def.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const REGISTRIES = [ATTEST_LINES, BOOT_FACT_LINES, CMDLINE_LINES, NIC_LINES, SECURITYFS_LINES, CLOCK_LINES, LLDP_LINES];
const LINES = REGISTRIES.flatMap((r) => Object.values(r) as Said<string[]>[]);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : name.endsWith('.ts') ? [p] : [];
  });
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** How each line begins: its `part: ` prefix, or its whole words when it has none. */
const openings = [...new Set(LINES.map(({ def }) => /^[a-z]+: /.exec(template(def))?.[0] ?? template(def)))];
/** A literal handed straight to the print functions, or one that opens like a console line. */
const INLINE = new RegExp(`\\b(?:say|console\\.log|problems\\.push)\\(\\s*[\`'"]|[\`'"](?:${openings.map(literal).join('|')})`, 'g');

/** What of a source spells a console line of its own (comments aside). */
function inline(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(INLINE)].map((m) => code.slice(m.index, code.indexOf('\n', m.index)).trim());
}

describe("the agent's console lines", () => {
  it('are said only through their definitions: no agent source outside a lines.ts spells one', () => {
    const found = sources(join(REPO, 'agent'))
      .filter((f) => !f.endsWith('/lines.ts'))
      .flatMap((f) => inline(readFileSync(f, 'utf8')).map((l) => `${relative(REPO, f)}: ${l}`));
    expect(found).toEqual([]);
  });

  it('the check sees a line spelled inline, in a print call or anywhere else', () => {
    expect(inline("  say(`nic: eth0`);\n  run.say('attest: PASSED');\n  const l = `lldp: none`;\n  problems.push('fleet_x=1 is wrong');\n")).toHaveLength(4);
    expect(inline('  // say(`nic: in a comment`)\n  say(NIC_LINES.picked(a, b, c));\n')).toEqual([]);
  });

  it('each is on the reference page, in its step', () => {
    const shown = new Set(CONSOLE_STEPS.flatMap((s) => s.lines));
    expect(LINES.filter((l) => !shown.has(l)).map(({ def }) => template(def))).toEqual([]);
  });

  it('keep the words the runbook reads', () => {
    // The runbook (docs/operations.md) and an operator at the console match these; they change only with it.
    expect(template(ATTEST_LINES.passed.def)).toBe('attest: PASSED');
    expect(template(ATTEST_LINES.failed.def)).toMatch(/^attest: FAILED <verdict>/);
  });
});
