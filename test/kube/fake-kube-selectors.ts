/**
 * Label and field selectors as the API server parses them, and the name and label rules it
 * validates objects with. Ported from k8s.io/apimachinery: pkg/labels/selector.go (lexer, parser,
 * Requirement.Matches), pkg/fields/selector.go (ParseSelector) and pkg/util/validation
 * (IsQualifiedName, IsValidLabelValue, IsDNS1123Subdomain), with their error strings, since a
 * malformed selector is answered 400 with the parser's message.
 */

export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/** Object names, and the prefix of a qualified name. Empty array: valid. */
export function isDns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN_RE.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** Label keys, annotation keys: `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  if (parts.length > 2) {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const name = parts.pop() as string;
  const prefix = parts.pop();
  if (prefix !== undefined) {
    if (prefix === '') errs.push('prefix part must be non-empty');
    else errs.push(...isDns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (!QUALIFIED_NAME_RE.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

type Token = 'end' | 'identifier' | 'error' | ')' | ',' | '!' | '==' | '=' | '>' | 'in' | '<' | '!=' | 'notin' | '(';

const KEYWORDS: ReadonlySet<string> = new Set([')', ',', '!', '==', '=', '>', 'in', '<', '!=', 'notin', '(']);
const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const WHITESPACE = new Set([' ', '\t', '\r', '\n']);

interface Item {
  tok: Token;
  lit: string;
}

/** The lexer of labels/selector.go: identifiers run to the next special symbol or white space. */
function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && WHITESPACE.has(s[pos] as string)) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'end', lit: '' });
      return items;
    }
    if (SPECIAL.has(s[pos] as string)) {
      // The longest run of special symbols that still spells an operator.
      let buffer = '';
      let last: Item | undefined;
      while (pos < s.length && SPECIAL.has(s[pos] as string)) {
        buffer += s[pos];
        if (KEYWORDS.has(buffer)) {
          last = { tok: buffer as Token, lit: buffer };
          pos++;
        } else if (last) {
          break;
        } else {
          pos++;
        }
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` });
      continue;
    }
    let id = '';
    while (pos < s.length && !SPECIAL.has(s[pos] as string) && !WHITESPACE.has(s[pos] as string)) id += s[pos++];
    items.push({ tok: KEYWORDS.has(id) ? (id as Token) : 'identifier', lit: id });
  }
}

type Operator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

interface Requirement {
  key: string;
  op: Operator;
  values: string[];
}

/** A recursive descent parser over the lexed items, as labels.Parser. */
class Parser {
  private position = 0;
  constructor(private readonly items: Item[]) {}

  /** In the values context, `in` and `notin` are plain identifiers (`x in (in)`). */
  private look(values: boolean): Item {
    const item = this.items[this.position] as Item;
    return values && (item.tok === 'in' || item.tok === 'notin') ? { tok: 'identifier', lit: item.lit } : item;
  }

