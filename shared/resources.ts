/**
 * Definitions of the stateful resources, shared by the CDK stack and the local runtime so the
 * two cannot drift: the single table's keys and indexes, the webhook queues and their redrive
 * policy, and the evidence bucket's CORS and lifecycle rules.
 */

import type { Group } from './routes.ts';

export const table = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes expired idempotency records, rate counters, revoked tokens. */
  ttlAttribute: 'expiresAt',
  /**
   * GSI1: look-ups by another key (user → memberships, customer document → charges, endpoint →
   * deliveries, account → infraction reports waiting for refunds in flight).
   * GSI2: sparse due-work queues the scheduler drains (charges to expire, balance releases), and
   * the webhook deliveries of one status and event type.
   * GSI3: the webhook deliveries of one status, event type and endpoint, and the charges of one
   * status (the payment list's status filter).
   * See docs/data-model.md.
   */
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  ],
} as const;

/** Webhook deliveries. A message is received once per attempt; after 15 it moves to the DLQ. */
export const webhookQueues = {
  maxReceiveCount: 15,
  /** Longer than the dispatcher's 30 s HTTP timeout, so an attempt in flight is never redelivered. */
  visibilityTimeoutSeconds: 60,
  /**
   * 14 days, the longest SQS allows, on the queue and its DLQ. SQS expires a dead-lettered message
   * of a standard queue by its ORIGINAL enqueue time: a delivery reaches the DLQ after its retries
   * (about 3.3 days with the current schedule), so ops have about 10.5 days left to redrive it.
   */
  retentionSeconds: 14 * 24 * 3600,
  /** Alarm as soon as one delivery has exhausted its attempts. */
  dlqAlarmThreshold: 1,
} as const;

/**
 * The live acquirers' callbacks (README, "Going live"): the callback route puts one message per end-to-end id
 * and answers at once; the consumer reads each Pix back at the acquirer and settles it. A message
 * that keeps failing (the acquirer down for hours) moves to the DLQ after `maxReceiveCount`
 * receives; reconciliation (`GET /pix` on the scheduler) settles it anyway.
 */
export const providerCallbackQueues = {
  maxReceiveCount: 10,
  /** Longer than the consumer's timeout, so a message in flight is never received twice. */
  visibilityTimeoutSeconds: 120,
  /** 14 days from the original enqueue, DLQ included: 10 receives take minutes, so nearly all of it is left. */
  retentionSeconds: 14 * 24 * 3600,
} as const;

/** The `type` attribute of the items the outbox consumes from the table's stream. */
export const streamItemTypes = {
  event: 'event',
  webhookDelivery: 'webhookDelivery',
  charge: 'charge',
} as const;

/**
 * The outbox's stream filters (Lambda event filtering, exact values only; a record passes if any
 * pattern matches): new event items (fanned out into deliveries), every creation or change of a
 * delivery item (counted into the delivery counters) and of a charge (counted into the payment
 * counters). Every other write to the table (counters, markers, ledger…) is dropped before any
 * invocation. The local stream poller applies the same patterns.
 */
export const outboxStreamFilters = [
  { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: [streamItemTypes.event] } } } },
  {
    eventName: ['INSERT', 'MODIFY'],
    dynamodb: { NewImage: { type: { S: [streamItemTypes.webhookDelivery] } } },
  },
  { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { type: { S: [streamItemTypes.charge] } } } },
] as const;

