import { Duration, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { webhookQueues } from '#shared/resources.ts';

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

    const retentionPeriod = Duration.seconds(webhookQueues.retentionSeconds);
    const alarmAction = new SnsAction(props.alarmTopic);
    /** Alarms as soon as the queue holds `threshold` visible messages (1 × 1 min, Maximum). */
    const notEmptyAlarm = (alarmId: string, queue: Queue, description: string, threshold: number): Alarm => {
      const alarm = new Alarm(this, alarmId, {
        alarmDescription: description,
        metric: queue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        // SQS stops publishing metrics for an idle queue: no data means nothing failed.
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(alarmAction);
      return alarm;
    };

    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      retentionPeriod,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Must let the delivery queue use it, or the console's "Start DLQ redrive" has no source.
      // Not BY_QUEUE: naming the delivery queue's ARN here while the delivery queue names this
      // one in its redrive policy is a CloudFormation dependency cycle (and we use no fixed names).
      redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL },
    });

    this.deliveryQueue = new Queue(this, 'DeliveryQueue', {
      visibilityTimeout: Duration.seconds(webhookQueues.visibilityTimeoutSeconds),
      retentionPeriod,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: webhookQueues.maxReceiveCount },
    });

    this.dlqAlarm = notEmptyAlarm(
      'DeadLetterQueueAlarm',
      this.deadLetterQueue,
      'A webhook delivery exhausted its attempts and is in the DLQ: inspect and redrive it.',
      webhookQueues.dlqAlarmThreshold,
    );

    // 14 days, like the others. Its messages describe a failed stream batch (shard, sequence
    // numbers, reason); the events themselves stay in the table, where ops find them to replay.
    this.outboxFailureQueue = new Queue(this, 'OutboxFailures', {
      retentionPeriod,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(this.outboxFailureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'OutboxFailures is itself a dead-letter destination (the on-failure destination of the ' +
        "outbox's stream mapping); nothing consumes it, ops read it after its alarm fires.",
    });

    this.outboxFailureAlarm = notEmptyAlarm(
      'OutboxFailuresAlarm',
      this.outboxFailureQueue,
      'The outbox fan-out gave up on a stream batch (retries or record age exhausted): its events ' +
        'have no deliveries. Read the message for the shard and sequence numbers and replay them.',
      1,
    );
  }
}
