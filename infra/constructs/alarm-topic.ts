import { ArnFormat, Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';

/**
 * The SNS topic every operational alarm notifies; ops subscribe to it (its ARN is a stack output).
 * Encrypted with a customer-managed key because CloudWatch cannot publish to a topic encrypted
 * with the AWS-managed `alias/aws/sns` key (its key policy cannot be extended).
 */
export class AlarmTopic extends Construct {
  readonly topic: Topic;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    // CloudWatch acts for this account's alarms only (no confused deputy): both the key and the
    // topic policy say so.
    const fromOurAlarms = {
      StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
      ArnLike: {
        'aws:SourceArn': Stack.of(this).formatArn({
          service: 'cloudwatch',
          resource: 'alarm',
          resourceName: '*',
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      },
    };
    const key = new Key(this, 'Key', {
      description: 'Encrypts the Pix service alarm topic',
      enableKeyRotation: true,
    });
    key.addToResourcePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        principals: [cloudWatch],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: fromOurAlarms,
      }),
    );

    this.topic = new Topic(this, 'Topic', { masterKey: key, enforceSSL: true });
    // enforceSSL writes a topic policy, which replaces the default one: allow CloudWatch alarms
    // of this account to publish explicitly.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: fromOurAlarms,
      }),
    );
  }
}
