/**
 * Why `name` is not a host name as a node's must be (RFC 1123: labels of 1 to 63 letters, digits
 * and hyphens, none first or last in a label; 253 characters in all), or null when it is one.
 * Lowercase only: the name becomes Kubernetes object names, which refuse capitals, and two names
 * that differ in case are one name to DNS.
 */
export function hostNameProblem(name: string): string | null {
  if (name.length === 0) return 'it is empty';
  if (name.length > 253) return `it is ${name.length} characters, more than 253`;
  const bad = [...name].find((c) => !/[a-z0-9.-]/.test(c));
  if (bad !== undefined) {
    if (/[A-Z]/.test(bad)) return 'it holds capitals: write it in lowercase';
    return `it holds the character U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}: only a-z, 0-9, '-' and '.' between labels`;
  }
  for (const label of name.split('.')) {
    if (label.length === 0) return 'it holds an empty label';
    if (label.length > 63) return `its label ${label.slice(0, 12)}… is ${label.length} characters, more than 63`;
    if (label.startsWith('-') || label.endsWith('-')) return `its label ${label} begins or ends with a hyphen`;
  }
  return null;
}
