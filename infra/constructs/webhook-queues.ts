import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { type Queue, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { outboxReplayQueue, webhookQueues } from '#shared/resources.ts';
import { encryptedQueue, notEmptyAlarm, workQueueWithDeadLetters } from './queues.ts';

export interface WebhookQueuesProps {
  /** Notified when a delivery lands in the dead-letter queue, or a stream batch in OutboxFailures. */
  readonly alarmTopic: ITopic;
}

/**
 * The queues of the webhook pipeline. Deliveries: one SQS message per delivery, received once
 * per attempt; SQS does the retrying, and after `maxReceiveCount` receives the message moves to
 * the DLQ, which alarms. Outbox replays: the stream batches the outbox gave up on, replayed by
 * the outbox; those that still fail move to `OutboxFailures`, which alarms too
 * (docs/infrastructure.md, "Failure paths").
 */
export class WebhookQueues extends Construct {
  readonly deliveryQueue: Queue;
  readonly deadLetterQueue: Queue;
  readonly dlqAlarm: Alarm;
  /** On-failure destination of the outbox's DynamoDB stream mapping (batch metadata, not items), consumed by the outbox. */
  readonly outboxReplayQueue: Queue;
  /** The replays that failed `maxReceiveCount` times: ops redrive them to `outboxReplayQueue`. */
  readonly outboxFailureQueue: Queue;
  readonly outboxFailureAlarm: Alarm;

  constructor(scope: Construct, id: string, props: WebhookQueuesProps) {
    super(scope, id);
    ({ queue: this.deliveryQueue, deadLetterQueue: this.deadLetterQueue } = workQueueWithDeadLetters(
      this,
      'DeliveryQueue',
      webhookQueues,
    ));
    this.dlqAlarm = notEmptyAlarm(
      this,
      'DeadLetterQueueAlarm',
      this.deadLetterQueue,
      props.alarmTopic,
      'A webhook delivery exhausted its attempts and is in the DLQ: inspect and redrive it.',
      webhookQueues.dlqAlarmThreshold,
    );

    // Its messages describe a failed stream batch (shard, sequence numbers), not its records.
    // Retained like the table and the DLQs: the only record of the batches the outbox gave up on.
    // Not `workQueueWithDeadLetters`: this queue keeps the id it had before replays existed.
    this.outboxFailureQueue = encryptedQueue(this, 'OutboxFailures', {
      retentionPeriod: Duration.seconds(outboxReplayQueue.retentionSeconds),
      removalPolicy: RemovalPolicy.RETAIN,
      // Lets the replay queue dead-letter here, so the console's "Start DLQ redrive" has a source.
      redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL },
    });
    this.outboxReplayQueue = encryptedQueue(this, 'OutboxReplay', {
      visibilityTimeout: Duration.seconds(outboxReplayQueue.visibilityTimeoutSeconds),
      retentionPeriod: Duration.seconds(outboxReplayQueue.retentionSeconds),
      deadLetterQueue: { queue: this.outboxFailureQueue, maxReceiveCount: outboxReplayQueue.maxReceiveCount },
    });

    this.outboxFailureAlarm = notEmptyAlarm(
      this,
      'OutboxFailuresAlarm',
      this.outboxFailureQueue,
      props.alarmTopic,
      'The outbox gave up on a stream batch, and on its replays: its events may have no deliveries ' +
        'and its changes may be uncounted. Fix the cause (the outbox logs), then redrive OutboxFailures ' +
        'to its source queue within 24 h of the failure.',
    );
  }
}
