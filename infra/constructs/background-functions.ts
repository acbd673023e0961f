import { join } from 'node:path';
import { Duration, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  lambdaTimeoutSeconds,
  outboxReplayQueue,
  outboxStreamFilters,
  providerCallbackQueues,
  schedulerPeriodSeconds,
  tableAccessOf,
  tierKeyPatterns,
  webhookQueues,
} from '#shared/resources.ts';
import { ServiceFunction, serviceEnvironment } from './service-function.ts';
import type { SingleTable } from './table.ts';

const functionsDir = join(import.meta.dirname, '..', '..', 'functions');

/** The stream consumer's failure handling; see docs/infrastructure.md (failure paths). */
export const outboxStream = {
  batchSize: 100,
  /** Then the batch's description goes to OutboxReplay. Finite: a poison record blocks its shard. */
  retryAttempts: 10,
  /** 6 h: well inside the stream's 24 h retention (the 10 retries may be spent sooner: docs/infrastructure.md). */
  maxRecordAgeSeconds: 6 * 3600,
  /**
   * Batches of one stream shard processed at once (the maximum). One merchant's writes sit in
   * few partitions, hence few shards: with 1, its events would be fanned out one batch at a
   * time (docs/scale.md). Lambda keeps each item's records in order, and fan-out and counting
   * are idempotent per record; it costs nothing while a shard has little to read.
   */
  parallelizationFactor: 10,
} as const;

/** The dispatcher's SQS event source. */
export const dispatcherQueue = {
  batchSize: 10,
  /** No batching window: a delivery goes out as soon as it is enqueued. */
  maxBatchingWindowSeconds: 0,
  /** At most 20 dispatchers at once (up to 200 receivers called at a time). */
  maxConcurrency: 20,
} as const;

/** The provider callback consumer's SQS event source. */
export const providerCallbackConsumerQueue = { batchSize: 10, maxConcurrency: 5 } as const;

/** The timeouts are in `lambdaTimeoutSeconds` (shared/resources.ts), which the acquirer budgets are checked against. */
const providerCallbackConsumerTimeout = Duration.seconds(lambdaTimeoutSeconds.providerCallbackConsumer);
const dispatcherTimeout = Duration.seconds(lambdaTimeoutSeconds.webhookDispatcher);

export interface BackgroundFunctionsProps {
  readonly table: SingleTable;
  /** This stack's namespace of acquirer secrets (`acquirerSecretPrefixOf`). */
  readonly acquirerSecretPrefix: string;
  /** Webhook deliveries: the outbox sends to it, the dispatcher consumes it. */
  readonly deliveryQueue: IQueue;
  /** Acquirer callbacks: the provider-callbacks route sends to it, the consumer settles them. */
  readonly providerCallbackQueue: IQueue;
  /** On-failure destination of the outbox's stream mapping, consumed by the outbox (replays). */
  readonly outboxReplayQueue: IQueue;
  /** Who MED notices come from, and the SES identity the outbox may send as. */
  readonly emailSender: { readonly from: string; readonly identity: string; readonly replyTo?: string };
}

/**
 * The Lambdas no route reaches: the scheduler, the outbox stream consumer, the webhook
 * dispatcher and the provider callback consumer. Same house Lambda as the API, same base environment.
 */
export class BackgroundFunctions extends Construct {
  /**
   * Every period: drains the due-work queues (GSI2: charges to expire, balances to release),
   * advances live refunds and reconciles with the merchants' acquirers.
   */
  readonly scheduler: ServiceFunction;
  /** The EventBridge rule that invokes the scheduler. */
  readonly schedulerRule: Rule;
  /**
   * Fans each new event item out (table stream) into deliveries and delivery-queue messages,
   * counts delivery changes, and e-mails MED notices.
   */
  readonly outbox: ServiceFunction;
  /** Makes one delivery attempt per delivery-queue message. */
  readonly webhookDispatcher: ServiceFunction;
  /** Reads each Pix a live acquirer announced back there and settles it. */
  readonly providerCallbackConsumer: ServiceFunction;

