import { createList, createOrganization } from '../utils/fixtures';
import { useTestApp } from '../utils/test-app';

describe('GET /api/v2/lists', () => {
  const app = useTestApp();

  it("returns the caller's lists, archived included, and none of another organization's", async () => {
    const org = await createOrganization(app.t.prisma);
    const other = await createOrganization(app.t.prisma);
    const news = await createList(app.t.prisma, org.id, 'News');
    const old = await createList(app.t.prisma, org.id, 'Old', true);
    await createList(app.t.prisma, other.id, 'Theirs');

    const res = await app.t.http().get('/api/v2/lists').set('Authorization', `Bearer ${org.apiKey}`).expect(200);

    expect(res.body).toEqual({
      request_id: res.headers['x-request-id'],
      lists: [
        { id: news.id, name: 'News', archived: false },
        { id: old.id, name: 'Old', archived: true },
      ],
    });
  });
});
