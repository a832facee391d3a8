/**
 * JSON values and the two patch formats the Kubernetes API server applies to every resource:
 * JSON merge patch (RFC 7386) and JSON patch (RFC 6902). The API server decodes a JSON patch with
 * evanphx/json-patch and answers 400 when it cannot decode it and 422 when it cannot apply it
 * (apiserver/pkg/endpoints/handlers/patch.go), so `PatchError` keeps that split.
 */

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: Json | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Equality of JSON documents (key order is not significant, as after a Go round trip). */
export function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** RFC 7386 §2: null removes a member, objects merge recursively, anything else (arrays too) replaces. */
export function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const result: JsonObject = isObject(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

export class PatchError extends Error {
  /** `decode`: the patch is not a JSON patch (400); `apply`: it does not apply to the object (422). */
  readonly kind: 'decode' | 'apply';
  constructor(kind: 'decode' | 'apply', message: string) {
    super(message);
    this.name = 'PatchError';
    this.kind = kind;
  }
}

function goType(value: Json): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** RFC 6901 JSON pointer to reference tokens. */
function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new PatchError('apply', `JSON pointer must be empty or start with a "/": ${path}`);
  return path
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function arrayIndex(token: string, length: number, path: string): number {
  if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) > length) {
    throw new PatchError('apply', `unable to access invalid index: ${token} in ${path}`);
  }
  return Number(token);
}

/** The container and last token of `path` in `doc`; the container must exist. */
function parentOf(doc: Json, path: string): { parent: Json; last: string } {
  const tokens = pointer(path);
  const last = tokens.pop();
  if (last === undefined) throw new PatchError('apply', 'the root has no parent');
  let node: Json = doc;
  for (const token of tokens) {
    const next: Json | undefined = Array.isArray(node) ? node[arrayIndex(token, node.length - 1, path)] : isObject(node) ? node[token] : undefined;
    if (next === undefined) throw new PatchError('apply', `doc is missing path: ${path}`);
    node = next;
  }
  return { parent: node, last };
}

function getAt(doc: Json, path: string): Json {
  if (path === '') return doc;
  const { parent, last } = parentOf(doc, path);
  const value = Array.isArray(parent)
    ? parent[arrayIndex(last, parent.length - 1, path)]
    : isObject(parent) && Object.hasOwn(parent, last)
      ? parent[last]
      : undefined;
  if (value === undefined) throw new PatchError('apply', `doc is missing key: ${path}`);
  return value;
}

/** Returns the new document (the root itself can be replaced). */
function addAt(doc: Json, path: string, value: Json): Json {
  if (path === '') return value;
  const { parent, last } = parentOf(doc, path);
  if (Array.isArray(parent)) {
    parent.splice(last === '-' ? parent.length : arrayIndex(last, parent.length, path), 0, value);
  } else if (isObject(parent)) {
    parent[last] = value;
  } else {
    throw new PatchError('apply', `cannot add to a ${goType(parent)} at ${path}`);
  }
  return doc;
}

function removeAt(doc: Json, path: string): void {
  getAt(doc, path); // RFC 6902 §4.2: the target location MUST exist
  const { parent, last } = parentOf(doc, path);
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else if (isObject(parent)) delete parent[last];
}

interface Operation {
  op: string;
  path: string;
  from: string | undefined;
  value: Json | undefined;
}

/** Decodes a JSON patch document as evanphx/json-patch does: an array of operation objects. */
export function decodeJsonPatch(patch: Json): Operation[] {
  if (!Array.isArray(patch)) {
    throw new PatchError('decode', `json: cannot unmarshal ${goType(patch)} into Go value of type jsonpatch.Patch`);
  }
  return patch.map((op) => {
    if (!isObject(op)) {
      throw new PatchError('decode', `json: cannot unmarshal ${goType(op)} into Go value of type jsonpatch.Operation`);
    }
    return { op: str(op.op) ?? '', path: str(op.path) ?? '', from: str(op.from), value: op.value };
  });
}

/** Applies RFC 6902 operations to a copy of `doc`, all or nothing. */
export function applyJsonPatch(doc: Json, operations: Operation[]): Json {
  let result = structuredClone(doc);
  for (const { op, path, from, value } of operations) {
    const needsValue = op === 'add' || op === 'replace' || op === 'test';
    if (needsValue && value === undefined) throw new PatchError('apply', `${op} operation has no value: ${path}`);
    if ((op === 'move' || op === 'copy') && from === undefined) throw new PatchError('apply', `${op} operation has no from: ${path}`);
    switch (op) {
      case 'add':
        result = addAt(result, path, structuredClone(value as Json));
        break;
      case 'remove':
        removeAt(result, path);
        break;
      case 'replace':
        getAt(result, path); // RFC 6902 §4.3: the target location MUST exist
        if (path === '') {
          result = structuredClone(value as Json);
        } else {
          removeAt(result, path);
          result = addAt(result, path, structuredClone(value as Json));
        }
        break;
      case 'move': {
        const source = from as string;
        if (path.startsWith(`${source}/`)) throw new PatchError('apply', `cannot move ${source} into its own child ${path}`);
        const moved = getAt(result, source);
        removeAt(result, source);
        result = addAt(result, path, moved);
        break;
      }
      case 'copy':
        result = addAt(result, path, structuredClone(getAt(result, from as string)));
        break;
      case 'test':
        if (!deepEqual(getAt(result, path), value)) throw new PatchError('apply', `testing value ${path} failed`);
        break;
      default:
        throw new PatchError('apply', `Unexpected kind: ${op}`);
    }
  }
  return result;
}
