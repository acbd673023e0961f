/**
 * What the stack's work queues share: encrypted, TLS-only queues; a work queue with its
 * dead-letter queue (which ops redrive from the SQS console); and alarms when a queue that
 * should stay empty is not, and when it grows. Plain functions, so each resource keeps its id in its caller's scope
 * (a nested construct would rename the deployed queues and replace them).
 */

import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption, type QueueProps, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** An SQS-encrypted queue that refuses requests without TLS. */
export const encryptedQueue = (scope: Construct, id: string, props: QueueProps): Queue =>
  new Queue(scope, id, { ...props, encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true });

interface WorkQueueSettings {
  readonly retentionSeconds: number;
  readonly visibilityTimeoutSeconds: number;
  readonly maxReceiveCount: number;
}

/**
 * A work queue (`queueId`) whose messages move to `DeadLetterQueue` after `maxReceiveCount`
 * receives. The DLQ is retained when the stack is deleted (or the queue replaced), as the table is.
 */
export function workQueueWithDeadLetters(
  scope: Construct,
  queueId: string,
  settings: WorkQueueSettings,
): { queue: Queue; deadLetterQueue: Queue } {
  const retentionPeriod = Duration.seconds(settings.retentionSeconds);
  const deadLetterQueue = encryptedQueue(scope, 'DeadLetterQueue', {
    retentionPeriod,
    // What failed is recorded nowhere else: like the table, a stack deletion must not drop it.
    removalPolicy: RemovalPolicy.RETAIN,
    // Must let the work queue use it, or the console's "Start DLQ redrive" has no source.
    // Not BY_QUEUE: naming the work queue's ARN here while the work queue names this one in its
    // redrive policy is a CloudFormation dependency cycle (and we use no fixed names).
    redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL },
  });
  const queue = encryptedQueue(scope, queueId, {
    visibilityTimeout: Duration.seconds(settings.visibilityTimeoutSeconds),
    retentionPeriod,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
  });
  return { queue, deadLetterQueue };
}

/**
 * Alarms as soon as the queue holds `threshold` visible messages (1 × 1 min, Maximum). That alarm
 * stays in ALARM while anything is left, so it notifies once: a companion (`<id>Grew`) notifies
 * again each time the queue starts growing again while it already held messages, so failures that keep coming
 * while ops are busy with the first ones are not silent. A redrive empties both.
 */
export function notEmptyAlarm(
  scope: Construct,
  id: string,
  queue: Queue,
  topic: ITopic,
  description: string,
  threshold = 1,
): Alarm {
  const visible = queue.metricApproximateNumberOfMessagesVisible({
    period: Duration.minutes(1),
    statistic: 'Maximum',
  });
  const action = new SnsAction(topic);
  const alarm = new Alarm(scope, id, {
    alarmDescription: description,
    metric: visible,
    threshold,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    // SQS stops publishing metrics for an idle queue: no data means nothing failed.
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  alarm.addAlarmAction(action);
  // FILL: an idle queue publishes nothing, which counts as 0; previous minute = now − DIFF.
  const grew = new Alarm(scope, `${id}Grew`, {
    alarmDescription: `More messages arrived while the queue already held some. ${description}`,
    metric: new MathExpression({
      expression: 'IF((FILL(m, 0) - DIFF(FILL(m, 0))) > 0 AND DIFF(FILL(m, 0)) > 0, 1, 0)',
      usingMetrics: { m: visible },
      period: Duration.minutes(1),
      label: 'Grew while not empty',
    }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  grew.addAlarmAction(action);
  return alarm;
}
