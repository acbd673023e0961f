import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { fallbackGroup, type Group } from '#shared/routes.ts';
import { AlarmTopic } from './constructs/alarm-topic.ts';
import { HttpApi } from './constructs/api.ts';
import { ApiFunctions } from './constructs/api-functions.ts';
import { EvidenceBucket } from './constructs/evidence-bucket.ts';
import { JwtSecret } from './constructs/jwt-secret.ts';
import type { ServiceFunction } from './constructs/service-function.ts';
import { SingleTable } from './constructs/table.ts';
import { WebhookQueues } from './constructs/webhook-queues.ts';

/**
 * The Pix payment service: stateful resources (table, webhook queues, evidence bucket, JWT key),
 * one Lambda per API group and the HTTP API in front of them. Environment-agnostic, and no
 * physical names, so the same stack deploys to any account, region or stage side by side.
 */
export class PixServiceStack extends Stack {
  readonly table: SingleTable;
  readonly webhookQueues: WebhookQueues;
  readonly evidence: EvidenceBucket;
  readonly alarms: AlarmTopic;
  readonly jwtSecret: JwtSecret;
  readonly functions: Readonly<Record<Group, ServiceFunction>>;
  readonly api: HttpApi;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, { description: 'Pix payment service', ...props });

    this.table = new SingleTable(this, 'Table');
    this.alarms = new AlarmTopic(this, 'Alarms');
    this.webhookQueues = new WebhookQueues(this, 'WebhookQueues', { alarmTopic: this.alarms.topic });
    this.evidence = new EvidenceBucket(this, 'Evidence');
    this.jwtSecret = new JwtSecret(this, 'JwtSecret');

    this.functions = new ApiFunctions(this, 'ApiFunctions', {
      table: this.table,
      jwtSecret: this.jwtSecret.secret,
    }).functions;

    this.api = new HttpApi(this, 'HttpApi', { functions: this.functions, fallbackGroup });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the public API' });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarms.topic.topicArn,
      description: 'Subscribe ops (email, chat) here: operational alarms, e.g. webhook DLQ not empty',
    });
    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'The single table (for the admin CLI)',
    });
    new CfnOutput(this, 'WebhookDeadLetterQueueUrl', {
      value: this.webhookQueues.deadLetterQueue.queueUrl,
      description: 'Dead-lettered webhook deliveries; redrive from the console',
    });
    new CfnOutput(this, 'EvidenceBucketName', { value: this.evidence.bucket.bucketName });
  }
}
