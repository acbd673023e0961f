import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { providerCallbackQueues } from '#shared/resources.ts';

export interface ProviderCallbackQueuesProps {
  /** Notified when an announced Pix could not be settled and sits in the DLQ. */
  readonly alarmTopic: ITopic;
}

/**
 * The live acquirers' callbacks: the `provider-callbacks` route puts one message per end-to-end
 * id, the consumer settles it; after `maxReceiveCount` receives a message moves to the DLQ,
 * which alarms (reconciliation settles the Pix anyway; the DLQ says the consumer is failing).
 */
export class ProviderCallbackQueues extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly dlqAlarm: Alarm;

  constructor(scope: Construct, id: string, props: ProviderCallbackQueuesProps) {
    super(scope, id);
    const retentionPeriod = Duration.seconds(providerCallbackQueues.retentionSeconds);
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      retentionPeriod,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL },
    });
    this.queue = new Queue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(providerCallbackQueues.visibilityTimeoutSeconds),
      retentionPeriod,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: {
        queue: this.deadLetterQueue,
        maxReceiveCount: providerCallbackQueues.maxReceiveCount,
      },
    });
    this.dlqAlarm = new Alarm(this, 'DeadLetterQueueAlarm', {
      alarmDescription:
        'An acquirer callback could not be settled after its retries (acquirer or table failing): ' +
        'reconciliation will settle the Pix; find why the consumer fails, then redrive.',
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.dlqAlarm.addAlarmAction(new SnsAction(props.alarmTopic));
  }
}
