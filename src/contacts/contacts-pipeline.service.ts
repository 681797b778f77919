import { Injectable, Logger } from '@nestjs/common';
import { Database } from '../database/database';
import { errorLayers } from '../database/database-errors';
import type { SqlClient } from '../database/statements';
import { MetricsService } from '../metrics/metrics.service';
import type { Answer } from '../requests/stored-answer';
import type { AnswerWrite } from '../requests/store-answer';
import type { ContactInput } from './contact-input.shape';
import { type ContactResult, type ContactsEndpoint, renderAnswer } from './contact-results';
import {
  type ContactFailure,
  type PlannedChange,
  type PlannedCreate,
  type PlannedUpdate,
  type ScreenedRow,
  planContact,
  screenContacts,
} from './contact-rules';
import { contactEvents } from './contact-events';
import { newContactId } from './contact-ids';
import { ContactsRepository, type WriteContext } from './contacts.repository';
import { ErasureSecrets, type EmailHasher } from '../suppressions/erasure-secrets';

/** One POST of contacts, as the controller received it. */
export interface ContactsRequest {
  organizationId: string;
  endpoint: ContactsEndpoint;
  /** The request's X-Request-Id: the stored answer's key (GET /requests/{request_id}). */
  requestId: string;
  /** The X-Client-Request-Id the POST sent, if any (GET /requests?clientRequestId=). */
  clientRequestId: string | null;
  dryRun: boolean;
  inputs: readonly ContactInput[];
}

/** What the pipeline did: the per-contact results and the answer, already stored on a real run. */
export interface ContactsOutcome {
  results: ContactResult[];
  answer: Answer;
}

/** The request id the rows' events carry, and the stored answer when there is one (an import's rows have none). */
interface RowsWrite {
  requestId: string;
  answer: AnswerWrite | null;
}

/** The unique index saw a contact the locks should have kept out; the attempt is retried. */
class ConcurrentInsertConflict extends Error {}

const MAX_ATTEMPTS = 3;
/** Unique violation, serialization failure, deadlock: safe to retry the whole transaction. */
const RETRYABLE_SQLSTATES = new Set(['23505', '40001', '40P01']);

/**
 * The one contacts pipeline: the single endpoint is a batch of one. Rules 1–3 run on the request
 * alone; then one transaction locks the emails, reads everything the rules 4–10 need in a fixed
 * number of statements, and writes creates, updates and memberships in one statement each.
 */
@Injectable()
export class ContactsPipelineService {
  private readonly logger = new Logger('ContactsPipeline');

  constructor(
    private readonly database: Database,
    private readonly contacts: ContactsRepository,
    private readonly metrics: MetricsService,
    private readonly secrets: ErasureSecrets,
  ) {}

  /**
   * Runs the request: rules, then (on a real run) the writes and the rendered answer in ONE
   * statement of one transaction, so the stored answer exists exactly when its writes do. Returns
   * what was done and what to answer; nothing leaves the transaction before it ends.
   */
  async process(request: ContactsRequest): Promise<ContactsOutcome> {
    const outcome = await this.processWithRetry(request);
    if (!request.dryRun) {
      for (const result of outcome.results) this.metrics.contactProcessed(result.status, result.status === 'failed' ? result.code : '');
    }
    return outcome;
  }