/** MED evidence: presigned PUTs straight from the merchant's browser, then private reads. */
export const evidenceBucket = {
  /**
   * Raw uploads, what a grant's presigned PUT names (`uploads/<id>/<mode>/<random>`,
   * store/keys.ts `evidenceObjectKey`): read only by `complete`, within the grant's 900 s, so the
   * lifecycle expires everything under it (`uploadExpirationDays`).
   */
  uploadKeyPrefix: 'uploads/',
  /**
   * Confirmed copies (`accounts/<id>/<mode>/evidence-stored/<random>`, `evidenceStoredObjectKey`):
   * no grant names them and no lifecycle rule expires them (evidence is kept). Items confirmed
   * before copies existed are read at their upload key under this prefix too
   * (`accounts/<id>/<mode>/evidence/<random>`).
   */
  storedKeyPrefix: 'accounts/',
  /** The folder of the confirmed copies under an account's `<mode>/` (what `complete` may write). */
  storedCopyFolder: 'evidence-stored',
  maxFileBytes: 10 * 1024 * 1024,
  uploadUrlTtlSeconds: 900,
  cors: {
    allowedMethods: ['PUT'] as const,
    allowedOrigins: ['*'],
    allowedHeaders: ['Content-Type', 'Content-Length'],
    maxAgeSeconds: 3000,
  },
  /** Abandoned multipart uploads are removed after a day. */
  abortIncompleteUploadDays: 1,
  /** Evidence is rarely read after a case closes: cheaper storage after 90 days. */
  infrequentAccessAfterDays: 90,
  /**
   * Raw uploads expire after 1 day, the shortest S3 lifecycle allows: `complete` answers 409
   * `EVIDENCE_NOT_UPLOADED` once the grant's 900 s are past whatever is in storage, so an upload
   * is never read after its first 15 minutes (plus one `complete` still running). S3 acts at the
   * next midnight UTC after the day is up and asynchronously: gone within about 2 days.
   */
  uploadExpirationDays: 1,
  /**
   * The bucket is versioned: the expiry (and a PUT to a still-valid upload URL over an earlier
   * upload) leaves a noncurrent version, removed 1 day after it became noncurrent; the delete
   * marker left with no version behind it is removed too.
   */
  uploadNoncurrentExpirationDays: 1,
  /**
   * Server access logs (who read or wrote which evidence object) expire after 90 days: the
   * Lambda and API logs are kept 1 month, but an evidence access is asked about while its case
   * is alive, which can outlast a month (appeal, the MED channel's decision); 90 days is also
   * when evidence moves to Infrequent Access, "rarely read after a case closes".
   */
  accessLogExpirationDays: 90,
} as const;

/** Partition-key prefix of the per-key rate-limit counters: the only items `wallets` (read-only) writes. */
export const rateLimitKeyPrefix = 'RATE#';
/**
 * Partition-key prefixes of the login limit's counters and of logged-out tokens, and of the users
 * (a password hash upgraded at login): all `auth` writes.
 */
export const loginAttemptsKeyPrefix = 'LOGINATTEMPTS#';
export const revokedJwtKeyPrefix = 'REVOKEDJWT#';
export const userKeyPrefix = 'EMAIL#';

/**
 * Item access to the single table, by tier: the DynamoDB actions it allows, and whether on the
 * indexes too. The stack grants them (`infra/constructs/table.ts`); the local runtime refuses a
 * function's call outside its tier (`infra/local/table-grants.ts`), so the integration suite
 * proves each tier covers what its function's code sends. No Scan: every access pattern is a
 * keyed read or a Query. No BatchWriteItem: no function writes in batches. No
 * ConditionCheckItem: no transaction holds a condition-only item. A `TransactWriteItems` is
 * authorised item by item as these.
 */
