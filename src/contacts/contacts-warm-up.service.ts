import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { ContactsPipelineService } from './contacts-pipeline.service';

/** Dry runs per pool connection: enough for V8 to optimize the hot functions. */
const JIT_ROUNDS = 20;

/**
 * Before the server listens: repeats the pipeline as dry runs (no write, no error) for an
 * organization that does not exist, so the JavaScript of the POST path is optimized before the
 * first requests instead of under their load, so the first seconds after a deploy answer as fast
 * as the rest. The
 * database side (connections, registered statements) is warmed by the database layer. WARM_UP=false
 * skips both.
 */
@Injectable()
export class ContactsWarmUpService implements OnApplicationBootstrap {
  private readonly logger = new Logger('WarmUp');

  constructor(
    private readonly pipeline: ContactsPipelineService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.WARM_UP) return;
    const organizationId = `warm-up-${randomUUID()}`;
    try {
      for (let round = 0; round < JIT_ROUNDS; round++) {
        const inputs = Array.from({ length: 1 + (round % 5) * 10 }, (_, i) => ({
          email: `warm-up-${i}@${organizationId}.invalid`,
          listIds: round % 2 === 0 ? [] : [randomUUID()], // created, or INVALID_LIST
          fields: new Map<string, unknown>([['firstName', 'Ada']]),
          overwrite: false,
        }));
        const endpoint = round % 2 === 0 ? 'batch' : 'single';
        const { answer } = await this.pipeline.process({
          organizationId,
          endpoint,
          requestId: randomUUID(),
          clientRequestId: null,
          dryRun: true,
          inputs: endpoint === 'single' ? inputs.slice(0, 1) : inputs,
        });
        JSON.stringify(answer.body);
      }
    } catch (error) {
      // Only the speed of the first requests is at stake.
      this.logger.warn(`Pipeline warm-up failed: ${(error as Error).message}`);
    }
  }
}
