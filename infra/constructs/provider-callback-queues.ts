import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { providerCallbackQueues } from '#shared/resources.ts';
import { notEmptyAlarm, workQueueWithDeadLetters } from './queues.ts';

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
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = workQueueWithDeadLetters(
      this,
      'Queue',
      providerCallbackQueues,
    ));
    this.dlqAlarm = notEmptyAlarm(
      this,
      'DeadLetterQueueAlarm',
      this.deadLetterQueue,
      props.alarmTopic,
      'An acquirer callback could not be settled after its retries (acquirer or table failing): ' +
        'reconciliation will settle the Pix; find why the consumer fails, then redrive.',
    );
  }
}
