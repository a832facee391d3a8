/**
 * Whether a line quoted in prose is a fragment of a defined line. Both sides may leave words out:
 * a definition's template has its arguments' names in their place (`<node>`), and a quotation has
 * its own (`<node>`, `N`, a value such as `the Talos config` or `5`), or elides with `…` or `...`.
 * So the question is whether some line both could say contains the quotation: the template's
 * placeholders stand for any words, and the quotation's elisions for any part of the line.
 */
type Token = string | typeof ANY;
const ANY = Symbol('any');

function tokens(text: string, placeholder: RegExp): Token[] {
  const out: Token[] = [];
  let at = 0;
  for (const m of text.matchAll(placeholder)) {
    out.push(...text.slice(at, m.index));
    if (out.at(-1) !== ANY) out.push(ANY);
    at = m.index + m[0].length;
  }
  out.push(...text.slice(at));
  return out;
}

/** A template's placeholders: its arguments' names. */
const TEMPLATE_ARG = /<[^<>]+>/g;
/** A quotation's: names, elisions, and one capital standing for a number (`port N`). */
const QUOTED_ARG = /<[^<>]+>|…|\.\.\.|\b[A-Z]\b/g;

/** How many spaces a template's argument may take from the quotation: an argument is a word or two. */
const ARG_SPACES = 1;

export function quotes(quotation: string, template: string): boolean {
  const q = tokens(quotation, QUOTED_ARG);
  const t = tokens(template, TEMPLATE_ARG);
  const memo = new Map<number, boolean>();
  // Can q[i..] be read from t[j..] on, the argument t[j] (if it is one) having taken `spaces`
  // spaces already? A quotation that ends within an argument must have given it one word at most,
  // so a line is not taken for another that says other words after the same opening.
  const from = (i: number, j: number, spaces: number): boolean => {
    if (i === q.length) return t[j] !== ANY || spaces === 0;
    if (j === t.length) return q.slice(i).every((x) => x === ANY);
    const key = (i * (t.length + 1) + j) * (ARG_SPACES + 1) + spaces;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let ok: boolean;
    const taken = q[i] === ' ' ? spaces + 1 : spaces;
    if (q[i] === ANY) ok = from(i + 1, j, spaces) || from(i, j + 1, 0);
    else if (t[j] === ANY) ok = from(i, j + 1, 0) || (taken <= ARG_SPACES && from(i + 1, j, taken));
    else ok = q[i] === t[j] && from(i + 1, j + 1, 0);
    memo.set(key, ok);
    return ok;
  };
  for (let j = 0; j <= t.length; j++) if (from(0, j, 0)) return true;
  return false;
}