  private async processWithRetry(request: ContactsRequest): Promise<ContactsOutcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.processOnce(request);
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error;
        this.logger.warn(`Contacts transaction conflicted (attempt ${attempt}); retrying`);
      }
    }
  }

  private async processOnce(request: ContactsRequest): Promise<ContactsOutcome> {
    const { organizationId, dryRun } = request;
    const screened = screenContacts(request.inputs);
    const candidates = screened.flatMap((row) => (row.kind === 'candidate' ? [row] : []));
    const outcome = (results: ContactResult[]): ContactsOutcome => ({
      results,
      answer: renderAnswer(request.endpoint, request.requestId, results, dryRun),
    });
    // A real run always opens its transaction: its answer is stored even when every row failed.
    if (candidates.length === 0 && dryRun) {
      // Every row failed rules 1–3: nothing to read or write.
      return outcome(screened.flatMap((row) => (row.kind === 'failed' ? [failureResult(row.email, row.failure)] : [])));
    }

    // Before the transaction: a first read of the secret must not wait for a second pool connection.
    const hashEmail = candidates.length > 0 ? await this.secrets.hasherFor(organizationId) : (email: string) => email;
    return this.database.transaction(async (tx) => {
      let done: ContactsOutcome | undefined;
      await this.applyScreened(tx, organizationId, screened, dryRun, hashEmail, (results) => {
        done = outcome(results);
        return { requestId: request.requestId, answer: { requestId: request.requestId, clientRequestId: request.clientRequestId, answer: done.answer } };
      });
      return done as ContactsOutcome;
    });
  }

  /**
   * Rows of an import (contract 17): the batch's rules and writes for `inputs`, inside the
   * caller's open transaction `tx`, their events under `requestId` and no stored answer (an
   * import's 202 is not one). `hashEmail`: ErasureSecrets' hasher of the organization, read
   * before the transaction. Returns one result per input, in order; retrying a failed
   * transaction is the caller's.
   */
  async applyInTransaction(
    tx: SqlClient,
    rows: { organizationId: string; requestId: string; dryRun: boolean; inputs: readonly ContactInput[]; hashEmail: EmailHasher },
  ): Promise<ContactResult[]> {
    const screened = screenContacts(rows.inputs);
    const stored = () => ({ requestId: rows.requestId, answer: null });
    return this.applyScreened(tx, rows.organizationId, screened, rows.dryRun, rows.hashEmail, stored, { callerContinues: true });
  }

  /**
   * Rules 4–10 and, on a real run, the writes (with the answer `stored` makes of the results, if
   * any). `callerContinues`: the caller runs more statements in `tx` after these.
   */
  private async applyScreened(
    tx: SqlClient,
    organizationId: string,
    screened: ScreenedRow[],
    dryRun: boolean,
    hashEmail: EmailHasher,
    stored: (results: ContactResult[]) => RowsWrite,
    { callerContinues = false } = {},
  ): Promise<ContactResult[]> {
    const candidates = screened.flatMap((row) => (row.kind === 'candidate' ? [row] : []));
    const emails = candidates.map((row) => row.email).sort();
    const context = await this.readContext(tx, organizationId, emails, candidates, hashEmail);
    const plans = new Map<string, ContactFailure | PlannedChange>(
      candidates.map((row) => [row.email, planContact(row.email, row.input, context)]),
    );

    // Ids are made here, so the results (and the answer) are known before the one write statement.
    const createdIds = new Map<string, string>();
    if (!dryRun) {
      for (const plan of plans.values()) if (plan.outcome === 'created') createdIds.set(plan.email, newContactId());
    }
    const results = screened.map((row): ContactResult => {
      if (row.kind === 'failed') return failureResult(row.email, row.failure);
      const plan = plans.get(row.email) as ContactFailure | PlannedChange;
      return plan.outcome === 'failed' ? failureResult(row.email, plan) : successResult(plan, createdIds);
    });
    const write = stored(results);
    if (!dryRun) {
      await this.write(tx, organizationId, [...plans.values()], createdIds, context, write);
      // A create that stores an erased address again turns its erased suppression back into a plain one.
      const storedAgain = [...plans.values()]
        .filter((plan): plan is PlannedCreate => plan.outcome === 'created')
        .map((plan) => plan.email)
        .filter((email) => context.erasedSuppressions?.has(email));
      // Statements after the write run with the pool's plan_cache_mode, not the one the write left.
      if (storedAgain.length > 0 || callerContinues) await this.contacts.resetPlanCacheMode(tx);
      if (storedAgain.length > 0) await this.contacts.restoreErasedSuppressions(tx, organizationId, storedAgain, hashEmail);
    }
    return results;
  }

  /** Locks the emails first, so what is read next cannot change before the transaction ends. */
  private async readContext(
    tx: SqlClient,
    organizationId: string,
    emails: string[],
    candidates: Array<{ input: ContactInput }>,
    hashEmail: EmailHasher,
  ): Promise<WriteContext> {
    if (emails.length === 0) {
      const nothing = new Map();
      // No contact to write: `now` is never used.
      return { now: new Date(0), membershipTimes: nothing, activeListIds: new Set(), customFields: nothing, existingContacts: nothing, suppressions: nothing };
    }
    await this.contacts.lockEmails(tx, organizationId, emails);
    const listIds = [...new Set(candidates.flatMap((row) => row.input.listIds ?? []))];
    return this.contacts.readRuleContext(tx, organizationId, emails, listIds, hashEmail);
  }

  /**
   * One statement whatever the batch size: the contacts and memberships, their events and, when
   * given, the stored answer (ContactsRepository.writeChanges: the events' and the answer's parts
   * are their modules' own).
   */
  private async write(
    tx: SqlClient,
    organizationId: string,
    plans: Array<ContactFailure | PlannedChange>,
    createdIds: Map<string, string>,
    context: WriteContext,
    stored: RowsWrite,
  ): Promise<void> {
    const creates = plans.filter((plan): plan is PlannedCreate => plan.outcome === 'created');
    const updates = plans.filter((plan): plan is PlannedUpdate => plan.outcome === 'updated');
    const idOf = (plan: PlannedCreate) => createdIds.get(plan.email) as string;

    const { events, sources } = contactEvents(organizationId, plans, createdIds, context);
    const inserted = await this.contacts.writeChanges(tx, organizationId, {
      creates: creates.map((plan) => ({ id: idOf(plan), email: plan.email, standard: plan.standard, custom: plan.custom })),
      updates: updates.map((plan) => ({ id: plan.contactId, email: plan.email, standard: plan.standard, custom: plan.custom })),
      memberships: [
        ...creates.flatMap((plan) => plan.listIds.map((listId) => ({ contactId: idOf(plan), listId, newContact: true, email: plan.email }))),
        ...updates.flatMap((plan) =>
          plan.addedListIds.map((listId) => ({ contactId: plan.contactId, listId, newContact: false, email: plan.email })),
        ),
      ],
      requestId: stored.requestId,
      events,
      sources,
      // The transaction's now(), as the rows' createdAt/updatedAt.
      eventsAt: context.now,
      answer: stored.answer,
    });
    // The email locks make this unreachable unless a writer bypasses them; then start over.
    if (inserted < creates.length) throw new ConcurrentInsertConflict('A contact was inserted concurrently');
  }
}

