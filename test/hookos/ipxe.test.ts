import { describe, expect, it } from 'vitest';
import { parseCmdline } from '../../agent/boot/cmdline.js';
import { kernelCmdline } from '../../hookos/boot-params.js';
import { BOOT_NIC_ARGS, hardwareScript, menuScript } from '../../hookos/ipxe.js';
import { labConfig } from './lab.js';

const config = labConfig();
const cmdline = kernelCmdline(config);
const scripts = { menu: menuScript(config, cmdline), hardware: hardwareScript(config, cmdline) };

/** Lines without comments and blank lines; `:x` lines are labels. */
const commands = (script: string) => script.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
const labels = (script: string) =>
  commands(script)
    .filter((l) => l.startsWith(':'))
    .map((l) => l.slice(1));

/** The commands after a label, in the order iPXE runs them. */
function block(script: string, label: string): string[] {
  const lines = commands(script);
  return lines.slice(lines.indexOf(`:${label}`) + 1);
}

/** What iPXE does with `${netX/mac}` and `${netX/mac:hexhyp}` on a NIC with this MAC. */
const expandNic = (s: string, mac: string) => s.replaceAll('${netX/mac:hexhyp}', mac.replaceAll(':', '-')).replaceAll('${netX/mac}', mac);

describe.each(Object.entries(scripts))('the %s script', (_name, script) => {
  it('starts with #!ipxe', () => {
    expect(script.split('\n')[0]).toBe('#!ipxe');
  });

  it('has unique labels, and a label for every goto target', () => {
    const have = labels(script);
    expect(new Set(have).size).toBe(have.length);
    const items = commands(script)
      .filter((l) => l.startsWith('item '))
      .map((l) => l.split(' ')[1]!);
    for (const m of script.matchAll(/goto (\S+)/g)) {
      // `goto ${target}` goes where `choose` put it: any item.
      const targets = m[1] === '${target}' ? items : [m[1]!];
      expect(targets.length).toBeGreaterThan(0);
      for (const t of targets) expect(have, `goto ${t}`).toContain(t);
    }
  });

  it("expands no variable but its own and the boot NIC's", () => {
    const vars = [...script.matchAll(/\$\{([^}]+)\}/g)].map((m) => m[1]);
    expect(new Set(vars)).toEqual(new Set(['netX/mac:hexhyp', 'netX/mac', 'attempt', ...(script.includes('choose') ? ['target'] : [])]));
  });

  it('chains the UKI with its exact command line, then the boot NIC', () => {
    const chain = block(script, 'hookos').find((l) => l.startsWith('chain '))!;
    expect(chain).toBe(`chain --autofree ${config.uki_url} ${cmdline} ${BOOT_NIC_ARGS} || goto hookos_retry`);
  });

  it('names the boot NIC the way the agent reads it', () => {
    const chain = block(script, 'hookos').find((l) => l.startsWith('chain '))!;
    const args = expandNic(chain.replace(/^chain --autofree \S+ /, '').replace(/ \|\| goto \S+$/, ''), '52:54:00:ab:cd:ef');
    const { params, problems } = parseCmdline(args);
    expect(problems).toEqual([]);
    expect(params.bootMac).toBe('52:54:00:ab:cd:ef');
    expect(params.workerId).toBe('52:54:00:ab:cd:ef');
  });

  it('gives up after its tries and leaves iPXE', () => {
    expect(block(script, 'hookos_failed')).toContain('exit 1');
    expect(script).toMatch(/iseq \$\{attempt\} 3 && goto hookos_failed/);
  });
});

describe('the menu', () => {
  it('boots HookOS by default, after menu_timeout_s', () => {
    const choose = commands(scripts.menu).find((l) => l.startsWith('choose '))!;
    expect(choose).toMatch(new RegExp(`--default hookos --timeout ${config.menu_timeout_s * 1000} target \\|\\| goto hookos$`));
    expect(commands(scripts.menu)).toContain('item hookos Boot HookOS');
    expect(block(scripts.menu, 'hookos')[2]).toMatch(/^echo fleet: booting HookOS/);
  });

  it('offers the next boot device, which leaves iPXE', () => {
    expect(block(scripts.menu, 'next')[0]).toBe('exit 0');
  });
});

describe('the Hardware script', () => {
  it('has no menu: it goes straight to HookOS', () => {
    expect(commands(scripts.hardware)[0]).toBe(':hookos');
    expect(scripts.hardware).not.toMatch(/^(menu|choose|item) /m);
  });
});
