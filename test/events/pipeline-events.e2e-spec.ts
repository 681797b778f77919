import { Org, bootApp, uniqueEmail } from '../contract/helpers';

/**
 * The POST pipeline's events, read from the events table (the feed's own tests are in
 * test/contract/events.e2e-spec.ts): written by the pipeline's write statement, one per created or
 * updated contact, `data.contact` equal to what GET /contacts/{email} answers after the change.
 */
describe('events of the POST pipeline', () => {
  const app = bootApp();
  let org: Org;
  let list: string;
  beforeEach(async () => {
    ({ org, list } = await Org.withList(app.t, [{ key: 'score', type: 'number' }]));
  });
  const eventsOf = async (organizationId: string) =>
    (
      await app.t.prisma.event.findMany({ where: { organizationId }, orderBy: { seq: 'asc' } })
    ).map((event) => ({ type: event.type, requestId: event.requestId, contactId: event.contactId, email: event.email, data: (JSON.parse(event.body) as { data: Record<string, unknown> }).data }));

  it('a create writes contact.created with the contact as GET shows it, its request id, contact id and email', async () => {
    const email = uniqueEmail();
    const res = await org.postContact({ email: email.toUpperCase(), listIds: [list], fields: { firstName: 'Ada', score: 3 } });
    expect(res.status).toBe(201);
    const [event, ...rest] = await eventsOf(org.id);
    expect(rest).toEqual([]);
    expect(event).toEqual({
      type: 'contact.created',
      requestId: res.body.request_id,
      contactId: res.body.id,
      email,
      data: { contact: await org.read(email) },
    });
  });

  it('an update writes contact.updated with changedFields, addedListIds and the contact after the change', async () => {
    const email = uniqueEmail();
    const second = await org.list('Second');
    const third = await org.list('Third');
    expect((await org.postContact({ email, listIds: [list], fields: { firstName: 'Ada' } })).status).toBe(201);
    const res = await org.postContact({ email, listIds: [third, list, second], fields: { lastName: 'L', score: 1 }, overwrite: true });
    expect(res.status).toBe(200);
    const events = await eventsOf(org.id);
    expect(events.map((event) => event.type)).toEqual(['contact.created', 'contact.updated']);
    const after = await org.read(email);
    expect(events[1]).toEqual({
      type: 'contact.updated',
      requestId: res.body.request_id,
      contactId: after!.id,
      email,
      data: { contact: after, changedFields: ['lastName', 'score'], addedListIds: [third, second] },
    });
  });

  it('a batch writes one event per created or updated row, in row order, and none for unchanged or failed rows', async () => {
    const [a, b, c, d] = [uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('c'), uniqueEmail('d')];
    expect((await org.batch([{ email: a, listIds: [list] }, { email: b, listIds: [list] }])).status).toBe(200);
    const res = await org.batch([
      { email: c, listIds: [list] },
      { email: a, listIds: [list], overwrite: true }, // unchanged
      { email: b, listIds: [list], fields: { firstName: 'B' }, overwrite: true }, // updated
      { email: 'not an email', listIds: [list] }, // failed
      { email: d, listIds: ['no-such-list'] }, // failed
    ]);
    expect(res.body.summary).toEqual({ created: 1, updated: 1, unchanged: 1, failed: 2 });
    const events = (await eventsOf(org.id)).filter((event) => event.requestId === res.body.request_id);
    expect(events.map((event) => [event.type, event.email])).toEqual([
      ['contact.created', c],
      ['contact.updated', b],
    ]);
    expect(events[0].data).toEqual({ contact: await org.read(c) });
    expect(events[1].data).toEqual({ contact: await org.read(b), changedFields: ['firstName'], addedListIds: [] });
  });

  it('a dry run, an unchanged contact and a failed one write no event', async () => {
    const email = uniqueEmail();
    expect((await org.postContact({ email, listIds: [list] }, { dryRun: true })).status).toBe(201);
    expect((await org.postContact({ email, listIds: ['no-such-list'] })).status).toBe(400);
    expect(await eventsOf(org.id)).toEqual([]);
    expect((await org.postContact({ email, listIds: [list] })).status).toBe(201);
    expect((await org.postContact({ email, listIds: [list], overwrite: true })).status).toBe(200);
    expect((await org.postContact({ email, listIds: [list], fields: { firstName: 'X' }, overwrite: true }, { dryRun: true })).status).toBe(200);
    expect((await eventsOf(org.id)).map((event) => event.type)).toEqual(['contact.created']);
  });

  it('a create of a suppressed address with overwrite shows the suppression in data.contact', async () => {
    const email = uniqueEmail();
    await org.suppress(email, 'unsubscribed');
    expect((await org.postContact({ email, listIds: [list], overwrite: true })).status).toBe(201);
    const [event] = await eventsOf(org.id);
    expect((event.data.contact as { suppressed: unknown }).suppressed).toEqual({ reason: 'unsubscribed' });
    expect(event.data).toEqual({ contact: await org.read(email) });
  });
});
