import { Injectable } from '@nestjs/common';
import type { Answer } from '../requests/stored-responses.repository';
import type { ContactInput } from './contact-input.shape';
import type { ContactResult } from './contact-results';
import { ContactsPipelineService } from './contacts-pipeline.service';

/**
 * Both POST endpoints: run the one pipeline, render the answer once and, on a real run, store it
 * in the transaction (and the statement) of the writes it reports (GET /requests/{request_id}).
 */
@Injectable()
export class ContactsService {
  constructor(private readonly pipeline: ContactsPipelineService) {}

  async submit(
    organizationId: string,
    requestId: string,
    dryRun: boolean,
    inputs: readonly ContactInput[],
    render: (requestId: string, results: ContactResult[]) => Answer,
    clientRequestId: string | null = null,
  ): Promise<Answer> {
    let stored: Answer | undefined;
    const results = await this.pipeline.process(organizationId, inputs, {
      dryRun,
      store: { requestId, clientRequestId, render: (rows) => (stored = render(requestId, rows)) },
    });
    return stored ?? render(requestId, results);
  }
}
