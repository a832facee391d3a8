import type { NetBoxObjectChange } from '../../netbox/shapes.js';
import type { Authorship } from '../device.js';
import { BINDING_FIELDS } from './custom-fields.js';

function cfOf(data: Record<string, unknown> | null): Record<string, unknown> {
  const cf = data?.custom_fields;
  return cf !== null && typeof cf === 'object' ? (cf as Record<string, unknown>) : {};
}

/**
 * Whether NetBox's changelog shows `author` writing each binding field's current value: the newest
 * change that set the field to that value must be `author`'s. Pure; `changes` newest first, as
 * NetBox orders them. Fails closed: no author configured, or no record of the write, is unauthored.
 */
export function bindingAuthorship(current: Record<string, unknown>, changes: readonly NetBoxObjectChange[], author: string | undefined): Authorship {
  if (!author) return { authored: false, reason: 'bindingAuthor is unset on this fleetd, so no binding can be trusted' };
  for (const field of BINDING_FIELDS) {
    const value = current[field];
    if (value === null || value === undefined || value === '') continue;
    const write = changes.find((c) => cfOf(c.postchange_data)[field] === value && cfOf(c.prechange_data)[field] !== value);
    if (!write) return { authored: false, reason: `NetBox's changelog holds no record of ${field} being set to its value` };
    if (write.user_name !== author) return { authored: false, reason: `${field} was last written by ${write.user_name}, not ${author}` };
  }
  return { authored: true };
}
