import { Injectable } from '@nestjs/common';
import { isStorableText } from '../common/storable-text';
import { Database } from '../database/database';
import { PrismaService } from '../database/prisma.service';
import { runIn, type SqlClient } from '../database/statements';
import { Prisma } from '../generated/prisma/client';
import {
  type ClaimRow,
  WEBHOOK_CLAIM,
  WEBHOOK_COMPLETE,
  WEBHOOK_COUNT,
  WEBHOOK_DELIVERIES,
  WEBHOOK_DISABLE_FAILING,
  WEBHOOK_DISABLE_GONE,
  WEBHOOK_FAN_OUT,
  WEBHOOK_FAN_OUT_HORIZONS,
  WEBHOOK_FAN_OUT_HORIZONS_WAIT,
  WEBHOOK_FEED_END,
  WEBHOOK_INSERT,
  WEBHOOK_LOCK_ORGANIZATION,
  WEBHOOK_MARK_FAILING,
  WEBHOOK_OLDEST_PENDING_AGE,
  WEBHOOK_TAKE_OVER,
} from './webhooks.statements';

export interface WebhookView {
  id: string;
  url: string;
  types: string[];
  description: string | null;
  enabled: boolean;
  createdAt: string;
}

/** What PATCH /api/v2/webhooks/{id} may change; absent keys are kept. */
export interface WebhookChange {
  url?: string;
  types?: string[];
  enabled?: boolean;
}

const VIEW = { id: true, url: true, types: true, description: true, enabled: true, createdAt: true } as const;
type ViewRow = { id: string; url: string; types: string[]; description: string | null; enabled: boolean; createdAt: Date };
const viewOf = (row: ViewRow): WebhookView => ({ ...row, createdAt: row.createdAt.toISOString() });

/** A delivery's key (webhook_deliveries' primary key): its webhook, its commit's position and the event's seq (bigint as text). */
export interface DeliveryKey {
  webhookId: string;
  position: string;
  seq: string;
}

/** A delivery taken by one instance for one attempt, with what the attempt needs. */
export interface ClaimedDelivery extends DeliveryKey {
  /** The lease of this attempt: its outcome is recorded only while the delivery (or the fan-out's lease record) still holds it. */
  leaseToken: string;
  /**
   * A first attempt under a fan-out lease record (webhook_leases): the delivery has no row yet; its
   * outcome inserts it. Otherwise the row exists and is leased to this attempt.
   */
  fresh: boolean;
  /** Attempts made so far, this one included. */
  attemptCount: number;
  url: string;
  secret: string;
  /** The event's id (the webhook-id) and its JSON as the feed shows it (the body); null when retention removed it. */
  event: { id: string; body: string } | null;
}

/** A row of WEBHOOK_CLAIM or WEBHOOK_FAN_OUT as the worker takes it. */
function claimed(row: ClaimRow, leaseToken: string, fresh: boolean): ClaimedDelivery {
  return {
    webhookId: row.webhookId,
    position: row.position,
    seq: row.seq,
    leaseToken,
    fresh,
    attemptCount: row.attemptCount,
    url: row.url,
    secret: row.secret,
    event: row.eventId === null || row.body === null ? null : { id: row.eventId, body: row.body },
  };
}

/**
 * An instance's attempts in flight per webhook, each webhook's share of its attempt slots
 * (WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK) and the reserve: what the fan-out and the claim may take for
 * each webhook. A webhook takes slots up to its share, and beyond it only while `reserve` slots
 * stay free for the webhooks under their share.
 */
export interface AttemptShare {
  cap: number;
  reserve: number;
  inFlight: ReadonlyMap<string, number>;
}

/** No cap (the largest int the statements take), no reserve, nothing in flight. */
const UNCAPPED: AttemptShare = { cap: 2_147_483_647, reserve: 0, inFlight: new Map() };

export interface AttemptOutcome extends DeliveryKey {
  leaseToken: string;
  /** A first attempt under a fan-out lease record: its row is inserted with this outcome (ClaimedDelivery.fresh). */
  fresh: boolean;
  /** pending (a retry is scheduled after delayMs), delivered or failed. */
  state: 'pending' | 'delivered' | 'failed';
  delayMs: number;
  at: string;
  status: number | null;
  error: string | null;
}

export interface DeliveryRow {
  eventId: string;
  type: string;
  state: string;
  attempts: { at: string; status: number | null; error: string | null }[];
  nextAttemptAt: Date | null;
  position: bigint;
  seq: bigint;
}

