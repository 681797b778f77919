import { createOrgWith } from '../utils/fixtures';
import type { TestApp } from '../utils/test-app';

/** An organization with an API key and one active list, and request helpers bound to its key. */
export async function setUpCaller(t: TestApp) {
  const { lists, ...org } = await createOrgWith(t.prisma, { lists: ['Main'] });
  const list = lists[0];
  const auth = { Authorization: `Bearer ${org.apiKey}` };
  return {
    org,
    list,
    postContact: (body: unknown, query = '') => t.http().post(`/api/v2/contacts${query}`).set(auth).send(body as object),
    postBatch: (body: unknown, query = '') => t.http().post(`/api/v2/contacts/batch${query}`).set(auth).send(body as object),
    getContact: (email: string) => t.http().get(`/api/v2/contacts/${encodeURIComponent(email)}`).set(auth),
    getPath: (path: string) => t.http().get(path).set(auth),
  };
}

export async function contactCount(t: TestApp, organizationId: string): Promise<number> {
  return t.prisma.contact.count({ where: { organizationId } });
}

export async function membershipCount(t: TestApp, organizationId: string): Promise<number> {
  return t.prisma.listMembership.count({ where: { contact: { organizationId } } });
}
