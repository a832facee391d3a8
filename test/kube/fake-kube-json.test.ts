/**
 * The fake's two patch formats against their RFCs' own examples: RFC 7386 Appendix A (merge patch)
 * and RFC 6902 Appendix A (JSON patch), including the ones that must fail.
 */
import { describe, expect, it } from 'vitest';
import { applyJsonPatch, decodeJsonPatch, mergePatch, PatchError, type Json } from './fake-kube-json.js';

describe('JSON merge patch (RFC 7386 Appendix A)', () => {
  const cases: [Json, Json, Json][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  it.each(cases)('%j + %j', (target, patch, result) => {
    expect(mergePatch(target, patch)).toEqual(result);
  });

  it('leaves its target unchanged', () => {
    const target = { a: { b: 1 } };
    mergePatch(target, { a: { b: 2 } });
    expect(target).toEqual({ a: { b: 1 } });
  });
});

describe('JSON patch (RFC 6902 Appendix A)', () => {
  const apply = (doc: Json, patch: Json) => applyJsonPatch(doc, decodeJsonPatch(patch));

  const cases: [string, Json, Json, Json][] = [
    ['A.1 add an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
    ['A.2 add an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
    ['A.3 remove an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
    ['A.4 remove an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
    ['A.5 replace a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
    [
      'A.6 move a value',
      { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
      [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
    ],
    [
      'A.7 move an array element',
      { foo: ['all', 'grass', 'cows', 'eat'] },
      [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
      { foo: ['all', 'cows', 'eat', 'grass'] },
    ],
    [
      'A.8 test a value: success',
      { baz: 'qux', foo: ['a', 2, 'c'] },
      [
        { op: 'test', path: '/baz', value: 'qux' },
        { op: 'test', path: '/foo/1', value: 2 },
      ],
      { baz: 'qux', foo: ['a', 2, 'c'] },
    ],
    ['A.10 add a nested member object', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }], { foo: 'bar', child: { grandchild: {} } }],
    ['A.11 ignore unrecognized elements', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }], { foo: 'bar', baz: 'qux' }],
    ['A.14 ~ escape ordering', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
    ['A.16 add an array value', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
    ['copy', { a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/c' }], { a: { b: 1 }, c: { b: 1 } }],
  ];
  it.each(cases)('%s', (_name, doc, patch, result) => {
    expect(apply(doc, patch)).toEqual(result);
  });

  const failures: [string, Json, Json][] = [
    ['A.9 test a value: error', { baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]],
    ['A.12 add to a nonexistent target', { foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]],
    ['A.15 comparing strings and numbers', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }]],
    ['remove a missing member', { foo: 'bar' }, [{ op: 'remove', path: '/baz' }]],
    ['replace a missing member', { foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 1 }]],
    ['an index past the end', { foo: [1] }, [{ op: 'add', path: '/foo/2', value: 1 }]],
    ['an unknown op', { foo: 1 }, [{ op: 'frobnicate', path: '/foo' }]],
  ];
  it.each(failures)('%s fails to apply, all or nothing', (_name, doc, patch) => {
    const before = structuredClone(doc);
    let caught: unknown;
    try {
      apply(doc, patch);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PatchError);
    expect((caught as PatchError).kind).toBe('apply');
    expect(doc).toEqual(before);
  });

  it('refuses a document that is not an array of operations as undecodable', () => {
    expect(() => decodeJsonPatch({ spec: {} })).toThrow('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    expect(() => decodeJsonPatch(['add'])).toThrow(PatchError);
  });
});
