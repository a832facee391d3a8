import { Type, type Static } from '@sinclair/typebox';

/**
 * The seed a nixos-image or alpine-image node's first boot fetches from fleetd (`GET
 * <seedUrl>/<installCode>`, both read from `fleet-seed.json` on its ESP): who the node is and its
 * network, rendered at admission. `images/first-boot/fleet-seed.schema.json` publishes this schema
 * for an image's first-boot service; a test keeps the two the same.
 */
export const SeedDocument = Type.Object(
  {
    version: Type.Literal(1),
    hostname: Type.String({ minLength: 1, maxLength: 253 }),
    /** The node's static address with its prefix length, on the NIC with `mac`. */
    address: Type.String({ pattern: '^[0-9a-fA-F.:]+/[0-9]{1,3}$' }),
    mac: Type.String({ pattern: '^[0-9a-f]{2}(:[0-9a-f]{2}){5}$' }),
    gateway: Type.String({ minLength: 1 }),
    nameservers: Type.Array(Type.String({ minLength: 1 })),
    /** The SMBIOS system UUID its attestation reported (lowercase), or null when it reported none. */
    nodeUuid: Type.Union([Type.String({ pattern: '^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$' }), Type.Null()]),
    /** The run that installed it (its Workflow's name), or null for an intake's code not yet taken. */
    run: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    /** What the class's seed inputs add, as the class wrote it. */
    class: Type.Object({ name: Type.String({ minLength: 1 }), data: Type.Record(Type.String(), Type.Unknown()) }),
  },
  { additionalProperties: false, $id: 'https://fleet.lolwtf.ca/schemas/fleet-seed-document-v1.json', title: 'fleet seed document' },
);
export type SeedDocument = Static<typeof SeedDocument>;
