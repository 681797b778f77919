import { createCustomField } from '../utils/fixtures';
import { ROOM_FOR_LOAD, useTestApp } from '../utils/test-app';
import { contactCount } from './contacts-helpers';
import { Org } from '../contract/helpers';

/**
 * Concurrent requests on the same emails: the database keeps one contact per email, and every
 * request gets a contract answer (never 500).
 */
describe('contacts pipeline under concurrency', () => {
  // Many requests racing on the same emails through a pool of 10: under CI's load their lock and pool
  // waits can pass the default time-outs (a 503 where the race is what is tested): ROOM_FOR_LOAD.
  const app = useTestApp(ROOM_FOR_LOAD);

  it('10 concurrent creates of one email: exactly one 201, the rest 409 DUPLICATE_EMAIL, one row', async () => {
    const c = await Org.withList(app.t);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => c.org.postContact({ email: 'race@example.com', listIds: [c.list], fields: { city: `C${i}` } })),
    );
    const answers = responses.map((res) => [res.status, res.body.status === 'failed' ? res.body.code : res.body.status]);
    expect(answers.filter(([status]) => status === 201)).toEqual([[201, 'created']]);
    expect(answers.filter(([status]) => status !== 201)).toEqual(Array(9).fill([409, 'DUPLICATE_EMAIL']));
    expect(await contactCount(app.t, c.org.id)).toBe(1);
  });

  it('concurrent overwrites of one email: created once, then updated or unchanged, never 500', async () => {
    const c = await Org.withList(app.t);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        c.org.postContact({ email: 'over@example.com', listIds: [c.list], overwrite: true, fields: { city: i % 2 ? 'Odd' : 'Even' } }),
      ),
    );
    const statuses = responses.map((res) => res.body.status as string);
    expect(responses.every((res) => res.status === 200 || res.status === 201)).toBe(true);
    expect(statuses.filter((s) => s === 'created')).toHaveLength(1);
    expect(statuses.every((s) => ['created', 'updated', 'unchanged'].includes(s))).toBe(true);
    expect(await contactCount(app.t, c.org.id)).toBe(1);
    const ids = new Set(responses.map((res) => res.body.id));
    expect(ids.size).toBe(1);
  });

  it('concurrent overwrites of different fields of one contact all persist (no lost update)', async () => {
    const c = await Org.withList(app.t);
    const keys = Array.from({ length: 10 }, (_, i) => `f${i}`);
    for (const key of keys) await createCustomField(app.t.prisma, c.org.id, { key, type: 'text' });
    await c.org.postContact({ email: 'merge@example.com', listIds: [c.list] }).expect(201);

    const responses = await Promise.all(
      keys.map((key) => c.org.postContact({ email: 'merge@example.com', listIds: [c.list], overwrite: true, fields: { [key]: key } })),
    );
    expect(responses.map((res) => [res.status, res.body.status])).toEqual(keys.map(() => [200, 'updated']));
    const read = await c.org.getContact('merge@example.com');
    expect(read.body.contact.fields).toEqual(Object.fromEntries(keys.map((key) => [key, key])));
  });

  it('concurrent batches overlapping in emails, in opposite orders: each email created once, no 500', async () => {
    const c = await Org.withList(app.t);
    const shared = Array.from({ length: 20 }, (_, i) => `shared${i}@example.com`);
    const batchOf = (list: string[], overwrite: boolean) => ({ contacts: list.map((email) => ({ email, listIds: [c.list], overwrite })) });
    const requests = Array.from({ length: 8 }, (_, i) => {
      const order = i % 2 ? [...shared].reverse() : shared;
      return c.org.postBatch(batchOf([...order, `own${i}@example.com`], i % 4 === 0));
    });
    const responses = await Promise.all(requests);
    expect(responses.map((res) => res.status)).toEqual(Array(8).fill(200));

    for (const email of shared) {
      const outcomes = responses.map((res) => {
        const row = (res.body.results as Array<{ email: string; status: string; code?: string }>).find((r) => r.email === email);
        return row?.code ?? row?.status;
      });
      expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
      expect(outcomes.every((o) => ['created', 'unchanged', 'DUPLICATE_EMAIL'].includes(o as string))).toBe(true);
    }
    expect(await contactCount(app.t, c.org.id)).toBe(shared.length + 8);
    expect(await app.t.prisma.listMembership.count({ where: { contact: { organizationId: c.org.id } } })).toBe(shared.length + 8);
  });
});
