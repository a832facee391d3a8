/**
 * RFC 5424 §6.3 STRUCTURED-DATA: `[id name="value" ...][id2 ...]`. In a value, `\"`, `\\` and `\]`
 * stand for the character; a backslash before anything else is itself (§6.3.3). Strings are latin1
 * (one char per byte): parse.ts decodes them.
 */
import type { SdElement } from './message.js';

// SD-NAME: 1 to 32 PRINTUSASCII except `=`, space, `]` and `"`.
const SD_NAME = /[\x21\x23-\x3c\x3e-\x5c\x5e-\x7e]{1,32}/y;
const ESCAPED = new Set(['"', '\\', ']']);

/** The SD-ELEMENTs at `at` and where they end; undefined when they break the grammar. */
export function readStructuredData(text: string, at: number): { elements: SdElement[]; end: number } | undefined {
  const elements: SdElement[] = [];
  let pos = at;
  while (text[pos] === '[') {
    const id = readName(text, pos + 1);
    if (id === undefined) return undefined;
    pos += 1 + id.length;
    const element: SdElement = { id, params: [] };
    while (text[pos] === ' ') {
      const name = readName(text, pos + 1);
      if (name === undefined) return undefined;
      pos += 1 + name.length;
      if (text[pos] !== '=' || text[pos + 1] !== '"') return undefined;
      const value = readValue(text, pos + 2);
      if (!value) return undefined;
      element.params.push({ name, value: value.value });
      pos = value.end;
    }
    if (text[pos] !== ']') return undefined;
    pos++;
    elements.push(element);
  }
  return elements.length > 0 ? { elements, end: pos } : undefined;
}

function readName(text: string, at: number): string | undefined {
  SD_NAME.lastIndex = at;
  return SD_NAME.exec(text)?.[0];
}

/** The value from after its opening quote to its closing one; `end` is after the closing quote. */
function readValue(text: string, at: number): { value: string; end: number } | undefined {
  let value = '';
  let from = at;
  for (let pos = at; pos < text.length; pos++) {
    const c = text[pos];
    if (c === '"') return { value: value + text.slice(from, pos), end: pos + 1 };
    if (c === '\\' && ESCAPED.has(text[pos + 1]!)) {
      value += text.slice(from, pos);
      from = ++pos;
    }
  }
  return undefined;
}
