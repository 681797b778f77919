import { Client } from 'pg';
import type { SqlClient, Statement } from '../database/statements';
import type { Database } from '../database/database';
import { emptyStandardValues, type StandardValues } from './contact-rules';
import { type ContactChanges, ContactsRepository } from './contacts.repository';
import { STANDARD_FIELD_COLUMNS } from './contacts.statements';

/** Texts the array syntax would misread if they were written bare. */
const AWKWARD = ['', 'NULL', 'null', 'a b', 'a,b', '{x}', 'say "hi"', 'back\\slash', ' lead', 'é ü 漢'];

const standard = (values: Partial<StandardValues>): StandardValues => ({ ...emptyStandardValues(), ...values });

/** The values the contacts write is sent for `changes` (the statement itself is faked). */
async function writeValuesOf(changes: ContactChanges): Promise<unknown[]> {
  let sent: unknown[] = [];
  const tx: SqlClient = {
    query: (statement: string | Statement) => {
      sent = (statement as Statement).values ?? [];
      return Promise.resolve({ rows: [{ inserted: changes.creates.length }] as never[] });
    },
  };
  await new ContactsRepository({} as Database).writeChanges(tx, 'org-1', changes);
  return sent;
}

describe('ContactsRepository.writeChanges: the write statement values', () => {
  const changes: ContactChanges = {
    creates: [
      { id: 'c1', email: 'a@example.com', standard: standard({ firstName: 'NULL', city: 'a b' }), custom: new Map<string, unknown>([['plan', 'pro, "x"']]) },
      { id: 'c2', email: 'b@example.com', standard: standard({ lastName: 'back\\slash', company: '{x}' }), custom: new Map() },
    ],
    updates: [{ id: 'u1', email: 'u@example.com', standard: standard({ phone: '' }), custom: new Map<string, unknown>([['seats', 3]]) }],
    memberships: [
      { contactId: 'c1', listId: 'l1', newContact: true, email: 'a@example.com' },
      { contactId: 'u1', listId: 'l 2', newContact: false, email: 'u@example.com' },
    ],
    requestId: 'req-1',
    events: [],
    sources: [
      { contactId: 'c1', listIds: ['l1'], suppressionReason: null },
      { contactId: 'c2', listIds: [], suppressionReason: 'bounced' },
      { contactId: 'u1', listIds: ['l0', 'l 2'], suppressionReason: null },
    ],
    eventsAt: new Date(0),
    answer: null,
  };

  // pg serializes JS arrays itself: every array parameter is a JS array, none a literal written by hand.
  it('sends each array parameter as a JS array', async () => {
    const values = await writeValuesOf(changes);
    // Created: ids, emails, standard columns, custom; updated: the same less emails; 4 of memberships;
    // 5 of the contacts' list ids and suppressions; 6 of events.
    const arrays = 2 + STANDARD_FIELD_COLUMNS.length + 1 + 1 + STANDARD_FIELD_COLUMNS.length + 1 + 4 + 5 + 6;
    expect(values.filter((value) => Array.isArray(value))).toHaveLength(arrays);
  });

  it('PostgreSQL reads each array parameter back as the values it held, awkward texts and NULLs included', async () => {
    const awkward: ContactChanges = {
      ...changes,
      creates: AWKWARD.map((text, i) => ({
        id: `c${i}`,
        email: `${text}@example.com`,
        standard: standard({ firstName: text, country: i % 2 ? null : text }),
        custom: new Map<string, unknown>([['k', text]]),
      })),
    };
    const values = await writeValuesOf(awkward);
    const client = new Client({ connectionString: process.env.TEST_PG_SERVER_URL });
    await client.connect();
    const read = async (value: unknown, type = 'text[]') => (await client.query<{ v: unknown }>(`SELECT $1::${type} AS v`, [value])).rows[0].v;
    try {
      // In the statement's order: organization, created ids, emails, standard columns, custom, ...
      const created = awkward.creates;
      expect(await read(values[1])).toEqual(created.map((row) => row.id));
      expect(await read(values[2])).toEqual(created.map((row) => row.email));
      for (const [index, [key]] of STANDARD_FIELD_COLUMNS.entries()) {
        expect(await read(values[3 + index])).toEqual(created.map((row) => row.standard[key]));
      }
      const custom = 3 + STANDARD_FIELD_COLUMNS.length;
      expect(await read(values[custom])).toEqual(created.map((row) => JSON.stringify(Object.fromEntries(row.custom))));
      const updated = custom + 1;
      expect(await read(values[updated])).toEqual(['u1']);
      expect(await read(values[updated + 1 + 2])).toEqual(['']);
      const memberships = updated + 1 + STANDARD_FIELD_COLUMNS.length + 1;
      expect(await read(values[memberships])).toEqual(['c1', 'u1']);
      expect(await read(values[memberships + 1])).toEqual(['l1', 'l 2']);
      expect(await read(values[memberships + 2], 'boolean[]')).toEqual([true, false]);
      expect(await read(values[memberships + 3])).toEqual(['a@example.com', 'u@example.com']);
      // Then every list id of the written contacts, and per contact its id, its slice of them and its suppression.
      const sources = memberships + 4;
      expect(await read(values[sources])).toEqual(['l1', 'l0', 'l 2']);
      expect(await read(values[sources + 1])).toEqual(['c1', 'c2', 'u1']);
      expect(await read(values[sources + 2], 'int[]')).toEqual([1, 2, 2]);
      expect(await read(values[sources + 3], 'int[]')).toEqual([1, 1, 3]);
      expect(await read(values[sources + 4])).toEqual([null, 'bounced', null]);
      // Then the events: request id, time and their six arrays (event-writes.ts).
      expect(values).toHaveLength(sources + 5 + 8);
    } finally {
      await client.end();
    }
  });
});