  private consume(values: boolean): Item {
    const item = this.look(values);
    this.position++;
    return item;
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.look(true);
      if (tok === 'end') return requirements;
      if (tok !== 'identifier' && tok !== '!') throw new SelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        requirements.push(this.requirement());
      } catch (err) {
        throw new SelectorError(`unable to parse requirement: ${(err as Error).message}`);
      }
      const next = this.consume(true);
      if (next.tok === 'end') return requirements;
      if (next.tok !== ',') throw new SelectorError(`found '${next.lit}', expected: ',' or 'end of string'`);
      const after = this.look(true);
      if (after.tok !== 'identifier' && after.tok !== '!') throw new SelectorError(`found '${after.lit}', expected: identifier after ','`);
    }
  }

  private requirement(): Requirement {
    let { tok, lit } = this.consume(true);
    let op: Operator | undefined;
    if (tok === '!') {
      op = '!';
      ({ tok, lit } = this.consume(true));
    }
    if (tok !== 'identifier') throw new Error(`found '${lit}', expected: identifier`);
    const key = lit;
    const keyErrs = isQualifiedName(key);
    // The parser validates keys with a nil field path, which Go prints as `<nil>`.
    if (keyErrs.length > 0) throw new Error(`<nil>: Invalid value: ${JSON.stringify(key)}: ${keyErrs.join('; ')}`);
    const next = this.look(true).tok;
    if (op === undefined && (next === 'end' || next === ',')) op = 'exists';
    if (op === 'exists' || op === '!') return { key, op, values: [] };

    const operator = this.consume(false);
    const binary: Partial<Record<Token, Operator>> = { in: 'in', notin: 'notin', '=': '=', '==': '==', '!=': '!=', '>': 'gt', '<': 'lt' };
    const binOp = binary[operator.tok];
    if (binOp === undefined) throw new Error(`found '${operator.lit}', expected: in, notin, =, ==, !=, gt, lt`);
    const values = binOp === 'in' || binOp === 'notin' ? this.valueSet() : this.exactValue();
    for (const [i, v] of values.entries()) {
      const errs = isValidLabelValue(v);
      if (errs.length > 0) throw new Error(`values[${i}][${key}]: Invalid value: ${JSON.stringify(v)}: ${errs.join('; ')}`);
      if ((binOp === 'gt' || binOp === 'lt') && !/^[+-]?\d+$/.test(v)) {
        throw new Error(`values[${i}]: Invalid value: ${JSON.stringify(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
      }
    }
    return { key, op: binOp, values };
  }

  private valueSet(): string[] {
    const open = this.consume(true);
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.look(true);
    if (tok === ')') {
      this.consume(true);
      return [''];
    }
    if (tok !== 'identifier' && tok !== ',') throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
    const values = new Set<string>();
    for (;;) {
      const item = this.consume(true);
      if (item.tok === 'identifier') {
        values.add(item.lit);
        const after = this.look(true);
        if (after.tok === ',') continue;
        if (after.tok === ')') break;
        throw new Error(`found '${after.lit}', expected: ',' or ')'`);
      } else if (item.tok === ',') {
        // Empty members: `(,a)`, `(a,,b)` and `(a,)` all hold the empty value.
        if (values.size === 0) values.add('');
        const after = this.look(true).tok;
        if (after === ')') {
          values.add('');
          break;
        }
        if (after === ',') values.add('');
      } else {
        throw new Error(`found '${item.lit}', expected: ',', or identifier`);
      }
    }
    const close = this.consume(true);
    if (close.tok !== ')') throw new Error(`found '${lit}', expected: ')'`);
    return [...values];
  }

  private exactValue(): string[] {
    const next = this.look(true).tok;
    if (next === 'end' || next === ',') return [''];
    const item = this.consume(true);
    if (item.tok !== 'identifier') throw new Error(`found '${item.lit}', expected: identifier`);
    return [item.lit];
  }
}

function matches(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key];
  switch (r.op) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value as string);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value as string);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^[+-]?\d+$/.test(value as string)) return false;
      const [have, want] = [BigInt(value as string), BigInt(r.values[0] as string)];
      return r.op === 'gt' ? have > want : have < want;
    }
  }
}

export type Matcher = (values: Readonly<Record<string, string>>) => boolean;

/** `labelSelector`: `a=b`, `a==b`, `a!=b`, `a in (b,c)`, `a notin (b)`, `a`, `!a`, `a>1`, `a<1`, comma-separated. */
export function parseLabelSelector(selector: string): Matcher {
  const requirements = new Parser(lex(selector)).parse();
  return (labels) => requirements.every((r) => matches(r, labels));
}

/** fields.UnescapeValue: `\\`, `\,` and `\=` are the only escapes. */
function unescapeFieldValue(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c !== '\\') {
      if (c === ',' || c === '=') throw new SelectorError(`invalid field selector: unescaped ${c}`);
      out += c;
      continue;
    }
    const next = s[++i];
    if (next !== '\\' && next !== ',' && next !== '=') throw new SelectorError(`invalid field selector: invalid escape sequence`);
    out += next;
  }
  return out;
}

/** `fieldSelector`: `key=value`, `key==value`, `key!=value`, comma-separated, over the fields a resource supports. */
export function parseFieldSelector(selector: string, supported: readonly string[]): Matcher {
  const terms: { key: string; negate: boolean; value: string }[] = [];
  // Terms split on commas that are not escaped (fields.splitTerms).
  const raw: string[] = [];
  let current = '';
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i] as string;
    if (c === '\\' && i + 1 < selector.length) {
      current += c + selector[++i];
    } else if (c === ',') {
      raw.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  if (selector !== '') raw.push(current);
  for (const term of raw) {
    const at = [...term].findIndex((_, i) => /^(!=|==|=)/.test(term.slice(i)));
    if (at < 0) throw new SelectorError(`invalid selector: '${selector}'; can't understand '${term}'`);
    const op = /^(!=|==|=)/.exec(term.slice(at))?.[0] as string;
    const key = term.slice(0, at);
    if (!supported.includes(key)) throw new SelectorError(`field label not supported: ${key}`);
    terms.push({ key, negate: op === '!=', value: unescapeFieldValue(term.slice(at + op.length)) });
  }
  return (fields) => terms.every((t) => (fields[t.key] === t.value) !== t.negate);
}