export const tableAccessTiers = {
  /** One item by its key. */
  getItem: { actions: ['GetItem'], indexes: false },
  /** Items by key, and updates of their attributes: nothing put whole, deleted or queried. */
  keyedReadUpdate: { actions: ['GetItem', 'BatchGetItem', 'UpdateItem'], indexes: false },
  read: { actions: ['GetItem', 'BatchGetItem', 'Query'], indexes: true },
  readWrite: { actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem'], indexes: true },
  /** For the functions whose code deletes items: the table holds the ledger. */
  readWriteDelete: {
    actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
    indexes: true,
  },
} as const satisfies Record<string, { actions: readonly string[]; indexes: boolean }>;

export type TableAccess = keyof typeof tableAccessTiers;

/** The background functions (`infra/constructs/background-functions.ts`). */
export type BackgroundFunction = 'scheduler' | 'outbox' | 'webhook-dispatcher' | 'provider-callback-consumer';

/**
 * Each Lambda's tier (`none`: no table, no `TABLE_NAME`). Why each needs what it has:
 * docs/infrastructure.md, "What each function may do".
 */
export const tableAccessOf = {
  auth: 'read',
  'api-keys': 'readWriteDelete',
  charges: 'readWrite',
  wallets: 'read',
  payments: 'readWrite',
  webhooks: 'readWriteDelete',
  med: 'readWrite',
  checkout: 'getItem',
  'provider-callbacks': 'getItem',
  sandbox: 'readWrite',
  docs: 'none',
  scheduler: 'readWriteDelete',
  outbox: 'readWriteDelete',
  'webhook-dispatcher': 'keyedReadUpdate',
  'provider-callback-consumer': 'readWrite',
} as const satisfies Record<Group | BackgroundFunction, TableAccess | 'none'>;

/** Account ids: `acct_` and this many hex digits (`newAccountId`, shared/store/accounts.ts). */
export const accountIdHexDigits = 24;

/**
 * IAM `StringLike` patterns of partition keys: an account's own items (`ACCOUNT#<id>`: the
 * account, its members and key records), a scope's (`ACCOUNT#<id>#<mode>`: endpoints with their
 * secrets, the override secret, counters) and the items of a scope's partitions
 * (`ACCOUNT#<id>#<mode>#<k>`: charges, events, deliveries…). `?` is one character, `*` any run.
 */
const accountItems = `ACCOUNT#acct_${'?'.repeat(accountIdHexDigits)}`;
const scopeItems = ['ACCOUNT#*#live', 'ACCOUNT#*#test'];
const scopePartitionItems = ['ACCOUNT#*#live#*', 'ACCOUNT#*#test#*'];

/**
 * The functions whose tier applies only to items whose partition key matches one of these
 * patterns (IAM `dynamodb:LeadingKeys`), so that what they cannot need stays out of reach: the
 * users' password hashes, the API key lookups, idempotency records, other secrets. The public
 * `checkout` reads a charge by its ref (`CHARGEREF#`), the charge and its account's name; the
 * public `provider-callbacks` only the account a callback token names; the dispatcher, which
 * calls merchant-controlled URLs, only what a delivery needs (the delivery, its event, endpoint
 * or override secret) and updates only the delivery.
 */
export const tierKeyPatterns: Partial<Record<keyof typeof tableAccessOf, readonly string[]>> = {
  checkout: ['CHARGEREF#*', accountItems, ...scopePartitionItems],
  'provider-callbacks': ['PROVIDERCALLBACK#*'],
  'webhook-dispatcher': [...scopeItems, ...scopePartitionItems],
};

interface PrefixedWrite {
  actions: readonly ('PutItem' | 'UpdateItem')[];
  prefixes: readonly string[];
}

/**
 * Writes a function of a read tier still makes, each grant only on items whose partition key
 * starts with one of its `prefixes` (IAM `dynamodb:LeadingKeys`): `wallets` counts requests
 * against the per-key limit; the public `auth` (login, logout) counts failed logins, records
 * logged-out tokens and updates a user's password hash (never creates a user), and may write
 * nothing a merchant owns.
 */
export const prefixedWrites: Partial<Record<keyof typeof tableAccessOf, readonly PrefixedWrite[]>> = {
  wallets: [{ actions: ['UpdateItem'], prefixes: [rateLimitKeyPrefix] }],
  auth: [
    { actions: ['PutItem', 'UpdateItem'], prefixes: [loginAttemptsKeyPrefix, revokedJwtKeyPrefix] },
    { actions: ['UpdateItem'], prefixes: [userKeyPrefix] },
  ],
};

/** How often the scheduler runs when deployed (EventBridge rule). Expiry happens within one period. */
export const schedulerPeriodSeconds = 60;

/**
 * Lambda timeouts (seconds), set by the stack (`infra/constructs/`) and read by the tests that
 * check the acquirer budgets below fit in them (test/unit/acquirer-budget.test.ts).
 */
export const lambdaTimeoutSeconds = {
  /** Every API group's Lambda (API Gateway's own limit is 29 s). */
  api: 10,
  scheduler: 60,
  outbox: 60,
  /** 30 s per HTTP attempt (the dispatcher's default), plus the table reads and writes around it. */
  webhookDispatcher: 60,
  /** `GET /pix/{e2eid}` (and, with a payer lock, `GET /pix?cpf=…`) at the acquirer, retried, then one settlement. */
  providerCallbackConsumer: 60,
} as const;

/**
 * `OutboxReplay`: the descriptions of the stream batches the outbox gave up on, which it consumes
 * (docs/infrastructure.md, "Failure paths"); `OutboxFailures` after `maxReceiveCount` receives.
 */
export const outboxReplayQueue = {
  maxReceiveCount: 3,
  /** Six times the outbox's timeout, as AWS advises for a Lambda's queue: a failed replay is tried again 6 min later. */
  visibilityTimeoutSeconds: 6 * lambdaTimeoutSeconds.outbox,
  /** 14 days; the stream itself keeps records 24 h, so a replay must come within a day of the failure. */
  retentionSeconds: 14 * 24 * 3600,
  /**
   * As few replays at once as SQS allows: each reads its shard beside the live mapping, and
   * DynamoDB Streams advises at most two readers of a shard (more are throttled).
   */
  maxConcurrency: 2,
} as const;

/**
 * How long the calls to a live acquirer (API Pix) may take in one Lambda invocation. Every call
 * of the invocation shares one deadline, `totalMs` after it starts (token requests, retries and
 * backoff included); a call that cannot finish by then is `ProviderUnavailableError` (on the API:
 * 503 `service_unavailable`, safe to retry with the same Idempotency-Key) rather than the Lambda
 * being cut off (API Gateway's 504, a retry's outcome unknown). Within it, each attempt (token
 * request included) is bounded by `attemptTimeoutMs` and a transient failure is retried up to
 * `retries` times, backoff from `minRetryDelayMs`, doubling, randomized (×1 to ×2).
 */
export interface AcquirerCallBudget {
  readonly attemptTimeoutMs: number;
  readonly retries: number;
  readonly minRetryDelayMs: number;
  readonly totalMs: number;
}

export const acquirerCallBudgets = {
  /**
   * A merchant's request (charge create, cancel, refund, provider status): 3 s per attempt and
   * one retry (≤ 6.4 s for one call), all calls within 7 s, leaving 3 s of the API Lambda's 10 s
   * for the table. Also the budget outside any invocation (the admin CLI's `set-provider`).
   */
  request: { attemptTimeoutMs: 3_000, retries: 1, minRetryDelayMs: 200, totalMs: 7_000 },
  /**
   * The scheduler (reconciliation, refund advances) and the provider callback consumer: 10 s per
   * attempt and 3 retries (≤ 42.8 s for one call), all calls within 45 s of their 60 s.
   */
  background: { attemptTimeoutMs: 10_000, retries: 3, minRetryDelayMs: 200, totalMs: 45_000 },
} as const satisfies Record<string, AcquirerCallBudget>;

/** Which budget each Lambda that calls an acquirer runs its invocations with, and its timeout. */
export const acquirerCallers = {
  api: { budget: 'request', timeoutSeconds: lambdaTimeoutSeconds.api },
  scheduler: { budget: 'background', timeoutSeconds: lambdaTimeoutSeconds.scheduler },
  providerCallbackConsumer: {
    budget: 'background',
    timeoutSeconds: lambdaTimeoutSeconds.providerCallbackConsumer,
  },
} as const satisfies Record<string, { budget: keyof typeof acquirerCallBudgets; timeoutSeconds: number }>;

/** The stage's default route throttling, before our per-key limit: API Gateway applies it to each route separately (the account's regional limit bounds the sum). */
export const apiThrottle = { rateLimit: 200, burstLimit: 400 } as const;

/**
 * Where `npm run admin -- set-provider` stores each account's acquirer secret when deployed
 * (`<prefix><accountId>` in Secrets Manager), and what the functions calling the acquirer may read:
 * one namespace per stack, so two stages in one account and region never read each other's
 * merchants' credentials (the stack's `AcquirerSecretPrefix` output names it for the admin CLI).
 */
export const acquirerSecretPrefixOf = (stackName: string): string => `pix-service/${stackName}/acquirer/`;

/**
 * Observability: the service name on every log line and metric, and the CloudWatch metrics
 * (embedded metric format, `shared/metrics.ts`) the stack's dashboard and alarms read. Every
 * metric carries the dimensions `service` and `mode` (`live` or `test`); the alarms watch `live`.
 */
export const observability = {
  serviceName: 'pix-service',
  metricNamespace: 'PixService',
  metrics: {
    chargesCreated: 'ChargesCreated',
    chargesPaid: 'ChargesPaid',
    chargesExpired: 'ChargesExpired',
    /** A refund reached each status (`payment.refunded` events). */
    refundsPending: 'RefundsPending',
    refundsInProgress: 'RefundsInProgress',
    refundsRefunded: 'RefundsRefunded',
    refundsFailed: 'RefundsFailed',
    /** The acquirer reported DEVOLVIDO for a refund held FAILED (its reserve already back): ops must reconcile. */
    refundsReturnedAfterFailure: 'RefundsReturnedAfterFailure',
    /** A Pix the service returned by itself (payer lock, after a cancel) that the acquirer could not return: owed to its payer. */
    automaticReturnsFailed: 'AutomaticReturnsFailed',
    /** A refund still unresolved an hour after it was made, at each scheduler check of it (at most every 10 minutes). */
    refundsOverdue: 'RefundsOverdue',
    medCasesOpened: 'MedCasesOpened',
    medCasesResolved: 'MedCasesResolved',
    /** One per POST to a receiver; `…AttemptFailures` the ones that got no 2xx. */
    webhookAttempts: 'WebhookDeliveryAttempts',
    webhookAttemptFailures: 'WebhookDeliveryAttemptFailures',
    /** Deliveries by final outcome: delivered, failed (attempts exhausted: dead-lettered), cancelled. */
    webhookDelivered: 'WebhookDeliveriesDelivered',
    webhookFailed: 'WebhookDeliveriesFailed',
    webhookCancelled: 'WebhookDeliveriesCancelled',
    /** Milliseconds from the delivery's creation to its 2xx. */
    webhookLatency: 'WebhookDeliveryLatency',
    /** Calls to a live acquirer (API Pix), and those that failed for want of an answer or credentials. */
    acquirerCalls: 'AcquirerCalls',
    acquirerErrors: 'AcquirerErrors',
  },
} as const;

export type MetricName = (typeof observability.metrics)[keyof typeof observability.metrics];
