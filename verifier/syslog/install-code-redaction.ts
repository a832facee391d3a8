/**
 * Blanking install codes in what HookOS logs. A code is 43 base64url characters (32 random
 * bytes), live until its node fetches the config, and the journal is read by more people than the
 * code is for: blanking a token that only looks like one costs a line some detail; missing a code
 * would publish it.
 */

const CODE_LENGTH = 43;
const ALPHABET = /^[A-Za-z0-9_-]$/;
// A hash or a container id: a code is all hex digits with odds of (22/64)^43, about 1e-20.
const HEX_ONLY = /^[0-9A-Fa-f_-]+$/;
// A program may log a URL encoded once or more, or JSON escaped in JSON: decode that many rounds.
const ROUNDS = 4;
const MARK = '<install code>';
// Filler (`xxxx…`, `AAAA…`): 43 random base64url characters are fewer than 16 distinct ones with
// odds of about 1e-13.
const MIN_DISTINCT = 16;

/** One character of the decoded text, and the span of the original that spelt it. */
interface Unit {
  ch: string;
  start: number;
  end: number;
}

/**
 * The text with every run of base64url characters 43 or longer blanked, the run read after up to
 * four rounds of percent-decoding and JSON unescaping (`%252F`, `\u002F`, `\\u002f`, `\/`), so an
 * encoded slash before a code, or an encoded character in it, hides nothing. The whole run goes:
 * `-` and `_` are code characters, so no boundary inside a run says where a code would end. A run
 * of hex digits alone (a digest), or of fewer than 16 distinct characters (filler), stays.
 */
export function withoutInstallCodesText(text: string): string {
  if (text.length < CODE_LENGTH) return text;
  // Most messages have neither a long run nor anything encoded: look before decoding anything.
  if (!/[A-Za-z0-9_-]{43}|[%\\]/.test(text)) return text;
  let units: Unit[] = Array.from(text, (ch, i) => ({ ch, start: i, end: i + 1 }));
  // Array.from splits by code point: offsets must be UTF-16 ones.
  if (units.length !== text.length) units = utf16Units(text);
  for (let round = 0; round < ROUNDS; round++) {
    const next = decodeOnce(units);
    if (next === units) break;
    units = next;
  }
  const spans: Array<[number, number]> = [];
  for (let i = 0; i < units.length; ) {
    if (!ALPHABET.test(units[i]!.ch)) {
      i++;
      continue;
    }
    let j = i;
    while (j < units.length && ALPHABET.test(units[j]!.ch)) j++;
    const run = units.slice(i, j);
    if (run.length >= CODE_LENGTH && codeLike(run.map((u) => u.ch).join(''))) spans.push([run[0]!.start, run[run.length - 1]!.end]);
    i = j;
  }
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [s, e] of spans) {
    out += text.slice(at, s) + MARK;
    at = e;
  }
  return out + text.slice(at);
}

/** A message's bytes, blanked as withoutInstallCodesText; latin1 keeps every other byte as it was. */
export function withoutInstallCodes(message: Buffer): Buffer {
  if (message.length < CODE_LENGTH) return message;
  const text = message.toString('latin1');
  const blanked = withoutInstallCodesText(text);
  return blanked === text ? message : Buffer.from(blanked, 'latin1');
}

function codeLike(run: string): boolean {
  return !HEX_ONLY.test(run) && new Set(run).size >= MIN_DISTINCT;
}

function utf16Units(text: string): Unit[] {
  const units: Unit[] = [];
  for (let i = 0; i < text.length; i++) units.push({ ch: text[i]!, start: i, end: i + 1 });
  return units;
}

const isHex = (u: Unit | undefined) => u !== undefined && u.ch.length === 1 && /[0-9A-Fa-f]/.test(u.ch);
const hexAt = (units: Unit[], i: number, n: number): number | null => {
  let v = 0;
  for (let k = i; k < i + n; k++) {
    if (!isHex(units[k])) return null;
    v = v * 16 + Number.parseInt(units[k]!.ch, 16);
  }
  return v;
};

/** One round of `%XX`, `\uXXXX`, `\/` and `\\`; the same array when nothing was encoded. */
function decodeOnce(units: Unit[]): Unit[] {
  const out: Unit[] = [];
  let changed = false;
  for (let i = 0; i < units.length; ) {
    const u = units[i]!;
    let width = 0;
    let ch = '';
    const pct = u.ch === '%' ? hexAt(units, i + 1, 2) : null;
    const esc = u.ch === '\\' && units[i + 1]?.ch === 'u' ? hexAt(units, i + 2, 4) : null;
    if (pct !== null) {
      width = 3;
      ch = String.fromCharCode(pct);
    } else if (esc !== null) {
      width = 6;
      ch = String.fromCharCode(esc);
    } else if (u.ch === '\\' && (units[i + 1]?.ch === '/' || units[i + 1]?.ch === '\\')) {
      width = 2;
      ch = units[i + 1]!.ch;
    }
    if (width === 0) {
      out.push(u);
      i++;
      continue;
    }
    out.push({ ch, start: u.start, end: units[i + width - 1]!.end });
    changed = true;
    i += width;
  }
  return changed ? out : units;
}