function failureResult(email: string | null, failure: ContactFailure): ContactResult {
  return {
    status: 'failed',
    email,
    code: failure.code,
    message: failure.message,
    ...(failure.invalidListIds ? { invalidListIds: failure.invalidListIds } : {}),
    ...(failure.suppressionReason ? { suppressionReason: failure.suppressionReason } : {}),
  };
}

function successResult(plan: PlannedChange, createdIds: Map<string, string>): ContactResult {
  switch (plan.outcome) {
    case 'created':
      // No id on a dry run: nothing was created.
      return { status: 'created', email: plan.email, id: createdIds.get(plan.email) ?? null };
    case 'updated':
      return {
        status: 'updated',
        email: plan.email,
        id: plan.contactId,
        changedFields: plan.changedFields,
        addedListIds: plan.addedListIds,
      };
    case 'unchanged':
      return { status: 'unchanged', email: plan.email, id: plan.contactId };
  }
}

function isRetryable(error: unknown): boolean {
  if (error instanceof ConcurrentInsertConflict) return true;
  // The pg driver error may arrive as is or wrapped by Prisma (cause / meta).
  return errorLayers(error).some(
    (layer) =>
      layer.code === 'P2002' ||
      layer.code === 'P2034' ||
      [layer.code, layer.meta?.code].some((code) => typeof code === 'string' && RETRYABLE_SQLSTATES.has(code)),
  );
}
