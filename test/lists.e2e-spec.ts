import { createList, createOrganization } from './utils/fixtures';
import { createTestApp, type TestApp } from './utils/test-app';

describe('GET /api/v2/lists', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("returns the caller's lists, archived included, and none of another organization's", async () => {
    const org = await createOrganization(t.prisma);
    const other = await createOrganization(t.prisma);
    const news = await createList(t.prisma, org.id, 'News');
    const old = await createList(t.prisma, org.id, 'Old', true);
    await createList(t.prisma, other.id, 'Theirs');

    const res = await t.http().get('/api/v2/lists').set('Authorization', `Bearer ${org.apiKey}`).expect(200);

    expect(res.body).toEqual({
      request_id: res.headers['x-request-id'],
      lists: [
        { id: news.id, name: 'News', archived: false },
        { id: old.id, name: 'Old', archived: true },
      ],
    });
  });
});