/** A webhook id (a uuid, with or without its hyphens): anything else is not found without a query. */
const UUID_PATTERN = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** Organizations whose last horizon is kept for the fan-out's busy rounds (the oldest is forgotten beyond it). */
const KNOWN_HORIZONS = 10_000;
/**
 * How long a horizon taken without waiting stands in for an organization found busy. Older, the
 * round waits for one (event_horizons): an organization whose commits overlap without a gap would
 * otherwise never get a newer one.
 */
const KNOWN_HORIZON_MS = 500;

/**
 * The only place that reads or writes webhooks and their deliveries: Prisma Client for single
 * reads and writes of a webhook; registered statements (webhooks.statements.ts) for the creation's
 * transaction, set-based work, `FOR UPDATE SKIP LOCKED` and times on the database clock shared by
 * every instance. Delivery reads the events tables and writes only its own: the
 * POST path writes nothing for webhooks.
 */
@Injectable()
export class WebhooksRepository {
  /**
   * The latest horizon (bigint as text) the fan-out had for each organization. A horizon stays valid
   * for ever (every position at or below it is final), so a round that finds the organization
   * busy reads up to the one it had (if taken within KNOWN_HORIZON_MS); the commits after it wait
   * for a later round.
   */
  private readonly knownHorizons = new Map<string, { horizon: bigint; at: number }>();

  constructor(
    private readonly prisma: PrismaService,
    private readonly database: Database,
  ) {}

