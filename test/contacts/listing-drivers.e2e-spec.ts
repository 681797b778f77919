import { ContactListingRepository, type ListingDriver, type ListingPageText, possibleDrivers } from '../../src/contacts/listing/contact-listing.repository';
import { type ListingFilters, type ListingQuery } from '../../src/contacts/listing/listing-query';
import { Org } from '../contract/helpers';
import { useTestApp } from '../utils/test-app';

/**
 * GET /api/v2/contacts reads a page through one of several walks (contact-listing.repository.ts:
 * every contact in email order, the list's members, the suppressions, or the `updatedSince`
 * matches gathered and sorted), chosen by cost. Each must give the same pages: here every walk
 * that can serve a filter combination pages through the same data, and each walk's contacts are
 * exactly those the filters select, in byte order, each once.
 */
describe('listing walks', () => {
  const app = useTestApp();
  let org: Org;
  let list: string;
  let other: string;
  let emails: string[];
  let since: Date;

  beforeAll(async () => {
    ({ org, list } = await Org.withList(app.t));
    other = await org.list('Other');
    // 60 contacts: every one in `list`, every third also in `other`; a few byte-order traps.
    emails = Array.from({ length: 60 }, (_, i) => `${['a', 'A', '_', '.', '9', 'z'][i % 6].toLowerCase()}${i}-x@example.com`);
    for (let i = 0; i < emails.length; i += 20) {
      const res = await org.batch(emails.slice(i, i + 20).map((email, j) => ({ email, listIds: (i + j) % 3 === 0 ? [list, other] : [list] })));
      expect(res.status).toBe(200);
    }
    // Every fourth suppressed, and a suppression of an address that is no contact.
    for (const [i, email] of emails.entries()) if (i % 4 === 0) await org.suppress(email);
    await org.suppress('not-a-contact@example.com');
    // The odd ones updated "long ago".
    since = new Date(Date.now() - 3_600_000);
    await app.t.prisma.$executeRaw`UPDATE contacts SET updated_at = now() - interval '2 days'
      WHERE organization_id = ${org.id} AND split_part(email, '-', 1) ~ '[13579]$'`;
  });

  const byteOrder = (values: string[]) => [...values].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

  /** What the filters select, from the database's own rows (independent of the walks). */
  async function expected(filters: ListingFilters): Promise<string[]> {
    const contacts = await app.t.prisma.contact.findMany({
      where: { organizationId: org.id },
      include: { memberships: { select: { listId: true } } },
    });
    const suppressed = new Set((await app.t.prisma.suppression.findMany({ where: { organizationId: org.id } })).map((s) => s.email));
    return byteOrder(
      contacts
        .filter((c) => filters.listId === null || c.memberships.some((m) => m.listId === filters.listId))
        .filter((c) => filters.suppressed === null || suppressed.has(c.email) === filters.suppressed)
        .filter((c) => filters.updatedSince === null || c.updatedAt >= filters.updatedSince)
        .map((c) => c.email),
    );
  }

  /** The page's contacts, as the answer's `contacts` array holds them (chunks of up to 100). */
  const emailsOf = (page: ListingPageText | null): string[] => {
    if (page === null) throw new Error('the page statement found no such list');
    expect(page.chunks.every((chunk) => (JSON.parse(`[${chunk}]`) as unknown[]).length <= 100)).toBe(true);
    return (JSON.parse(`[${page.chunks.join(',')}]`) as Array<{ email: string }>).map((c) => c.email);
  };

  async function walk(driver: ListingDriver, filters: ListingFilters, limit: number): Promise<string[]> {
    const repository = app.t.app.get(ContactListingRepository);
    const seen: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const query: ListingQuery = { limit, after, filters };
      const page = await repository.pageBy(driver, org.id, query);
      const contacts = emailsOf(page);
      seen.push(...contacts);
      if (!page?.more) return seen;
      expect(page.lastEmail).toBe(contacts.at(-1));
      after = page.lastEmail;
    }
    throw new Error('the walk did not end');
  }

  const combinations: Array<[string, () => ListingFilters]> = [];
  for (const listing of ['none', 'all', 'other'] as const) {
    for (const suppressed of [null, true, false]) {
      for (const updated of [false, true]) {
        combinations.push([
          `list ${listing}, suppressed ${String(suppressed)}, updatedSince ${updated ? 'an hour ago' : 'none'}`,
          () => ({ listId: listing === 'none' ? null : listing === 'all' ? list : other, suppressed, updatedSince: updated ? since : null }),
        ]);
      }
    }
  }

  it.each(combinations)('%s: every walk that can serve it pages through exactly the selected contacts', async (_name, filtersOf) => {
    const filters = filtersOf();
    const want = await expected(filters);
    expect(want.length).toBeGreaterThan(0);
    for (const driver of possibleDrivers(filters)) {
      for (const limit of [7, 1000]) {
        expect({ driver, limit, emails: await walk(driver, filters, limit) }).toEqual({ driver, limit, emails: want });
      }
    }
  });

  it('every walk given a list checks it: another organization\'s list (with members) or an unknown id is no page; an empty list of ours is an empty page', async () => {
    const repository = app.t.app.get(ContactListingRepository);
    const { org: owner, list: foreign } = await Org.withList(app.t);
    // The same emails as ours in the other organization, so that a walk of its list would find them.
    expect((await owner.batch(emails.slice(0, 20).map((email) => ({ email, listIds: [foreign] })))).status).toBe(200);
    const empty = await org.list('Empty');
    for (const suppressed of [null, true, false]) {
      for (const updatedSince of [null, since]) {
        for (const driver of possibleDrivers({ listId: foreign, suppressed, updatedSince })) {
          const at = { driver, suppressed, updatedSince };
          for (const listId of [foreign, '00000000-0000-4000-8000-000000000000']) {
            const query: ListingQuery = { limit: 1000, after: null, filters: { listId, suppressed, updatedSince } };
            expect({ ...at, page: await repository.pageBy(driver, org.id, query) }).toEqual({ ...at, page: null });
          }
          const query: ListingQuery = { limit: 1000, after: null, filters: { listId: empty, suppressed, updatedSince } };
          expect({ ...at, page: await repository.pageBy(driver, org.id, query) }).toEqual({ ...at, page: { chunks: [], more: false, lastEmail: null } });
        }
        const filters = { listId: foreign, suppressed, updatedSince };
        expect(await repository.page(org.id, { limit: 1000, after: null, filters })).toBeNull();
      }
    }
  });

  it('the page a request gets (the walk chosen by cost) is the same', async () => {
    const repository = app.t.app.get(ContactListingRepository);
    const filters: ListingFilters = { listId: other, suppressed: true, updatedSince: since };
    const page = await repository.page(org.id, { limit: 1000, after: null, filters });
    expect(emailsOf(page)).toEqual(await expected(filters));
  });
});
