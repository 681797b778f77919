import { createHash } from 'node:crypto';
import { fitsCustomField, isStandardFieldKey } from '../../src/custom-fields/field-definitions';
import { demoBanner, localBaseUrl, seedDemoData } from '../../src/demo/demo-seed';
import { useTestApp } from '../utils/test-app';

// docs/api.md#running-and-administration: demo data on the first embedded start (main.ts calls seedDemoData).
describe('demo data', () => {
  const app = useTestApp();

  it('is created once in an empty database: organization, two lists, custom fields and a working key', async () => {
    const first = await seedDemoData(app.t.prisma.database);
    if (!first.seeded) throw new Error('expected the first call to seed');
    const orgs = await app.t.prisma.organization.findMany({ include: { lists: true, customFields: true, apiKeys: true } });
    expect(orgs).toHaveLength(1);
    const [org] = orgs;
    expect(org.id).toBe(first.organizationId);
    expect(org.lists.map((l) => l.id).sort()).toEqual([...first.listIds].sort());
    expect(org.lists).toHaveLength(2);
    expect(new Set(org.customFields.map((f) => f.type))).toEqual(new Set(['text', 'number', 'select', 'boolean']));
    for (const field of org.customFields) {
      if (field.defaultValue !== null) expect(fitsCustomField(field, field.defaultValue)).toBe(true);
    }
    // A required field has a default, so a contact that leaves it out can still be created.
    expect(org.customFields.filter((f) => f.required).every((f) => f.defaultValue !== null)).toBe(true);
    expect(org.apiKeys).toEqual([expect.objectContaining({ keyHash: createHash('sha256').update(first.apiKey).digest('hex') })]);

    const res = await app.t.http().get('/api/v2/lists').set('Authorization', `Bearer ${first.apiKey}`).expect(200);
    expect(res.body.lists.map((l: { id: string }) => l.id).sort()).toEqual([...first.listIds].sort());

    // Later starts add nothing and name the organization for `key create`.
    expect(await seedDemoData(app.t.prisma.database)).toEqual({ seeded: false, organizationId: org.id });
    expect(await app.t.prisma.organization.count()).toBe(1);
    expect(await app.t.prisma.apiKey.count()).toBe(1);
  });

  it('prints the key and ready curl lines whose contact fits the demo fields and lists', async () => {
    const org = await app.t.prisma.organization.findFirstOrThrow({ include: { customFields: true, lists: true } });
    const banner = demoBanner({ seeded: true, organizationId: org.id, apiKey: 'csk_example', listIds: org.lists.map((l) => l.id) }, localBaseUrl('0.0.0.0', 3000));
    expect(banner).toContain("curl -s http://localhost:3000/api/v2/lists -H 'Authorization: Bearer csk_example'");
    const post = /curl -s -X POST http:\/\/localhost:3000\/api\/v2\/contacts .* -d '(.*)'$/m.exec(banner);
    expect(post).not.toBeNull();
    const contact = JSON.parse(post![1]) as { email: string; listIds: string[]; fields: Record<string, unknown> };
    expect(org.lists.map((l) => l.id)).toEqual(expect.arrayContaining(contact.listIds));
    for (const [key, value] of Object.entries(contact.fields)) {
      const custom = org.customFields.find((f) => f.key === key);
      expect({ key, fits: isStandardFieldKey(key) || (custom !== undefined && fitsCustomField(custom, value)) }).toEqual({ key, fits: true });
    }

    const later = demoBanner({ seeded: false, organizationId: org.id }, 'http://localhost:3000');
    expect(later).toContain(`npm run --silent admin -- key create --org ${org.id}`);
    expect(later).not.toContain('csk_');
  });
});