  /** A transaction for the creation's statements below (`Database.transaction`). */
  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    return this.database.transaction(work);
  }

  /** Serializes webhook creation per organization (the limit of 20 holds under concurrent POSTs). */
  async lockOrganization(tx: SqlClient, organizationId: string): Promise<void> {
    await runIn(tx, WEBHOOK_LOCK_ORGANIZATION, [organizationId]);
  }

  async count(tx: SqlClient, organizationId: string): Promise<number> {
    const [row] = await runIn(tx, WEBHOOK_COUNT, [organizationId]);
    return row.count;
  }

  /**
   * Where the organization's feed ends now: a new webhook gets the events committed after it. The
   * organization's horizon (event_horizon: it waits for the organization's commits in progress, and
   * holds no lock afterwards): every commit at or below it is visible or gone for good, and every
   * commit that takes a position later gets a greater one.
   */
  async feedEnd(tx: SqlClient, organizationId: string): Promise<{ position: bigint; seq: bigint }> {
    const [row] = await runIn(tx, WEBHOOK_FEED_END, [organizationId]);
    return { position: BigInt(row.horizon), seq: 9223372036854775807n };
  }

  async create(
    tx: SqlClient,
    organizationId: string,
    input: { url: string; types: string[]; description: string | null; secret: string; feed: { position: bigint; seq: bigint } },
  ): Promise<WebhookView> {
    const [row] = await runIn(tx, WEBHOOK_INSERT, [
      organizationId,
      input.url,
      input.types,
      input.description,
      input.secret,
      String(input.feed.position),
      String(input.feed.seq),
    ]);
    return viewOf(row);
  }

  async findAll(organizationId: string): Promise<WebhookView[]> {
    const rows = await this.prisma.webhook.findMany({ where: { organizationId }, select: VIEW, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return rows.map(viewOf);
  }

  async find(organizationId: string, id: string): Promise<WebhookView | null> {
    if (!UUID_PATTERN.test(id)) return null;
    const row = await this.prisma.webhook.findFirst({ where: { id, organizationId }, select: VIEW });
    return row ? viewOf(row) : null;
  }

  /** Null when the organization has no webhook with this id. Enabling clears what disabled it. */
  async update(organizationId: string, id: string, change: WebhookChange): Promise<WebhookView | null> {
    if (!UUID_PATTERN.test(id) || !isStorableText(id)) return null;
    const data: Prisma.WebhookUpdateInput = { ...change };
    if (change.enabled === true) Object.assign(data, { disabledReason: null, failingSince: null });
    try {
      return viewOf(await this.prisma.webhook.update({ where: { id, organizationId }, data, select: VIEW }));
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025') return null;
      throw error;
    }
  }

  /**
   * Deletes the webhook; false when there is none. Its deliveries and lease records go with it, by
   * their foreign keys' cascade. A fan-out holding the row (FOR NO KEY UPDATE) finishes first and
   * its deliveries are deleted too; one that comes later no longer finds the webhook.
   */
  async delete(organizationId: string, id: string): Promise<boolean> {
    if (!UUID_PATTERN.test(id)) return false;
    const { count } = await this.prisma.webhook.deleteMany({ where: { id, organizationId } });
    return count > 0;
  }

  async setSecret(organizationId: string, id: string, secret: string): Promise<boolean> {
    if (!UUID_PATTERN.test(id)) return false;
    // update, not updateMany: Prisma Client runs updateMany in a transaction of its own.
    try {
      await this.prisma.webhook.update({ where: { id, organizationId }, data: { secret }, select: { id: true } });
      return true;
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025') return false;
      throw error;
    }
  }

  /**
   * Newest event first; `before` is the (position, seq) of the last row of the previous page. A
   * delivery under way shows as pending, as the contract's states are: a row 'leased' (a retry
   * being made), and an event of a fan-out lease record whose first attempt has not ended (it has
   * no row yet: no attempt listed, its next attempt the lease's end, when it is made again if no
   * outcome is recorded). Each event appears once, at its place in commit order, from the moment
   * the fan-out took it, as before lease records (docs/events.md, "Deliveries log").
   */
  async deliveries(webhookId: string, before: { position: bigint; seq: bigint } | null, limit: number): Promise<DeliveryRow[]> {
    const after = before ?? { position: 9223372036854775807n, seq: 9223372036854775807n };
    const rows = await this.database.run(WEBHOOK_DELIVERIES, [webhookId, String(after.position), String(after.seq), limit]);
    return rows.map((row) => ({
      eventId: row.event_id,
      type: row.type,
      state: row.state,
      attempts: row.attempts,
      nextAttemptAt: row.next_attempt_at,
      position: BigInt(row.position),
      seq: BigInt(row.seq),
    }));
  }

  /**
   * Takes the next events of every enabled webhook that no other instance is taking (SKIP LOCKED)
   * from the events feed (commit order: event_commits.position, then events.seq) into deliveries,
   * and moves each webhook's feed position past them. Events of types the webhook does not want are
   * passed over. Returns how many events were read (a full page: call again).
   *
   * Two statements, as the feed (docs/events.md, "How it is kept"): first the horizon of each
   * organization that has an enabled webhook with a visible commit after its position (`horizons`:
   * taken without waiting when the organization has no commit in progress, else the one it had),
   * then, in a new snapshot, the events up to each organization's horizon. An organization left out of the first has nothing visible to read
   * yet; the next round looks again. Up to `lease.limit` of the new deliveries come back already
   * taken for an attempt (as `claim` takes them: WEBHOOK_FAN_OUT), the rest wait for a claim.
   * `bounded`: each webhook's page is at most what it may take (its share, or the free slots above
   * the reserve when more), the rest of its events left in the feed for the next round; `full` says whether some
   * webhook's page came back full (more is waiting: go again at once).
   */
  async fanOut(
    pageSize: number,
    lease: { owner: string; token: string; seconds: number; limit: number },
    share: AttemptShare = UNCAPPED,
    bounded = false,
  ): Promise<{ read: number; inserted: number; full: boolean; taken: ClaimedDelivery[] }> {
    const horizons = await this.horizons();
    if (horizons.size === 0) return { read: 0, inserted: 0, full: false, taken: [] };
    const rows = await this.database.run(WEBHOOK_FAN_OUT, [
      [...horizons.keys()],
      [...horizons.values()].map(String),
      pageSize,
      lease.limit,
      lease.owner,
      lease.token,
      lease.seconds,
      share.cap,
      [...share.inFlight.keys()],
      [...share.inFlight.values()],
      bounded,
      share.reserve,
    ]);
    let read = 0;
    let inserted = 0;
    let full = false;
    const webhooks = new Map<string, { url: string; secret: string }>();
    for (const row of rows) {
      if (row.read !== null) {
        read = row.read;
        inserted = row.inserted ?? 0;
        full = row.full ?? false;
      } else if (row.url !== null) webhooks.set(row.webhookId!, { url: row.url, secret: row.secret! });
    }
    const taken: ClaimedDelivery[] = [];
    for (const row of rows) {
      if (row.seq === null) continue;
      const { url, secret } = webhooks.get(row.webhookId!)!;
      taken.push(claimed({ webhookId: row.webhookId!, position: row.position!, seq: row.seq, attemptCount: 1, url, secret, eventId: row.eventId, body: row.body }, lease.token, true));
    }
    return { read, inserted, full, taken };
  }

  /**
   * The horizon of each organization with something new for an enabled webhook
   * (WEBHOOK_FAN_OUT_HORIZONS): taken without waiting when no commit of it is in progress, else the
   * last one known if taken within KNOWN_HORIZON_MS, else (the first round, an organization busy
   * at every round for longer) waited for.
   */
  private async horizons(): Promise<Map<string, bigint>> {
    const found = await this.database.run(WEBHOOK_FAN_OUT_HORIZONS, []);
    const horizons = new Map<string, bigint>();
    const unknown: string[] = [];
    const now = Date.now();
    for (const { organizationId, horizon } of found) {
      const known = this.knownHorizons.get(organizationId);
      if (horizon !== null) horizons.set(organizationId, this.learn(organizationId, BigInt(horizon)));
      else if (known !== undefined && now - known.at < KNOWN_HORIZON_MS) horizons.set(organizationId, known.horizon);
      else unknown.push(organizationId);
    }
    if (unknown.length > 0) {
      for (const { organizationId, horizon } of await this.database.run(WEBHOOK_FAN_OUT_HORIZONS_WAIT, [unknown])) {
        horizons.set(organizationId, this.learn(organizationId, BigInt(horizon)));
      }
    }
    return horizons;
  }

  private learn(organizationId: string, horizon: bigint): bigint {
    const known = this.knownHorizons.get(organizationId)?.horizon;
    const latest = known !== undefined && known > horizon ? known : horizon;
    this.knownHorizons.delete(organizationId);
    this.knownHorizons.set(organizationId, { horizon: latest, at: Date.now() });
    if (this.knownHorizons.size > KNOWN_HORIZONS) this.knownHorizons.delete(this.knownHorizons.keys().next().value as string);
    return latest;
  }

  /**
   * Takes over the fan-out's lease records whose lease ended (WEBHOOK_TAKE_OVER): their events
   * without a row get one, leased under the ended lease, which the next claim takes first.
   */
  async takeOver(): Promise<{ leases: number; deliveries: number }> {
    const rows = await this.database.run(WEBHOOK_TAKE_OVER, []);
    return rows[0] ?? { leases: 0, deliveries: 0 };
  }

  /**
   * Takes up to `limit` due deliveries for one attempt each, leased for `leaseSeconds`
   * (WEBHOOK_CLAIM, webhooks.statements.ts: SKIP LOCKED, per-contact order, lost attempts logged),
   * each webhook its share (`share`) first, the least-loaded organizations and webhooks first, then
   * slots above the reserve.
   */
  async claim(owner: string, leaseToken: string, leaseSeconds: number, limit: number, share: AttemptShare = UNCAPPED): Promise<ClaimedDelivery[]> {
    const rows = await this.database.run(WEBHOOK_CLAIM, [owner, leaseToken, leaseSeconds, limit, share.cap, [...share.inFlight.keys()], [...share.inFlight.values()], share.reserve]);
    return rows.map((row) => claimed(row, leaseToken, false));
  }

  /**
   * Records a batch of attempts in one statement (WEBHOOK_COMPLETE), each only where its lease is
   * still the one it was taken with (a lease taken over is the taker's to record); a delivered one
   * also ends its webhook's failing streak. Returns how many were recorded.
   */
  async complete(outcomes: AttemptOutcome[]): Promise<number> {
    if (outcomes.length === 0) return 0;
    const rows = await this.database.run(WEBHOOK_COMPLETE, [
      outcomes.map((o) => o.webhookId),
      outcomes.map((o) => o.position),
      outcomes.map((o) => o.seq),
      outcomes.map((o) => o.leaseToken),
      outcomes.map((o) => o.state),
      outcomes.map((o) => o.delayMs),
      outcomes.map((o) => o.at),
      outcomes.map((o) => o.status),
      outcomes.map((o) => o.error),
      outcomes.map((o) => o.fresh),
    ]);
    return rows[0]?.recorded ?? 0;
  }

  /** After failed attempts: a failure starts a failing streak, and ends the webhook after `disableAfterSeconds` (a success ends the streak: WEBHOOK_COMPLETE). */
  async recordWebhookHealth(failed: string[], gone: string[], disableAfterSeconds: number): Promise<string[]> {
    const disabled: string[] = [];
    if (gone.length > 0) {
      disabled.push(...(await this.database.run(WEBHOOK_DISABLE_GONE, [gone])).map((r) => r.id));
    }
    if (failed.length > 0) {
      await this.database.run(WEBHOOK_MARK_FAILING, [failed]);
      disabled.push(...(await this.database.run(WEBHOOK_DISABLE_FAILING, [failed, disableAfterSeconds])).map((r) => r.id));
    }
    return disabled;
  }

  /**
   * Seconds since the commit of the oldest event not yet delivered for an enabled webhook (0 when
   * none): its delivery pending or leased, or its first attempt under way in a fan-out lease record
   * (whose events are in commit order: the first is its oldest).
   */
  async oldestPendingAgeSeconds(): Promise<number> {
    const rows = await this.database.run(WEBHOOK_OLDEST_PENDING_AGE, []);
    return rows[0]?.age ?? 0;
  }
}
