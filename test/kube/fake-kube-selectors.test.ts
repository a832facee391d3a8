/**
 * The label and field selector parsers against labels/selector.go's grammar and matching rules
 * (notably: `!=` and `notin` match objects without the key) and its error messages.
 */
import { describe, expect, it } from 'vitest';
import { isDns1123Subdomain, isQualifiedName, isValidLabelValue, parseFieldSelector, parseLabelSelector, SelectorError } from './fake-kube-selectors.js';

const worker = { role: 'worker', rack: 'r1', gen: '3' };
const control = { role: 'controlplane', rack: 'r2' };
const bare = {};

describe('label selectors', () => {
  const cases: [string, boolean, boolean, boolean][] = [
    // selector, matches worker, control, bare
    ['', true, true, true],
    ['role=worker', true, false, false],
    ['role==worker', true, false, false],
    ['role!=worker', false, true, true],
    ['role in (worker,controlplane)', true, true, false],
    ['role notin (worker)', false, true, true],
    ['rack', true, true, false],
    ['!gen', false, true, true],
    ['role=worker,rack=r1', true, false, false],
    ['  role = worker ,  rack  ', true, false, false],
    ['gen>2', true, false, false],
    ['gen<3', false, false, false],
    ['role in (worker,,x)', true, false, false],
    ['in=x', false, false, false],
  ];
  it.each(cases)('%j', (selector, w, c, b) => {
    const match = parseLabelSelector(selector);
    expect([match(worker), match(control), match(bare)]).toEqual([w, c, b]);
  });

  it('treats an empty value set as the empty value', () => {
    expect(parseLabelSelector('x in ()')({ x: '' })).toBe(true);
    expect(parseLabelSelector('x in ()')({ x: 'a' })).toBe(false);
  });

  const errors: [string, string][] = [
    ['role in worker', "unable to parse requirement: found 'worker' expected: '('"],
    ['role worker', "unable to parse requirement: found 'worker', expected: in, notin, =, ==, !=, gt, lt"],
    ['role=worker=x', "found '=', expected: ',' or 'end of string'"],
    ['=worker', "found '=', expected: !, identifier, or 'end of string'"],
    [',role', "found ',', expected: !, identifier, or 'end of string'"],
    ['role,', "found '', expected: identifier after ','"],
    ['role in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['-role=x', 'unable to parse requirement: <nil>: Invalid value: "-role": name part must consist of alphanumeric characters'],
    ['mac=aa:bb', 'unable to parse requirement: values[0][mac]: Invalid value: "aa:bb": a valid label must be an empty string'],
    ['gen>x', "for 'Gt', 'Lt' operators, the value must be an integer"],
  ];
  it.each(errors)('%j is refused', (selector, message) => {
    expect(() => parseLabelSelector(selector)).toThrow(SelectorError);
    expect(() => parseLabelSelector(selector)).toThrow(message);
  });
});

describe('field selectors', () => {
  const supported = ['metadata.name', 'metadata.namespace'];
  const fields = { 'metadata.name': 'wf-1', 'metadata.namespace': 'tinkerbell' };

  it('matches =, == and != over the supported fields', () => {
    expect(parseFieldSelector('metadata.name=wf-1', supported)(fields)).toBe(true);
    expect(parseFieldSelector('metadata.name==wf-2', supported)(fields)).toBe(false);
    expect(parseFieldSelector('metadata.name!=wf-2,metadata.namespace=tinkerbell', supported)(fields)).toBe(true);
    expect(parseFieldSelector('', supported)(fields)).toBe(true);
  });

  it('unescapes values', () => {
    expect(parseFieldSelector('metadata.name=a\\,b', supported)({ 'metadata.name': 'a,b' })).toBe(true);
  });

  it('refuses unsupported fields and terms without an operator', () => {
    expect(() => parseFieldSelector('spec.templateRef=x', supported)).toThrow('field label not supported: spec.templateRef');
    expect(() => parseFieldSelector('metadata.name', supported)).toThrow("invalid selector: 'metadata.name'; can't understand 'metadata.name'");
  });
});

describe('name and label rules', () => {
  it('validates object names as RFC 1123 subdomains', () => {
    expect(isDns1123Subdomain('provision-node-1-1700000000')).toEqual([]);
    expect(isDns1123Subdomain('Node_1')[0]).toMatch(/^a lowercase RFC 1123 subdomain must consist of/);
    expect(isDns1123Subdomain('a'.repeat(254))).toContain('must be no more than 253 characters');
  });

  it('validates label keys and values', () => {
    expect(isQualifiedName('fleet.example/node')).toEqual([]);
    expect(isQualifiedName('a/b/c')[0]).toMatch(/^a qualified name must consist of/);
    expect(isQualifiedName('/x')).toEqual(['prefix part must be non-empty']);
    expect(isValidLabelValue('')).toEqual([]);
    expect(isValidLabelValue('aa:bb:cc')[0]).toContain("(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is");
    expect(isValidLabelValue('x'.repeat(64))).toContain('must be no more than 63 characters');
  });
});
