import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { webhookQueues } from '#shared/resources.ts';

export interface WebhookQueuesProps {
  /** Notified when a delivery lands in the dead-letter queue. */
  readonly alarmTopic: ITopic;
}

/**
 * Webhook deliveries: one SQS message per delivery, received once per attempt. SQS does the
 * retrying; after `maxReceiveCount` receives the message moves to the DLQ, which alarms.
 */
export class WebhookQueues extends Construct {
  readonly deliveryQueue: Queue;
  readonly deadLetterQueue: Queue;
  readonly dlqAlarm: Alarm;

  constructor(scope: Construct, id: string, props: WebhookQueuesProps) {
    super(scope, id);

    const retentionPeriod = Duration.seconds(webhookQueues.retentionSeconds);

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

    this.dlqAlarm = new Alarm(this, 'DeadLetterQueueAlarm', {
      alarmDescription:
        'A webhook delivery exhausted its attempts and is in the DLQ: inspect and redrive it.',
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      threshold: webhookQueues.dlqAlarmThreshold,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // SQS stops publishing metrics for an idle queue: no data means nothing is dead-lettered.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.dlqAlarm.addAlarmAction(new SnsAction(props.alarmTopic));
  }
}
