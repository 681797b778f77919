import { randomUUID } from 'node:crypto';
import { BATCH, contactRow, freshEmail, nextSequence, type Fixtures, type OverwriteEmails } from './fixtures';

/** What one request of a load scenario sends (made anew for each request) and how many contacts it carries. */
export interface Made {
  path: string;
  body: Record<string, unknown>;
  contacts: number;
}
export type NextRequest = () => Made;

/** 50 new contacts, 2 lists, 4 fields (2 standard, 2 custom). */
export function batchCreate(fx: Fixtures): NextRequest {
  return () => ({
    path: '/api/v2/contacts/batch',
    body: { contacts: Array.from({ length: BATCH }, () => contactRow(freshEmail('bc'), fx)) },
    contacts: BATCH,
  });
}

/** 50 existing contacts, overwrite: true; the first half changes (a new city each time), the second half sends what is stored. */
export function batchOverwrite(fx: Fixtures, emails: OverwriteEmails): NextRequest {
  let turn = 0;
  const half = BATCH / 2;
  return () => {
    const k = turn++ % (emails.changing.length / half);
    const changing = emails.changing.slice(k * half, (k + 1) * half);
    const stable = emails.stable.slice(k * half, (k + 1) * half);
    return {
      path: '/api/v2/contacts/batch',
      body: {
        contacts: [
          ...changing.map((email) => contactRow(email, fx, `City ${nextSequence()}`, true)),
          ...stable.map((email) => contactRow(email, fx, 'Oslo', true)),
        ],
      },
      contacts: BATCH,
    };
  };
}

/** Like batchCreate with 10% of the rows failing per-contact rules (an unknown list, a wrong type). */
export function batchMixed(fx: Fixtures): NextRequest {
  return () => ({
    path: '/api/v2/contacts/batch',
    body: {
      contacts: Array.from({ length: BATCH }, (_, i) => {
        const contact = contactRow(freshEmail('bm'), fx);
        if (i % 20 === 3) contact.listIds = [randomUUID()];
        if (i % 20 === 13) contact.fields = { seats: 'many' };
        return contact;
      }),
    },
    contacts: BATCH,
  });
}

/** POST /contacts of one new contact. */
export function singleCreate(fx: Fixtures): NextRequest {
  return () => ({ path: '/api/v2/contacts', body: contactRow(freshEmail('sc'), fx), contacts: 1 });
}

/** POST /contacts of an existing contact sent as stored, overwrite: true. */
export function singleUnchanged(fx: Fixtures, emails: OverwriteEmails): NextRequest {
  let turn = 0;
  return () => ({ path: '/api/v2/contacts', body: contactRow(emails.stable[turn++ % emails.stable.length], fx, 'Oslo', true), contacts: 1 });
}
