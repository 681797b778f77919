import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Database, type SqlClient } from '../database/database';
import { MetricsService } from '../metrics/metrics.service';
import type { Answer } from '../requests/stored-responses.repository';
import type { ContactInput } from './contact-input.shape';
import type { ContactResult } from './contact-results';
import {
  type ContactFailure,
  type PlannedChange,
  type PlannedCreate,
  type PlannedUpdate,
  type RuleContext,
  planContact,
  screenContacts,
} from './contact-rules';
import { type AnswerWrite, ContactsRepository } from './contacts.repository';

export interface PipelineOptions {
  dryRun: boolean;
  /**
   * Runs inside the transaction that writes the contacts, after the writes, with the results the
   * request will answer (e.g. to store the response in the same transaction). Not called on a
   * dry run. When given, a transaction is opened even if no row reaches the database.
   */
  inTransaction?: (tx: SqlClient, results: ContactResult[]) => Promise<void>;
  /**
   * On a real run, the answer rendered from the results is stored (GET /requests/{request_id}) by
   * the same statement that writes the contacts: it exists exactly when its writes do.
   */
  store?: { requestId: string; clientRequestId: string | null; render: (results: ContactResult[]) => Answer };
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
  ) {}

  async process(organizationId: string, inputs: readonly ContactInput[], options: PipelineOptions): Promise<ContactResult[]> {
    const results = await this.processWithRetry(organizationId, inputs, options);
    if (!options.dryRun) {
      for (const result of results) this.metrics.contactProcessed(result.status, result.status === 'failed' ? result.code : '');
    }
    return results;
  }

  private async processWithRetry(
    organizationId: string,
    inputs: readonly ContactInput[],
    options: PipelineOptions,
  ): Promise<ContactResult[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.processOnce(organizationId, inputs, options);
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error;
        this.logger.warn(`Contacts transaction conflicted (attempt ${attempt}); retrying`);
      }
    }
  }

  private async processOnce(
    organizationId: string,
    inputs: readonly ContactInput[],
    options: PipelineOptions,
  ): Promise<ContactResult[]> {
    const screened = screenContacts(inputs);
    const candidates = screened.flatMap((row) => (row.kind === 'candidate' ? [row] : []));
    const needsTransaction =
      candidates.length > 0 || (!options.dryRun && (options.inTransaction !== undefined || options.store !== undefined));
    if (!needsTransaction) {
      // Every row failed rules 1–3: nothing to read or write.
      return screened.flatMap((row) => (row.kind === 'failed' ? [failureResult(row.email, row.failure)] : []));
    }

    return this.database.transaction(async (tx) => {
      const emails = candidates.map((row) => row.email).sort();
      const context = await this.readContext(tx, organizationId, emails, candidates);
      const plans = new Map<string, ContactFailure | PlannedChange>(
        candidates.map((row) => [row.email, planContact(row.email, row.input, context)]),
      );

      // Ids are made here, so the results (and the answer) are known before the one write statement.
      const createdIds = new Map<string, string>();
      if (!options.dryRun) {
        for (const plan of plans.values()) if (plan.outcome === 'created') createdIds.set(plan.email, randomUUID());
      }
      const results = screened.map((row): ContactResult => {
        if (row.kind === 'failed') return failureResult(row.email, row.failure);
        const plan = plans.get(row.email) as ContactFailure | PlannedChange;
        return plan.outcome === 'failed' ? failureResult(row.email, plan) : successResult(plan, createdIds);
      });
      if (!options.dryRun) {
        const stored = options.store && {
          requestId: options.store.requestId,
          clientRequestId: options.store.clientRequestId,
          answer: options.store.render(results),
        };
        await this.write(tx, organizationId, [...plans.values()], createdIds, stored);
        if (options.inTransaction) await options.inTransaction(tx, results);
      }
      return results;
    });
  }

  /** Locks the emails first, so what is read next cannot change before the transaction ends. */
  private async readContext(
    tx: SqlClient,
    organizationId: string,
    emails: string[],
    candidates: Array<{ input: ContactInput }>,
  ): Promise<RuleContext> {
    if (emails.length === 0) {
      return { activeListIds: new Set(), customFields: new Map(), existingContacts: new Map(), suppressions: new Map() };
    }
    await this.contacts.lockEmails(tx, organizationId, emails);
    const listIds = [...new Set(candidates.flatMap((row) => row.input.listIds ?? []))];
    return this.contacts.readRuleContext(tx, organizationId, emails, listIds);
  }

  /** One statement whatever the batch size (answer included); skipped when nothing is to be written. */
  private async write(
    tx: SqlClient,
    organizationId: string,
    plans: Array<ContactFailure | PlannedChange>,
    createdIds: Map<string, string>,
    stored: AnswerWrite | undefined,
  ): Promise<void> {
    const creates = plans.filter((plan): plan is PlannedCreate => plan.outcome === 'created');
    const updates = plans.filter((plan): plan is PlannedUpdate => plan.outcome === 'updated');
    if (creates.length === 0 && updates.length === 0 && !stored) return;
    const idOf = (plan: PlannedCreate) => createdIds.get(plan.email) as string;

    const inserted = await this.contacts.writeChanges(tx, organizationId, {
      creates: creates.map((plan) => ({ id: idOf(plan), email: plan.email, standard: plan.standard, custom: plan.custom })),
      updates: updates.map((plan) => ({ id: plan.contactId, email: plan.email, standard: plan.standard, custom: plan.custom })),
      memberships: [
        ...creates.flatMap((plan) => plan.listIds.map((listId) => ({ contactId: idOf(plan), listId, newContact: true }))),
        ...updates.flatMap((plan) =>
          plan.addedListIds.map((listId) => ({ contactId: plan.contactId, listId, newContact: false })),
        ),
      ],
    }, stored);
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
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const candidate = current as { code?: unknown; meta?: { code?: unknown }; cause?: unknown };
    if (candidate.code === 'P2002' || candidate.code === 'P2034') return true;
    for (const code of [candidate.code, candidate.meta?.code]) {
      if (typeof code === 'string' && RETRYABLE_SQLSTATES.has(code)) return true;
    }
    current = candidate.cause;
  }
  return false;
}
