import { join } from 'node:path';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { ServiceFunction } from '#infra/constructs/service-function.ts';

const entry = join(import.meta.dirname, '..', '..', 'functions', 'wallets', 'index.ts');

/** A stack holding one ServiceFunction, its template and its unacknowledged cdk-nag findings. */
function synthesize(tracing: boolean): { template: Template; findings: string[] } {
  const app = new App();
  const stack = new Stack(app, 'Fn');
  new ServiceFunction(stack, 'Fn', { entry, tracing });
  const report = new AwsSolutionsChecks(app).validateScope(app);
  return {
    template: Template.fromStack(stack),
    findings: report.violations.map((violation) => violation.ruleName),
  };
}

describe('ServiceFunction', () => {
  it('is untraced by default', () => {
    const { template } = synthesize(false);
    template.hasResourceProperties('AWS::Lambda::Function', { TracingConfig: Match.absent() });
  });

  it('can be traced with X-Ray and still passes the AWS Solutions checks', () => {
    const { template, findings } = synthesize(true);
    template.hasResourceProperties('AWS::Lambda::Function', { TracingConfig: { Mode: 'Active' } });
    expect(findings).toEqual([]);
  });
});

describe('ServiceFunction.bindQueue', () => {
  /** A function bound to one queue (bundling skipped: only the role and environment are under test). */
  function bound(encryption: QueueEncryption) {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Fn');
    const queue = new Queue(stack, 'Queue', { encryption });
    const fn = new ServiceFunction(stack, 'Fn', { entry });
    fn.bindQueue(queue, 'WEBHOOK_QUEUE_URL', ['sqs:SendMessage']);
    const template = Template.fromStack(stack);
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[],
    );
    return { stack, queue, template, statements };
  }

  it('grants exactly the given actions on that queue and sets its URL', () => {
    const { stack, queue, template, statements } = bound(QueueEncryption.SQS_MANAGED);
    const queueId = stack.getLogicalId(queue.node.defaultChild as CfnElement);
    expect(statements.filter((statement) => JSON.stringify(statement.Action).includes('sqs:'))).toEqual([
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } },
    ]);
    expect(JSON.stringify(statements)).not.toContain('kms:');
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ WEBHOOK_QUEUE_URL: { Ref: queueId } }) },
    });
  });

  it('also lets a sender use a customer-managed queue key, and only that key', () => {
    const { statements } = bound(QueueEncryption.KMS);
    const kms = statements.filter((statement) => JSON.stringify(statement.Action).includes('kms:'));
    expect(kms).toEqual([
      expect.objectContaining({
        Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^QueueKey/), 'Arn'] },
      }),
    ]);
  });
});
