import { Injectable } from '@nestjs/common';
import { RequestErrorCode } from '../errors/error-codes';
import { invalidRequest, RequestError } from '../errors/request-error';
import { checkTarget, TargetRefused } from './webhook-address';
import { WebhookAddressPolicy } from './webhook-address.policy';
import { newWebhookSecret } from './webhook-signing';
import { type DeliveryRow, type WebhookChange, WebhooksRepository, type WebhookView } from './webhooks.repository';

/** Contract 14: at most 20 webhooks per organization. */
export const WEBHOOK_LIMIT = 20;

const notFound = () => new RequestError(RequestErrorCode.WEBHOOK_NOT_FOUND, 'No webhook with this id in this organization');

@Injectable()
export class WebhooksService {
  constructor(
    private readonly repository: WebhooksRepository,
    private readonly addresses: WebhookAddressPolicy,
  ) {}

  /** 400 unless the URL's host resolves to addresses a webhook may be delivered to. */
  async checkUrl(url: string): Promise<void> {
    try {
      await checkTarget(url, this.addresses.policy());
    } catch (error) {
      if (error instanceof TargetRefused) throw invalidRequest(error.message);
      throw error;
    }
  }

  /**
   * A new webhook that receives the events committed from now on, and its secret (shown once). The
   * organization's row is locked while counting, so concurrent creates cannot pass the limit.
   */
  async create(organizationId: string, input: { url: string; types: string[]; description: string | null }): Promise<{ webhook: WebhookView; secret: string }> {
    await this.checkUrl(input.url);
    const secret = newWebhookSecret();
    const webhook = await this.repository.transaction(async (tx) => {
      await this.repository.lockOrganization(tx, organizationId);
      if ((await this.repository.count(tx, organizationId)) >= WEBHOOK_LIMIT) {
        throw new RequestError(RequestErrorCode.WEBHOOK_LIMIT_REACHED, `An organization has at most ${WEBHOOK_LIMIT} webhooks: delete one first`);
      }
      const feed = await this.repository.feedEnd(tx, organizationId);
      return this.repository.create(tx, organizationId, { ...input, secret, feed });
    });
    return { webhook, secret };
  }

  findAll(organizationId: string): Promise<WebhookView[]> {
    return this.repository.findAll(organizationId);
  }

  async find(organizationId: string, id: string): Promise<WebhookView> {
    return (await this.repository.find(organizationId, id)) ?? Promise.reject(notFound());
  }

  async update(organizationId: string, id: string, change: WebhookChange): Promise<WebhookView> {
    if (change.url !== undefined) {
      await this.find(organizationId, id); // an unknown id is 404 before its URL is looked at
      await this.checkUrl(change.url);
    }
    return (await this.repository.update(organizationId, id, change)) ?? Promise.reject(notFound());
  }

  async delete(organizationId: string, id: string): Promise<void> {
    if (!(await this.repository.delete(organizationId, id))) throw notFound();
  }

  async rotateSecret(organizationId: string, id: string): Promise<string> {
    const secret = newWebhookSecret();
    if (!(await this.repository.setSecret(organizationId, id, secret))) throw notFound();
    return secret;
  }

  async deliveries(organizationId: string, id: string, before: { position: bigint; seq: bigint } | null, limit: number): Promise<DeliveryRow[]> {
    const webhook = await this.find(organizationId, id);
    return this.repository.deliveries(webhook.id, before, limit);
  }
}