  constructor(scope: Construct, id: string, props: BackgroundFunctionsProps) {
    super(scope, id);

    // EventBridge rates are whole minutes (rate(n minutes)); fail the synth rather than round.
    if (!Number.isInteger(schedulerPeriodSeconds / 60) || schedulerPeriodSeconds < 60) {
      throw new Error(
        `schedulerPeriodSeconds must be a whole number of minutes, got ${schedulerPeriodSeconds}`,
      );
    }
    // A message whose attempt is still running must not become visible to another dispatcher
    // (CloudFormation also rejects a mapping whose queue times out before its function).
    if (webhookQueues.visibilityTimeoutSeconds < dispatcherTimeout.toSeconds()) {
      throw new Error(
        `The delivery queue's visibility timeout (${webhookQueues.visibilityTimeoutSeconds} s) must be ` +
          `at least the dispatcher's timeout (${dispatcherTimeout.toSeconds()} s)`,
      );
    }

    this.scheduler = new ServiceFunction(this, 'Scheduler', {
      entry: join(functionsDir, 'scheduler', 'index.ts'),
      description:
        'Pix background: the scheduler (expiries, releases, refund advances, acquirer reconciliation)',
      timeout: Duration.seconds(lambdaTimeoutSeconds.scheduler),
      environment: serviceEnvironment,
    });
    // Deletes a balance tranche once released.
    this.scheduler.bindTable(props.table, { access: tableAccessOf.scheduler });
    // Advances live refunds and reconciles (GET /cob before expiry, GET /pix) at the merchants' acquirers.
    this.scheduler.allowAcquirerSecrets(props.acquirerSecretPrefix);

    // No retries of a failed run by Lambda either (EventBridge invokes asynchronously, and Lambda
    // retries an asynchronous invocation twice by default): the next run is a minute away.
    this.scheduler.function.configureAsyncInvoke({ retryAttempts: 0 });

    this.schedulerRule = new Rule(this, 'SchedulerRule', {
      description: `Runs the Pix scheduler every ${schedulerPeriodSeconds} s`,
      schedule: Schedule.rate(Duration.minutes(schedulerPeriodSeconds / 60)),
      // No retries and no DLQ: a failed run's work is still due, and the next run picks it up.
      // Runs that keep failing raise Observability's SchedulerErrorsAlarm.
      targets: [new LambdaFunction(this.scheduler.function, { retryAttempts: 0 })],
    });

    this.outbox = new ServiceFunction(this, 'Outbox', {
      entry: join(functionsDir, 'outbox', 'index.ts'),
      description:
        'Pix background: the outbox (new events to webhook deliveries; delivery and payment counters)',
      // Up to 100 events a batch, each an endpoint query, conditional puts and a queue send.
      timeout: Duration.seconds(lambdaTimeoutSeconds.outbox),
      environment: serviceEnvironment,
    });
    // Reads endpoints, puts deliveries and marks them enqueued; counts delivery and charge changes
    // (counter ADDs and a marker per stream record, in one transaction); deletes a MED e-mail's
    // claim when its send failed, so the retry sends it.
    this.outbox.bindTable(props.table, { access: tableAccessOf.outbox });
    this.outbox.bindQueue(props.deliveryQueue, 'WEBHOOK_QUEUE_URL', ['sqs:SendMessage']);
    // E-mails MED notices (opened, resolved) to the accounts' contact addresses.
    this.outbox.allowSendEmail(props.emailSender);
    // Grants the stream read itself, and SendMessage on the on-failure destination.
    this.outbox.function.addEventSource(
      new DynamoEventSource(props.table.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: outboxStream.batchSize,
        parallelizationFactor: outboxStream.parallelizationFactor,
        bisectBatchOnError: true,
        retryAttempts: outboxStream.retryAttempts,
        maxRecordAge: Duration.seconds(outboxStream.maxRecordAgeSeconds),
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(props.outboxReplayQueue),
        // Only new event items, delivery changes and charge changes invoke it (the patterns are
        // OR'ed); every other write to the table is dropped by Lambda.
        filters: outboxStreamFilters.map((pattern) => FilterCriteria.filter(pattern)),
      }),
    );

    // Reads a given-up batch back from the stream (the grants above) and handles it again
    // (functions/outbox/replay.ts), one description per invocation.
    this.outbox.function.addEventSource(
      new SqsEventSource(props.outboxReplayQueue, {
        batchSize: 1,
        maxConcurrency: outboxReplayQueue.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );

    Validations.of(this.outbox.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams (granted by the stream event source with the stream reads, which are ' +
        'on the stream ARN) supports no resource-level permissions; Lambda needs it to read the stream.',
    });

    this.webhookDispatcher = new ServiceFunction(this, 'WebhookDispatcher', {
      entry: join(functionsDir, 'webhook-dispatcher', 'index.ts'),
      description: 'Pix background: the webhook dispatcher (one delivery attempt per message)',
      timeout: dispatcherTimeout,
      // The SSRF guard: https only, no private addresses.
      environment: { ...serviceEnvironment, ALLOW_HTTP_WEBHOOKS: 'false' },
    });
    // Reads the delivery, its event and its endpoint (BatchGetItem, GetItem) and records each
    // attempt or cancels the delivery (conditional UpdateItem): no query, no index, no put,
    // delete or batch write. It calls merchant-controlled URLs, so it gets no more than that.
    this.webhookDispatcher.bindTable(props.table, {
      access: tableAccessOf['webhook-dispatcher'],
      keyPatterns: tierKeyPatterns['webhook-dispatcher'],
    });
    // Hides a failed attempt's message until its retry is due. (The event source grants it too,
    // with receive and delete; stated here because the retry schedule depends on it.)
    this.webhookDispatcher.bindQueue(props.deliveryQueue, 'WEBHOOK_QUEUE_URL', [
      'sqs:ChangeMessageVisibility',
    ]);
    this.webhookDispatcher.function.addEventSource(
      new SqsEventSource(props.deliveryQueue, {
        batchSize: dispatcherQueue.batchSize,
        maxBatchingWindow: Duration.seconds(dispatcherQueue.maxBatchingWindowSeconds),
        maxConcurrency: dispatcherQueue.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );

    if (providerCallbackQueues.visibilityTimeoutSeconds < providerCallbackConsumerTimeout.toSeconds()) {
      throw new Error(
        "The provider callback queue's visibility timeout must be at least its consumer's timeout",
      );
    }
    this.providerCallbackConsumer = new ServiceFunction(this, 'ProviderCallbackConsumer', {
      entry: join(functionsDir, 'provider-callback-consumer', 'index.ts'),
      description: 'Pix background: reads each Pix an acquirer announced back there and settles it',
      timeout: providerCallbackConsumerTimeout,
      environment: serviceEnvironment,
    });
    // Settles the charge (receipt, transition, journal, wallet, events) and advances refunds.
    this.providerCallbackConsumer.bindTable(props.table, {
      access: tableAccessOf['provider-callback-consumer'],
    });
    // Reads the Pix back at the account's acquirer (its secret).
    this.providerCallbackConsumer.allowAcquirerSecrets(props.acquirerSecretPrefix);
    // Receive and delete only, granted by the event source.
    this.providerCallbackConsumer.function.addEventSource(
      new SqsEventSource(props.providerCallbackQueue, {
        batchSize: providerCallbackConsumerQueue.batchSize,
        maxConcurrency: providerCallbackConsumerQueue.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
  }
}
