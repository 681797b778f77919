import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ApiKeyRepository } from '../auth/api-key.repository';
import { renderBatchResponse } from '../contacts/contact-results';
import { ContactsPipelineService } from '../contacts/contacts-pipeline.service';
import { ContactsRepository } from '../contacts/contacts.repository';
import { CustomFieldsRepository } from '../custom-fields/custom-fields.repository';
import { Database } from '../database/database';
import { ListsRepository } from '../lists/lists.repository';
import { StoredResponsesRepository } from '../requests/stored-responses.repository';

/** Dry runs per pool connection after the first pass: enough for V8 to optimize the hot functions. */
const JIT_ROUNDS = 20;

/** Thrown inside the warm-up transaction so that it always rolls back. */
class WarmUpRollback extends Error {}

/**
 * Before the server listens: opens every pool connection and runs each statement of the request
 * path once on each, for an organization that does not exist, writing nothing (the pipeline's
 * transaction is rolled back), then repeats the pipeline as dry runs (no write, no error) so the
 * JavaScript of the hot path is optimized. The first requests then find connections open,
 * backend caches filled and the code compiled, instead of paying for all of it under load.
 */
@Injectable()
export class WarmUpService implements OnApplicationBootstrap {
  private readonly logger = new Logger('WarmUp');

  constructor(
    private readonly database: Database,
    private readonly apiKeys: ApiKeyRepository,
    private readonly lists: ListsRepository,
    private readonly fields: CustomFieldsRepository,
    private readonly contacts: ContactsRepository,
    private readonly pipeline: ContactsPipelineService,
    private readonly storedResponses: StoredResponsesRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const started = Date.now();
    await Promise.all(Array.from({ length: this.database.options.poolSize }, () => this.warmOne()));
    this.logger.log(`Warmed ${this.database.options.poolSize} database connections in ${Date.now() - started} ms`);
  }

  private async warmOne(): Promise<void> {
    const organizationId = `warm-up-${randomUUID()}`;
    const email = `warm-up@${organizationId}.invalid`;
    try {
      await this.apiKeys.findActive(`warm-up-${randomUUID()}`, new Date());
      await this.lists.findAll(organizationId);
      await this.fields.findAll(organizationId);
      await this.contacts.findByEmail(organizationId, email);
      await this.storedResponses.find(organizationId, randomUUID());
      await this.pipeline.process(organizationId, [{ email, listIds: [], fields: new Map(), overwrite: false }], {
        dryRun: false,
        store: { requestId: randomUUID(), clientRequestId: null, render: () => ({ status: 200, body: {} }) },
        inTransaction: () => Promise.reject(new WarmUpRollback()),
      });
    } catch (error) {
      this.expected(error);
    }
    try {
      for (let round = 0; round < JIT_ROUNDS; round++) {
        const inputs = Array.from({ length: 1 + (round % 5) * 10 }, (_, i) => ({
          email: `warm-up-${i}@${organizationId}.invalid`,
          listIds: round % 2 === 0 ? [] : [randomUUID()], // created, or INVALID_LIST
          fields: new Map<string, unknown>([['firstName', 'Ada']]),
          overwrite: false,
        }));
        const results = await this.pipeline.process(organizationId, inputs, { dryRun: true });
        JSON.stringify(renderBatchResponse(randomUUID(), results, true));
      }
    } catch (error) {
      this.expected(error);
    }
  }

  private expected(error: unknown): void {
    // The organization does not exist, so the write is refused (or rolled back): expected.
    // Anything else only costs the speed of the first requests; the database check at start is elsewhere.
    if (!(error instanceof WarmUpRollback) && (error as { code?: string }).code !== '23503') {
      this.logger.warn(`Warm-up failed: ${(error as Error).message}`);
    }
  }
}
