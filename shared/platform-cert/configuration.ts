import type { Tlv } from '../ek-cert/der.js';
import { type Component, component, STATUSES } from './components.js';
import { contextTag, malformed, named, sequence, TAGS, text } from './fields.js';
import { type UriReference, uriReference } from './uri-reference.js';

/** What the platform was built with: its components and properties (platformConfiguration, or -v2). */
export interface PlatformConfiguration {
  /** 1: tcg-at-platformConfiguration (2.23.133.5.1.7.1); 2: tcg-at-platformConfiguration-v2 (2.23.133.5.1.7.2), whose components carry a class and a status. */
  version: 1 | 2;
  components: Component[];
  componentsUri: UriReference | null;
  properties: PlatformProperty[];
  propertiesUri: UriReference | null;
}

export interface PlatformProperty {
  name: string;
  value: string;
  /** v2 only: what a delta certificate says happened to the property. */
  status: (typeof STATUSES)[number] | null;
}

export const CONFIGURATION_OIDS = { '2.23.133.5.1.7.1': 1, '2.23.133.5.1.7.2': 2 } as const;

/** Each version's IMPLICIT tags: v2 put componentIdentifiersUri at [1] and moved the properties after it. */
const FIELDS = {
  1: { components: 0, componentsUri: null, properties: 1, propertiesUri: 2 },
  2: { components: 0, componentsUri: 1, properties: 2, propertiesUri: 3 },
} as const;

export function platformConfiguration(der: Uint8Array, t: Tlv, version: 1 | 2): PlatformConfiguration {
  const what = version === 1 ? 'platformConfiguration' : 'platformConfiguration-v2';
  const tags = FIELDS[version];
  const out: PlatformConfiguration = { version, components: [], componentsUri: null, properties: [], propertiesUri: null };
  let last = -1;
  for (const f of sequence(der, t, what)) {
    const tag = contextTag(f);
    if (tag === null || tag <= last || tag > 3 || (version === 1 && tag > 2))
      throw malformed(`${what} holds an element out of the profile's order, or not in it`, f.start);
    last = tag;
    if (tag === tags.components)
      out.components = sequence(der, f, `${what}'s components`, true).map((c, i) => component(der, c, version, `${what}'s component ${i}`));
    else if (tag === tags.properties)
      out.properties = sequence(der, f, `${what}'s properties`, true).map((p, i) => property(der, p, version, `${what}'s property ${i}`));
    else if (tag === tags.propertiesUri) out.propertiesUri = uriReference(der, f, `${what}'s platformPropertiesUri`, true);
    else out.componentsUri = uriReference(der, f, `${what}'s componentIdentifiersUri`, true);
  }
  return out;
}

/** Properties ::= SEQUENCE { propertyName UTF8String, propertyValue UTF8String[, v2: status [0] IMPLICIT AttributeStatus OPTIONAL] }. */
function property(der: Uint8Array, t: Tlv, version: 1 | 2, what: string): PlatformProperty {
  const [name, value, status, ...rest] = sequence(der, t, what);
  if (!name || !value || rest.length > 0 || (status && version === 1))
    throw malformed(`${what} is not { name, value${version === 2 ? ', status' : ''} }`, t.start);
  // The status is [0] IMPLICIT by the profile; some writers left it a plain ENUMERATED.
  if (status && status.tag !== 0x80 && status.tag !== TAGS.enumerated) throw malformed(`${what}'s status is not an AttributeStatus`, status.start);
  return {
    name: text(der, name, `${what}'s name`),
    value: text(der, value, `${what}'s value`),
    status: status ? named(der, status, STATUSES, `${what}'s status`) : null,
  };
}
