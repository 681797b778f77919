import { bootApp, expectFailure, expectRequestError, expectSuccess, Org, uniqueEmail } from './helpers';
import { erase, suppressMany } from './lifecycle-helpers';

/** docs/api.md, "Erasing a contact": black-box, HTTP only (fixtures aside). */
describe('POST /api/v2/contacts/{email}/erase', () => {
  const app = bootApp();
  let org: Org;
  let list: string;
  beforeEach(async () => ({ org, list } = await Org.withList(app.t)));

  const zeros = { status: 'erased', contactDeleted: false, suppressionKept: false, storedAnswersErased: 0, eventsRedacted: 0, importRowsErased: 0 };

  it('erases a contact and every stored answer holding it; a later create is created again', async () => {
    const email = uniqueEmail('erase');
    const created = await org.postContact({ email, listIds: [list], fields: { firstName: 'Ada' } });
    expectSuccess(created, 'created', email);
    const other = uniqueEmail('other');
    const batch = await org.batch([{ email: other, listIds: [list] }, { email: email.toUpperCase(), listIds: [list], overwrite: true, fields: { city: 'Oslo' } }]);
    expect(batch.status).toBe(200);
    const res = await erase(org, ` ${email.toUpperCase()} `);
    expect(res.status).toBe(200);
    // Its two events (contact.created, contact.updated) stay in the feed without the address.
    expect(res.body).toEqual({ request_id: res.headers['x-request-id'], ...zeros, contactDeleted: true, storedAnswersErased: 2, eventsRedacted: 2 });
    expect(await org.read(email)).toBeNull();
    // Both stored answers are gone, also the batch's that held another address.
    expect((await org.get(`/api/v2/requests/${created.body.request_id}`)).status).toBe(404);
    expect((await org.get(`/api/v2/requests/${batch.body.request_id}`)).status).toBe(404);
    // The other address is untouched.
    expect((await org.read(other))?.email).toBe(other);
    expectSuccess(await org.postContact({ email, listIds: [list] }), 'created', email);
  });

  it('keeps a suppression as a hash: a later create is SUPPRESSED_EMAIL with the reason kept', async () => {
    const email = uniqueEmail('suppressed');
    expectSuccess(await org.postContact({ email, listIds: [list] }), 'created', email);
    expect((await suppressMany(org, [{ email, reason: 'unsubscribed' }])).body.results[0].status).toBe('suppressed');
    const res = await erase(org, email);
    expect(res.body).toMatchObject({ contactDeleted: true, suppressionKept: true });
    expectFailure(await org.postContact({ email, listIds: [list] }), 'SUPPRESSED_EMAIL', email, { suppressionReason: 'unsubscribed' });
    const batch = await org.batch([{ email, listIds: [list] }]);
    expect(batch.body.results[0]).toMatchObject({ code: 'SUPPRESSED_EMAIL', suppressionReason: 'unsubscribed' });
    // Not listed (its address is stored nowhere), but suppressing again keeps the reason.
    expect((await org.get('/api/v2/suppressions')).body.suppressions.map((s: { email: string }) => s.email)).not.toContain(email);
    expect((await suppressMany(org, [{ email, reason: 'bounced' }])).body.results[0]).toMatchObject({ status: 'unchanged', reason: 'unsubscribed' });
  });

  it('with overwrite: true an erased, suppressed address is created and stays suppressed', async () => {
    const email = uniqueEmail('again');
    await suppressMany(org, [{ email, reason: 'bounced' }]);
    expect((await erase(org, email)).body).toMatchObject({ contactDeleted: false, suppressionKept: true });
    expectSuccess(await org.postContact({ email, listIds: [list], overwrite: true }), 'created', email);
    expect((await org.read(email))?.suppressed).toEqual({ reason: 'bounced' });
    expect((await org.get('/api/v2/suppressions?reason=bounced')).body.suppressions).toEqual([{ email, reason: 'bounced', createdAt: expect.any(String) }]);
  });

  it('an address never seen is 200 with zeros, repeatably; an invalid one too', async () => {
    for (const email of [uniqueEmail('never'), uniqueEmail('never'), 'not an email', '%']) {
      const res = await erase(org, email);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ request_id: res.headers['x-request-id'], ...zeros });
    }
    const email = uniqueEmail('twice');
    await org.postContact({ email, listIds: [list] });
    expect((await erase(org, email)).body.contactDeleted).toBe(true);
    expect((await erase(org, email)).body).toMatchObject(zeros);
  });

  it('erases an invalid address from the stored answers that echoed it', async () => {
    const bad = 'Not-An@Address';
    const res = await org.postContact({ email: bad, listIds: [list] });
    expectFailure(res, 'INVALID_EMAIL', 'not-an@address');
    expect((await erase(org, bad)).body).toMatchObject({ storedAnswersErased: 1 });
    expect((await org.get(`/api/v2/requests/${res.body.request_id}`)).status).toBe(404);
  });

  it('takes no body: none, empty or {} are accepted, anything else is 400', async () => {
    expect((await erase(org, uniqueEmail())).status).toBe(200);
    expect((await erase(org, uniqueEmail(), '')).status).toBe(200);
    expect((await erase(org, uniqueEmail(), '{}')).status).toBe(200);
    expect((await erase(org, uniqueEmail(), ' { } ')).status).toBe(200);
    const email = uniqueEmail('kept');
    await org.postContact({ email, listIds: [list] });
    for (const body of ['{"x":1}', '[]', 'null', '{', '"a"']) expectRequestError(await erase(org, email, body), 400, 'INVALID_REQUEST');
    expectRequestError(await erase(org, email, '{}', 'text/plain'), 400, 'INVALID_REQUEST');
    // Nothing was erased by the refused requests.
    expect((await org.read(email))?.email).toBe(email);
  });

  it('another organization’s address is not touched', async () => {
    const { org: other, list: otherList } = await Org.withList(app.t);
    const email = uniqueEmail('shared');
    await other.postContact({ email, listIds: [otherList] });
    expect((await erase(org, email)).body).toMatchObject(zeros);
    expect((await other.read(email))?.email).toBe(email);
  });

  it('needs the API key', async () => {
    const res = await app.t.http().post(`/api/v2/contacts/${encodeURIComponent(uniqueEmail())}/erase`);
    expectRequestError(res, 401, 'INVALID_API_KEY');
  });
});
