import { bootApp, Org, uniqueEmail } from '../contract/helpers';
import { erase, suppressMany } from '../contract/lifecycle-helpers';
import { ROOM_FOR_LOAD } from '../utils/test-app';

/**
 * Erase and suppress take the POST pipeline's per-email locks (docs/api.md, "Erasing a contact"):
 * raced against creates and updates of the same emails, nothing is half-done and an erased,
 * suppressed address is never created without overwrite.
 */
describe('erase and suppress raced against creates and updates', () => {
  // Many requests racing on the same emails through a pool of 10: under CI's load their lock and pool
  // waits can pass the default time-outs (a 503 where the race is what is tested): ROOM_FOR_LOAD.
  const app = bootApp(ROOM_FOR_LOAD);

  async function state(org: Org, email: string) {
    const contact = await app.t.prisma.contact.findUnique({
      where: { organizationId_email: { organizationId: org.id, email } },
      include: { memberships: true },
    });
    return contact;
  }

  it('an erased, suppressed address is never created without overwrite', async () => {
    const { org, list } = await Org.withList(app.t);
    for (let round = 0; round < 5; round++) {
      const email = uniqueEmail('race');
      await suppressMany(org, [{ email, reason: 'unsubscribed' }]).expect(200);
      const creates = Array.from({ length: 6 }, () => org.postContact({ email, listIds: [list] }));
      const [erased, ...answers] = await Promise.all([erase(org, email), ...creates]);
      expect(erased.status).toBe(200);
      for (const res of answers) expect(res.body).toMatchObject({ status: 'failed', code: 'SUPPRESSED_EMAIL', suppressionReason: 'unsubscribed' });
      expect(await state(org, email)).toBeNull();
      expect(erased.body.suppressionKept).toBe(true);
    }
  });

  it('erase racing creates and overwrites: the contact exists whole (with its lists) or not at all', async () => {
    const { org, list } = await Org.withList(app.t);
    for (let round = 0; round < 5; round++) {
      const email = uniqueEmail('whole');
      const writes = Array.from({ length: 6 }, (_, i) => org.postContact({ email, listIds: [list], overwrite: i % 2 === 0, fields: { city: `C${i}` } }));
      const results = await Promise.all([...writes.slice(0, 3), erase(org, email), ...writes.slice(3)]);
      for (const res of results) expect(res.status).toBeLessThan(500);
      const contact = await state(org, email);
      if (contact) expect(contact.memberships.map((m) => m.listId)).toEqual([list]);
      // No contact left without a list.
      expect(await app.t.prisma.contact.count({ where: { organizationId: org.id, memberships: { none: {} } } })).toBe(0);
      // Whatever stayed, a second erase removes it and leaves zeros after.
      expect((await erase(org, email)).status).toBe(200);
      expect(await state(org, email)).toBeNull();
      expect((await erase(org, email)).body).toMatchObject({ contactDeleted: false, storedAnswersErased: 0 });
    }
  });

  it('suppress racing creates: every create is created or SUPPRESSED_EMAIL, and the address ends suppressed', async () => {
    const { org, list } = await Org.withList(app.t);
    const emails = Array.from({ length: 10 }, () => uniqueEmail('sup'));
    const creates = emails.map((email) => org.postContact({ email, listIds: [list] }));
    const [suppressed, ...answers] = await Promise.all([suppressMany(org, emails.map((email) => ({ email, reason: 'bounced' }))), ...creates]);
    expect(suppressed.body.results.every((r: { status: string }) => r.status === 'suppressed')).toBe(true);
    for (const res of answers) expect([201, 409]).toContain(res.status);
    for (const [i, email] of emails.entries()) {
      const read = await org.read(email);
      if (answers[i].status === 201) expect(read?.suppressed).toEqual({ reason: 'bounced' });
      else expect(read).toBeNull();
    }
  });
});
