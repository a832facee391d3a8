/**
 * efibootmgr's listing, as `efibootmgr -v` prints it (efibootmgr 17 and 18 alike):
 *
 *   BootNext: 0003
 *   BootCurrent: 0001
 *   Timeout: 0 seconds
 *   BootOrder: 0003,0001,0000
 *   Boot0000* UiApp<TAB>FvVol(7cb8bdc9-…)/FvFile(462caa21-…)
 *   Boot0003* fleet talos<TAB>HD(1,GPT,<partition GUID>,0x800,0x32000)/File(\EFI\BOOT\BOOTX64.EFI)
 *
 * `*` marks an active entry; the label ends at the tab. efivar 39 prints a file path without its
 * `File(…)` wrapper, so both forms are read. With no BootOrder it says "No BootOrder is set; …".
 */
/** The label of the firmware entry next-boot keeps for a payload. */
export const entryLabel = (os: string): string => `fleet ${os}`;

export interface BootEntry {
  num: string;
  active: boolean;
  label: string;
  path: string;
}

export interface BootState {
  next: string | null;
  order: string[];
  entries: BootEntry[];
}

export function parseEfibootmgr(text: string): BootState {
  const state: BootState = { next: null, order: [], entries: [] };
  for (const line of text.split('\n')) {
    const next = /^BootNext: ([0-9A-Fa-f]{4})\s*$/.exec(line);
    if (next) state.next = next[1]!.toUpperCase();
    const order = /^BootOrder: ([0-9A-Fa-f,]*)\s*$/.exec(line);
    if (order)
      state.order = order[1]!
        .split(',')
        .filter(Boolean)
        .map((n) => n.toUpperCase());
    const entry = /^Boot([0-9A-Fa-f]{4})(\*| ) ([^\t]*)\t?(.*)$/.exec(line);
    if (entry) state.entries.push({ num: entry[1]!.toUpperCase(), active: entry[2] === '*', label: entry[3]!.trimEnd(), path: entry[4]! });
  }
  return state;
}

/** Whether an entry loads `loader` from the GPT partition `partGuid` (any disk path before it). */
export function loadsFrom(entry: BootEntry, partGuid: string, loader: string): boolean {
  const path = entry.path.toLowerCase();
  const file = loader.toLowerCase();
  return path.includes(`,gpt,${partGuid.toLowerCase()},`) && (path.includes(`/file(${file})`) || path.includes(`/${file}`));
}

export interface BootPlan {
  /** Entries with our label that load something else: an earlier install's, to delete. */
  stale: string[];
  /** Our entry when one already loads the loader from this ESP (a second run changes nothing). */
  keep: string | null;
}

/** What to change so that exactly one active entry named `label` loads the loader from this ESP. */
export function planEntries(state: BootState, label: string, partGuid: string, loader: string): BootPlan {
  const ours = state.entries.filter((e) => e.label === label);
  const keep = ours.find((e) => e.active && loadsFrom(e, partGuid, loader))?.num ?? null;
  return { keep, stale: ours.map((e) => e.num).filter((n) => n !== keep) };
}

/** The BootOrder with `num` first and every other entry after it, in the order they had. */
export function orderFirst(order: readonly string[], num: string, removed: readonly string[]): string[] {
  return [num, ...order.filter((n) => n !== num && !removed.includes(n))];
}
