/**
 * Black-box helpers for the contract suite. Everything goes through HTTP except fixture setup
 * (organizations, keys, lists, custom fields, suppressions), which the contract leaves to the admin CLI.
 */
import type { Scope } from '../../src/auth/scope-names';
import type { CustomFieldType, SuppressionReason } from '../../src/generated/prisma/client';
import { createApiKey, createCustomField, createList, createOrgWith, type CustomFieldSpec, suppress } from '../utils/fixtures';
import { rawPostJson } from '../utils/net';
import { type TestApp, useTestApp } from '../utils/test-app';

/** What the assertions need of a response (supertest's Response, or rawPost's). */
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are checked by value, not by type */
export interface Res {
  status: number;
  body: any;
  headers: Record<string, any>;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Boots one app for the file. The per-IP limit is lifted: every request of the suite comes from 127.0.0.1.
 * `env` adds to it (e.g. ROOM_FOR_LOAD, test/utils/test-app.ts).
 */
export const bootApp = (env: Record<string, string> = {}): { t: TestApp } =>
  useTestApp({ IP_RATE_LIMIT: '1000000', ORG_RATE_LIMIT: '100000', ...env });

/**
 * bootApp() and, before each test, a fresh organization with its key and a list "Main" (Org.withList):
 * the setup most contract tests start from. Inside tests read `ctx.org`, `ctx.list` and `ctx.t`.
 */
export function useOrgWithList(): { readonly t: TestApp; readonly org: Org; readonly list: string } {
  const app = bootApp();
  let current: { org: Org; list: string } | undefined;
  beforeEach(async () => {
    current = await Org.withList(app.t);
  });
  return {
    get t() {
      return app.t;
    },
    get org() {
      return current!.org;
    },
    get list() {
      return current!.list;
    },
  };
}

export type FieldType = CustomFieldType;
export type Reason = SuppressionReason;

let counter = 0;
/**
 * Custom fields of every type, with keys out of order and quotes in a select option: what the tests
 * of a contact's rendering (JSON text, listing pages) store their awkward values in.
 */
export const AWKWARD_FIELDS: CustomFieldSpec[] = [
  { key: 'note', type: 'text' },
  { key: 'score', type: 'number' },
  { key: 'ratio', type: 'number' },
  { key: 'vip', type: 'boolean' },
  { key: 'born', type: 'date' },
  { key: 'tier', type: 'select', options: ['gold', 'silver "2"'] },
  { key: 'z', type: 'text' },
  { key: 'a_longer_key_name', type: 'text' },
];

/** Values of AWKWARD_FIELDS and of standard fields that JSON must escape: quotes, backslashes, control and line-separator characters, astral code points. */
export const AWKWARD_VALUES = {
  firstName: 'say "hi", then: {go}',
  lastName: 'back\\slash / and \\"',
  phone: '\u0001\u001f\b\f\n\r\t\u007f',
  company: '',
  city: 'café 漢字 😀 \u2028\u2029',
  note: '{"not": "json"}, [1, 2]',
  vip: false,
  born: '1999-12-31',
  tier: 'silver "2"',
  z: 'last?',
  a_longer_key_name: 'é',
};

/** A fresh, valid, lower-case email. */
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}${counter}.${Date.now().toString(36)}@example.com`;
}

export interface StoredContact {
  id: string;
  email: string;
  listIds: string[];
  fields: Record<string, unknown>;
  suppressed: { reason: string } | null;
  createdAt: string;
  updatedAt: string;
}

export class Org {
  constructor(
    readonly t: TestApp,
    readonly id: string,
    readonly key: string,
  ) {}

  static async create(t: TestApp, name = 'Contract org'): Promise<Org> {
    return (await Org.withLists(t, [], [], name)).org;
  }

  /** The setup most tests start from: a fresh organization with a list named "Main" and the custom fields given. */
  static async withList(t: TestApp, fields: CustomFieldSpec[] = []): Promise<{ org: Org; list: string }> {
    const { org, lists } = await Org.withLists(t, ['Main'], fields);
    return { org, list: lists[0] };
  }

  private static async withLists(t: TestApp, lists: string[], fields: CustomFieldSpec[] = [], name = 'Contract org') {
    const o = await createOrgWith(t.prisma, { name, lists, fields });
    return { org: new Org(t, o.id, o.apiKey), lists: o.lists.map((list) => list.id) };
  }

  async newKey(options: { expiresAt?: Date; revokedAt?: Date; scope?: Scope } = {}): Promise<string> {
    return (await createApiKey(this.t.prisma, this.id, options)).key;
  }

  async list(name = 'List', archived = false): Promise<string> {
    return (await createList(this.t.prisma, this.id, name, archived)).id;
  }

  async lists(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(await this.list(`List ${i}`));
    return ids;
  }

  async field(
    key: string,
    type: FieldType,
    options: { required?: boolean; defaultValue?: unknown; options?: string[] } = {},
  ): Promise<void> {
    await createCustomField(this.t.prisma, this.id, { key, type, ...options });
  }

  async suppress(email: string, reason: Reason = 'bounced'): Promise<void> {
    await suppress(this.t.prisma, this.id, email, reason);
  }

  /** A contact row written straight to the database (only for states the API cannot produce). */
  async rawContact(email: string): Promise<void> {
    await this.t.prisma.contact.create({ data: { organizationId: this.id, email } });
  }

  postContact(body: unknown, opts: { dryRun?: boolean } = {}) {
    return this.postRaw(`/api/v2/contacts${opts.dryRun ? '?dryRun=true' : ''}`, JSON.stringify(body));
  }

  postBatch(body: unknown, opts: { dryRun?: boolean } = {}) {
    return this.postRaw(`/api/v2/contacts/batch${opts.dryRun ? '?dryRun=true' : ''}`, JSON.stringify(body));
  }

  /** Batch with the contract's wrapper. */
  batch(contacts: unknown[], opts: { dryRun?: boolean } = {}) {
    return this.postBatch({ contacts }, opts);
  }

  /** Bytes sent exactly as given (supertest would JSON-serialize a Buffer). */
  postBytes(path: string, bytes: Buffer, headers: Record<string, string> = {}): Promise<Res> {
    return rawPostJson(this.t, path, bytes, { Authorization: `Bearer ${this.key}`, 'Content-Type': 'application/json', ...headers });
  }

  postRaw(path: string, raw: string, contentType = 'application/json') {
    return this.t.http().post(path).set('Authorization', `Bearer ${this.key}`).set('Content-Type', contentType).send(raw);
  }

  getContact(email: string) {
    return this.get(`/api/v2/contacts/${encodeURIComponent(email)}`);
  }

  get(path: string) {
    return this.t.http().get(path).set('Authorization', `Bearer ${this.key}`);
  }

  /** The stored contact, or null when GET answers 404. */
  async read(email: string): Promise<StoredContact | null> {
    const res = await this.getContact(email);
    if (res.status === 404) return null;
    expect(res.status).toBe(200);
    return res.body.contact;
  }
}

function view(res: Res) {
  return { status: res.status, body: res.body };
}

/** Request-level error: `{ request_id, error: { code, message } }`, request_id = X-Request-Id. */
export function expectRequestError(res: Res, status: number, code: string): void {
  expect(view(res)).toEqual({
    status,
    body: { request_id: res.headers['x-request-id'], error: { code, message: expect.any(String) } },
  });
  expect(res.headers['x-request-id']).toMatch(UUID_RE);
}

/** Per-contact failure on POST /contacts: the result is the whole body. */
export function expectFailure(
  res: Res,
  code: string,
  email: string | null,
  extra: Record<string, unknown> = {},
  opts: { dryRun?: boolean } = {},
): void {
  const status = code === 'DUPLICATE_EMAIL' || code === 'SUPPRESSED_EMAIL' ? 409 : 400;
  expect(view(res)).toEqual({
    status,
    body: {
      request_id: res.headers['x-request-id'],
      email,
      status: 'failed',
      code,
      message: expect.any(String),
      ...extra,
      ...(opts.dryRun ? { dryRun: true } : {}),
    },
  });
  expect(res.headers['x-request-id']).toMatch(UUID_RE);
}

/** Success on POST /contacts. Returns the id. */
export function expectSuccess(
  res: Res,
  status: 'created' | 'updated' | 'unchanged',
  email: string,
  extra: Record<string, unknown> = {},
): string {
  expect(view(res)).toEqual({
    status: status === 'created' ? 201 : 200,
    body: { request_id: res.headers['x-request-id'], id: expect.any(String), email, status, ...extra },
  });
  return res.body.id;
}

/** A batch row on failure. */
export function failedRow(index: number, code: string, email: string | null, extra: Record<string, unknown> = {}) {
  return { index, email, status: 'failed', code, message: expect.any(String), ...extra };
}

/** A batch row on success. */
export function okRow(index: number, status: 'created' | 'updated' | 'unchanged', email: string, extra: Record<string, unknown> = {}) {
  return { index, email, status, id: expect.any(String), ...extra };
}

/** Full batch body check. Summary is computed from the expected rows. */
export function expectBatch(res: Res, rows: Array<Record<string, unknown>>, opts: { dryRun?: boolean } = {}): void {
  const summary = { created: 0, updated: 0, unchanged: 0, failed: 0 };
  for (const r of rows) summary[r.status as keyof typeof summary] += 1;
  expect(view(res)).toEqual({
    status: 200,
    body: {
      request_id: res.headers['x-request-id'],
      results: rows,
      summary,
      ...(opts.dryRun ? { dryRun: true } : {}),
    },
  });
}

export const sorted = <T>(xs: T[]): T[] => [...xs].sort();
