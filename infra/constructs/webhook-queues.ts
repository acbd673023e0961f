import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { webhookQueues } from '#shared/resources.ts';
import { encryptedQueue, notEmptyAlarm, workQueueWithDeadLetters } from './queues.ts';

export interface WebhookQueuesProps {
  /** Notified when a delivery lands in the dead-letter queue, or a stream batch in OutboxFailures. */
  readonly alarmTopic: ITopic;
}

/**
 * The queues of the webhook pipeline. Deliveries: one SQS message per delivery, received once
 * per attempt; SQS does the retrying, and after `maxReceiveCount` receives the message moves to
 * the DLQ, which alarms. Outbox failures: where the outbox stream consumer's event source
 * mapping sends the description of a stream batch it gave up on, which alarms too.
 */
export class WebhookQueues extends Construct {
  readonly deliveryQueue: Queue;
  readonly deadLetterQueue: Queue;
  readonly dlqAlarm: Alarm;
  /** On-failure destination of the outbox's DynamoDB stream mapping (batch metadata, not items). */
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

    // 14 days, like the others. Its messages describe a failed stream batch (shard, sequence
    // numbers, reason); the events themselves stay in the table, where ops find them to replay.
    // Retained like the table and the DLQs: the only record of the batches the outbox gave up on.
    this.outboxFailureQueue = encryptedQueue(this, 'OutboxFailures', {
      retentionPeriod: Duration.seconds(webhookQueues.retentionSeconds),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.outboxFailureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'OutboxFailures is itself a dead-letter destination (the on-failure destination of the ' +
        "outbox's stream mapping); nothing consumes it, ops read it after its alarm fires.",
    });

    this.outboxFailureAlarm = notEmptyAlarm(
      this,
      'OutboxFailuresAlarm',
      this.outboxFailureQueue,
      props.alarmTopic,
      'The outbox fan-out gave up on a stream batch (retries or record age exhausted): its events ' +
        'have no deliveries. Read the message for the shard and sequence numbers and replay them.',
    );
  }
}
