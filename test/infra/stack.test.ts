import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { groupAccess } from '#infra/constructs/api-functions.ts';
import {
  dispatcherQueue,
  outboxStream,
  providerCallbackConsumerQueue,
} from '#infra/constructs/background-functions.ts';
import { alarmRules } from '#infra/constructs/observability.ts';
import type { ServiceFunction } from '#infra/constructs/service-function.ts';
import { PixServiceStack, parseEmailSender, parsePublicBaseUrl } from '#infra/stack.ts';
import {
  acquirerCallers,
  acquirerSecretPrefixOf,
  apiThrottle,
  type BackgroundFunction,
  evidenceBucket,
  lambdaTimeoutSeconds,
  observability,
  outboxReplayQueue,
  prefixedWrites,
  providerCallbackQueues,
  schedulerPeriodSeconds,
  table,
  tableAccessOf,
  tableAccessTiers,
  tierKeyPatterns,
  webhookQueues,
} from '#shared/resources.ts';
import { fallbackGroup, type Group, groups, routeKey, routes } from '#shared/routes.ts';
import { evidenceObjectKey, evidenceStoredObjectKey } from '#shared/store/keys.ts';

interface NagReport {
  readonly pluginReports: readonly {
    readonly pluginName: string;
    readonly violations: readonly {
      readonly ruleName: string;
      readonly violatingConstructs: readonly { readonly constructPath: string }[];
    }[];
  }[];
}

interface PolicyStatement {
  readonly Effect: 'Allow' | 'Deny';
  readonly Action: string | readonly string[];
  readonly Resource: unknown;
  readonly Condition?: Readonly<Record<string, unknown>>;
}

/** Synthesizes an app with the AWS Solutions checks; the template is written even when they fail. */
function synthesize(build: (app: App) => Stack): { template: Template; nag: NagReport; error?: unknown } {
  const app = new App();
  const stack = build(app);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  let error: unknown;
  try {
    app.synth();
  } catch (caught) {
    error = caught;
  }
  const read = (file: string): unknown => JSON.parse(readFileSync(join(app.outdir, file), 'utf8'));
  const reportFile = 'validation-report.json';
  return {
    template: Template.fromJSON(read(stack.templateFile) as Record<string, unknown>),
    nag: existsSync(join(app.outdir, reportFile)) ? (read(reportFile) as NagReport) : { pluginReports: [] },
    error,
  };
}

const findingsOf = (nag: NagReport): string[] =>
  nag.pluginReports.flatMap((plugin) =>
    plugin.violations.flatMap((violation) =>
      violation.violatingConstructs.map((construct) => `${violation.ruleName} at ${construct.constructPath}`),
    ),
  );

// Synthesized once for the whole file: bundling the Lambdas with esbuild takes a few seconds.
let stack: PixServiceStack | undefined;
const synthesized = synthesize((app) => {
  stack = new PixServiceStack(app, 'PixService');
  return stack;
});
const { template } = synthesized;
const pixStack = stack!;

const logicalId = (element: CfnElement): string => Stack.of(element).getLogicalId(element);

/** Every statement of the policies attached to a Lambda's role (an API group's, or the one given). */
function statementsOf(fn: Group | ServiceFunction): PolicyStatement[] {
  const role = (typeof fn === 'string' ? pixStack.functions[fn] : fn).role.node.defaultChild as CfnElement;
  const policies = template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: [{ Ref: logicalId(role) }] },
  });
  return Object.values(policies).flatMap(
    (policy) => policy.Properties.PolicyDocument.Statement as PolicyStatement[],
  );
}

const actionsOf = (statement: PolicyStatement): readonly string[] =>
  typeof statement.Action === 'string' ? [statement.Action] : statement.Action;

const tableWriteActions = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

/** Unconditional item writes anywhere in the table (the prefixed write grants, `prefixedWrites`, are conditional). */
const canWriteTable = (fn: Group | ServiceFunction): boolean =>
  statementsOf(fn).some(
    (statement) =>
      !statement.Condition && actionsOf(statement).some((action) => tableWriteActions.includes(action)),
  );

type StackSecret = 'jwtSecret' | 'pixSigningSecret';

/** Whether the Lambda may read that secret's value (and only that secret's: the statement names its ARN). */
function readsSecret(fn: Group | ServiceFunction, secret: StackSecret): boolean {
  const arn = { Ref: logicalId(pixStack[secret].secret.node.defaultChild as CfnElement) };
  return statementsOf(fn).some(
    (statement) =>
      actionsOf(statement).includes('secretsmanager:GetSecretValue') &&
      JSON.stringify(statement.Resource) === JSON.stringify(arn),
  );
}

/** `{ 'Fn::GetAtt': [<queue>, 'Arn'] }` as it appears in a policy or an event source mapping. */
const arnOf = (resource: { node: { defaultChild?: unknown } }): unknown => ({
  'Fn::GetAtt': [logicalId(resource.node.defaultChild as CfnElement), 'Arn'],
});

/** Every `sqs:*` action a Lambda's role allows, as `action → resources` (resources as JSON). */
function queueGrantsOf(fn: Group | ServiceFunction): Record<string, string[]> {
  const grants: Record<string, string[]> = {};
  for (const statement of statementsOf(fn)) {
    const resources = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
    for (const action of actionsOf(statement).filter((a) => a.startsWith('sqs:'))) {
      grants[action] = [...(grants[action] ?? []), ...resources.map((r) => JSON.stringify(r))].sort();
    }
  }
  return grants;
}

/** Properties of the one event source mapping that invokes a Lambda. */
function mappingOf(fn: ServiceFunction, eventSourceArn?: unknown): Record<string, unknown> {
  const mappings = Object.values(
    template.findResources('AWS::Lambda::EventSourceMapping', {
      Properties: {
        FunctionName: { Ref: logicalId(fn.function.node.defaultChild as CfnElement) },
        ...(eventSourceArn !== undefined && { EventSourceArn: eventSourceArn }),
      },
    }),
  );
  expect(mappings).toHaveLength(1);
  return mappings[0]?.Properties as Record<string, unknown>;
}

/** Properties of a Lambda function resource. */
function functionPropertiesOf(fn: ServiceFunction): Record<string, unknown> {
  const id = logicalId(fn.function.node.defaultChild as CfnElement);
  return (template.toJSON().Resources[id] as { Properties: Record<string, unknown> }).Properties;
}

/** Environment variables of a Lambda. */
function environmentOf(fn: ServiceFunction, source: Template = template): Record<string, unknown> {
  const id = logicalId(fn.function.node.defaultChild as CfnElement);
  const resource = source.toJSON().Resources[id] as { Properties: { Environment: { Variables: object } } };
  return resource.Properties.Environment.Variables as Record<string, unknown>;
}

function timeoutOf(fn: ServiceFunction): number {
  const id = logicalId(fn.function.node.defaultChild as CfnElement);
  return (template.toJSON().Resources[id] as { Properties: { Timeout: number } }).Properties.Timeout;
}

describe('Lambda timeouts', () => {
  it('are the figures of shared/resources.ts, which the acquirer budgets are checked against', () => {
    // test/unit/acquirer-budget.test.ts checks each caller's budget fits the timeout named here.
    for (const group of groups) expect(timeoutOf(pixStack.functions[group])).toBe(lambdaTimeoutSeconds.api);
    expect(timeoutOf(pixStack.background.scheduler)).toBe(acquirerCallers.scheduler.timeoutSeconds);
    expect(timeoutOf(pixStack.background.providerCallbackConsumer)).toBe(
      acquirerCallers.providerCallbackConsumer.timeoutSeconds,
    );
    expect(timeoutOf(pixStack.functions.charges)).toBe(acquirerCallers.api.timeoutSeconds);
    expect(timeoutOf(pixStack.background.outbox)).toBe(lambdaTimeoutSeconds.outbox);
    expect(timeoutOf(pixStack.background.webhookDispatcher)).toBe(lambdaTimeoutSeconds.webhookDispatcher);
  });
});

describe('single table', () => {
  it('is on-demand, point-in-time recoverable, deletion-protected and retained', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      }),
    });
  });

  it("has three GSIs: gsi1 (look-ups), gsi2 (the scheduler's due-work queues, delivery cells) and gsi3 (endpoint delivery cells, payment status cells)", () => {
    expect(table.indexes.map((index) => index.name)).toEqual(['gsi1', 'gsi2', 'gsi3']);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: [
        {
          IndexName: 'gsi1',
          KeySchema: [
            { AttributeName: 'gsi1pk', KeyType: 'HASH' },
            { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
        {
          IndexName: 'gsi2',
          KeySchema: [
            { AttributeName: 'gsi2pk', KeyType: 'HASH' },
            { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
        {
          IndexName: 'gsi3',
          KeySchema: [
            { AttributeName: 'gsi3pk', KeyType: 'HASH' },
            { AttributeName: 'gsi3sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
  });

  it('has the keys, TTL attribute, stream and GSIs of shared/resources.ts', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: table.partitionKey, KeyType: 'HASH' },
        { AttributeName: table.sortKey, KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      GlobalSecondaryIndexes: table.indexes.map((index) =>
        Match.objectLike({ IndexName: index.name, Projection: { ProjectionType: 'ALL' } }),
      ),
    });
  });
});

describe('webhook queues', () => {
  it('dead-letters a delivery after maxReceiveCount (15) receives', () => {
    expect(webhookQueues.maxReceiveCount).toBe(15);
    const delivery = logicalId(pixStack.webhookQueues.deliveryQueue.node.defaultChild as CfnElement);
    expect(template.toJSON().Resources[delivery].Properties).toEqual({
      VisibilityTimeout: webhookQueues.visibilityTimeoutSeconds,
      MessageRetentionPeriod: webhookQueues.retentionSeconds,
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: arnOf(pixStack.webhookQueues.deadLetterQueue),
        maxReceiveCount: 15,
      },
    });
    // Only the delivery, provider callback and outbox replay queues have a redrive policy: the
    // DLQs and OutboxFailures are end stations.
    template.resourcePropertiesCountIs('AWS::SQS::Queue', { RedrivePolicy: Match.anyValue() }, 3);
  });

  it('lets the DLQ be redriven back to its source queue', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedriveAllowPolicy: { redrivePermission: 'allowAll' },
      MessageRetentionPeriod: webhookQueues.retentionSeconds,
    });
  });

  it('encrypts the six queues (delivery, DLQ, OutboxReplay, OutboxFailures, provider callbacks and DLQ) and refuses plain HTTP', () => {
    template.resourceCountIs('AWS::SQS::Queue', 6);
    template.allResourcesProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    template.resourcePropertiesCountIs(
      'AWS::SQS::QueuePolicy',
      {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      },
      6,
    );
  });

  it('retains the queues that hold the only record of failures (both DLQs, OutboxFailures), as the table', () => {
    const retained = [
      pixStack.webhookQueues.deadLetterQueue,
      pixStack.webhookQueues.outboxFailureQueue,
      pixStack.providerCallbackQueues.deadLetterQueue,
    ].map((queue) => logicalId(queue.node.defaultChild as CfnElement));
    const queues = template.findResources('AWS::SQS::Queue');
    for (const id of retained) {
      expect(queues[id]).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
    // The work queues are not retained: pending deliveries are also in the table (their status), and
    // reconciliation settles the Pix of a lost callback.
    const retainedIds = Object.entries(queues)
      .filter(([, queue]) => queue.DeletionPolicy === 'Retain')
      .map(([id]) => id);
    expect(retainedIds.sort()).toEqual([...retained].sort());
  });

  it("lets CloudWatch use the topic's key and publish to it only for this account's alarms", () => {
    const fromOurAlarms = {
      StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      ArnLike: {
        'aws:SourceArn': {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':cloudwatch:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':alarm:*',
            ],
          ],
        },
      },
    };
    const cloudWatch = { Service: 'cloudwatch.amazonaws.com' };
    const keyStatements = Object.values(template.findResources('AWS::KMS::Key')).flatMap(
      (key) => key.Properties.KeyPolicy.Statement as (PolicyStatement & { Principal: unknown })[],
    );
    const forCloudWatch = keyStatements.filter(
      (statement) => JSON.stringify(statement.Principal) === JSON.stringify(cloudWatch),
    );
    expect(forCloudWatch).toEqual([
      {
        Effect: 'Allow',
        Principal: cloudWatch,
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        Resource: '*',
        Condition: fromOurAlarms,
      },
    ]);
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Principal: cloudWatch, Action: 'sns:Publish', Condition: fromOurAlarms }),
        ]),
      },
    });
  });

  it('alarms to the encrypted ops topic as soon as one message is in the DLQ', () => {
    const dlq = logicalId(pixStack.webhookQueues.deadLetterQueue.node.defaultChild as CfnElement);
    const topic = logicalId(pixStack.alarms.topic.node.defaultChild as CfnElement);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 60,
      EvaluationPeriods: 1,
      Threshold: webhookQueues.dlqAlarmThreshold,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: topic }],
    });
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasOutput('AlarmTopicArn', { Value: { Ref: topic } });
    template.hasOutput('WebhookDeadLetterQueueUrl', {
      Value: { Ref: logicalId(pixStack.webhookQueues.deadLetterQueue.node.defaultChild as CfnElement) },
    });
  });
});

describe('OutboxReplay and OutboxFailures queues', () => {
  const queue = (): string =>
    logicalId(pixStack.webhookQueues.outboxFailureQueue.node.defaultChild as CfnElement);
  const replayQueue = (): string =>
    logicalId(pixStack.webhookQueues.outboxReplayQueue.node.defaultChild as CfnElement);

  it('gives a replay 3 receives, 6 min apart, then dead-letters it to OutboxFailures, which can be redriven back', () => {
    expect(outboxReplayQueue).toEqual({
      maxReceiveCount: 3,
      visibilityTimeoutSeconds: 360,
      retentionSeconds: 14 * 24 * 3600,
      maxConcurrency: 2,
    });
    expect(template.toJSON().Resources[replayQueue()].Properties).toEqual({
      VisibilityTimeout: 360,
      MessageRetentionPeriod: 14 * 24 * 3600,
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: arnOf(pixStack.webhookQueues.outboxFailureQueue),
        maxReceiveCount: 3,
      },
    });
    // The outbox consumes the replays one at a time, reporting a failed one as a batch item failure.
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: arnOf(pixStack.webhookQueues.outboxReplayQueue),
      FunctionName: { Ref: logicalId(pixStack.background.outbox.function.node.defaultChild as CfnElement) },
      BatchSize: 1,
      // Two readers of a shard at most besides the live mapping's (DynamoDB Streams throttles more).
      ScalingConfig: { MaximumConcurrency: 2 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('is encrypted, TLS-only and keeps messages 14 days', () => {
    expect(template.toJSON().Resources[queue()].Properties).toEqual({
      MessageRetentionPeriod: 14 * 24 * 3600,
      SqsManagedSseEnabled: true,
      RedriveAllowPolicy: { redrivePermission: 'allowAll' },
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queue() }],
      PolicyDocument: {
        Statement: [
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ],
      },
    });
    template.hasOutput('OutboxFailureQueueUrl', { Value: { Ref: queue() } });
  });

  it('alarms to the ops topic as soon as it holds one message', () => {
    const topic = logicalId(pixStack.alarms.topic.node.defaultChild as CfnElement);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue(), 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 60,
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: topic }],
    });
    // Three queues' alarms and their "grew" companions, and the six of the observability construct.
    template.resourceCountIs('AWS::CloudWatch::Alarm', 12);
  });
});

describe('queues that should stay empty', () => {
  const queues = () => [
    pixStack.webhookQueues.deadLetterQueue,
    pixStack.webhookQueues.outboxFailureQueue,
    pixStack.providerCallbackQueues.deadLetterQueue,
  ];

  it('each notify again when they grow while already holding messages', () => {
    const topic = logicalId(pixStack.alarms.topic.node.defaultChild as CfnElement);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map(
      (r) => r.Properties as Record<string, any>,
    );
    for (const queue of queues()) {
      const id = logicalId(queue.node.defaultChild as CfnElement);
      const grew = alarms.filter((a) =>
        a.Metrics?.some(
          (q: any) =>
            q.MetricStat?.Metric?.Dimensions?.[0]?.Value?.['Fn::GetAtt']?.[0] === id &&
            q.MetricStat.Metric.MetricName === 'ApproximateNumberOfMessagesVisible',
        ),
      );
      expect(grew, id).toHaveLength(1);
      const alarm = grew[0] as Record<string, any>;
      const expression = alarm.Metrics.find((q: any) => q.ReturnData !== false && q.Expression);
      // Previous minute above 0 and this minute above it; an idle queue (no data) counts as 0.
      expect(expression.Expression).toBe(
        'IF((FILL(m, 0) - DIFF(FILL(m, 0))) > 0 AND DIFF(FILL(m, 0)) > 0, 1, 0)',
      );
      expect(alarm).toMatchObject({
        Threshold: 1,
        EvaluationPeriods: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: topic }],
      });
    }
  });
});

describe('observability', () => {
  const topic = () => ({ Ref: logicalId(pixStack.alarms.topic.node.defaultChild as CfnElement) });
  /** The alarm with this logical id prefix, and its metric math by expression id. */
  function alarmOf(construct: { node: { defaultChild?: unknown } }) {
    const id = logicalId(construct.node.defaultChild as CfnElement);
    const properties = template.toJSON().Resources[id].Properties;
    const queries = Object.fromEntries(
      ((properties.Metrics ?? []) as { Id: string }[]).map((query) => [query.Id, query]),
    ) as Record<string, any>;
    return { properties, queries };
  }
  const serviceMetric = (name: string, period: number) => ({
    MetricStat: {
      Metric: {
        Namespace: observability.metricNamespace,
        MetricName: name,
        Dimensions: expect.arrayContaining([
          { Name: 'service', Value: observability.serviceName },
          { Name: 'mode', Value: 'live' },
        ]),
      },
      Period: period,
      Stat: 'Sum',
    },
    ReturnData: false,
  });
  const rateAlarm = (rule: { threshold: number; periods: number }) => ({
    Threshold: rule.threshold,
    EvaluationPeriods: rule.periods,
    DatapointsToAlarm: rule.periods,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    TreatMissingData: 'notBreaching',
    AlarmActions: [topic()],
  });

  it('alarms on the API 5xx rate (HTTP API 5xx over Count), to the ops topic', () => {
    const { properties, queries } = alarmOf(pixStack.observability.api5xxRateAlarm);
    expect(properties).toMatchObject(rateAlarm(alarmRules.api5xxRate));
    expect(
      Object.values(queries)
        .map((q) => q.Expression)
        .filter(Boolean),
    ).toEqual(['IF(whole > 0, 100 * FILL(part, 0) / whole, 0)']);
    const api = {
      Name: 'ApiId',
      Value: { Ref: logicalId(pixStack.api.api.node.defaultChild as CfnElement) },
    };
    expect(queries.part?.MetricStat).toMatchObject({
      Metric: { Namespace: 'AWS/ApiGateway', MetricName: '5xx', Dimensions: [api] },
      Period: alarmRules.api5xxRate.periodMinutes * 60,
    });
    expect(queries.whole?.MetricStat).toMatchObject({ Metric: { MetricName: 'Count', Dimensions: [api] } });
  });

  it('alarms on the live acquirer error rate and the live webhook attempt failure rate, from the EMF metrics', () => {
    const acquirer = alarmOf(pixStack.observability.acquirerErrorRateAlarm);
    expect(acquirer.properties).toMatchObject(rateAlarm(alarmRules.acquirerErrorRate));
    const period = alarmRules.acquirerErrorRate.periodMinutes * 60;
    expect(acquirer.queries.part).toMatchObject(serviceMetric(observability.metrics.acquirerErrors, period));
    expect(acquirer.queries.whole).toMatchObject(serviceMetric(observability.metrics.acquirerCalls, period));

    const delivery = alarmOf(pixStack.observability.deliveryFailureRateAlarm);
    expect(delivery.properties).toMatchObject(rateAlarm(alarmRules.deliveryFailureRate));
    const deliveryPeriod = alarmRules.deliveryFailureRate.periodMinutes * 60;
    expect(delivery.queries.part).toMatchObject(
      serviceMetric(observability.metrics.webhookAttemptFailures, deliveryPeriod),
    );
    expect(delivery.queries.whole).toMatchObject(
      serviceMetric(observability.metrics.webhookAttempts, deliveryPeriod),
    );
  });

  /** An `AWS/Lambda` metric of one of the stack's functions, as an alarm names it. */
  const lambdaMetric = (name: string, fn: { function: { node: { defaultChild?: unknown } } }) => ({
    Namespace: 'AWS/Lambda',
    MetricName: name,
    Dimensions: [
      { Name: 'FunctionName', Value: { Ref: logicalId(fn.function.node.defaultChild as CfnElement) } },
    ],
  });

  it("alarms when the outbox stream mapping's IteratorAge stays over the threshold", () => {
    const { properties } = alarmOf(pixStack.observability.outboxAgeAlarm);
    expect(properties).toMatchObject({
      ...lambdaMetric('IteratorAge', pixStack.background.outbox),
      Statistic: 'Maximum',
      Period: alarmRules.outboxAge.periodMinutes * 60,
      Threshold: alarmRules.outboxAge.threshold,
      EvaluationPeriods: alarmRules.outboxAge.periods,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [topic()],
    });
  });

  it("alarms when the scheduler's runs fail (Lambda Errors) in consecutive minutes, to the ops topic", () => {
    // Its EventBridge target neither retries nor dead-letters a failed run: this alarm is the only trace.
    expect(alarmRules.schedulerErrors).toEqual({ threshold: 1, periodMinutes: 1, periods: 3 });
    const { properties } = alarmOf(pixStack.observability.schedulerErrorsAlarm);
    expect(properties).toMatchObject({
      ...lambdaMetric('Errors', pixStack.background.scheduler),
      Statistic: 'Sum',
      Period: 60,
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [topic()],
    });
  });

  it('alarms on the first refund whose money the books and the acquirer disagree on, or that is overdue', () => {
    expect(alarmRules.refundMoney).toEqual({ threshold: 1, periodMinutes: 5, periods: 1 });
    const { properties, queries } = alarmOf(pixStack.observability.refundMoneyAlarm);
    expect(properties).toMatchObject({
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [topic()],
    });
    const expression = Object.values(queries).find((q: any) => q.Expression);
    expect(expression?.Expression).toBe('FILL(returned, 0) + FILL(unreturned, 0) + FILL(overdue, 0)');
    expect(queries.returned).toMatchObject(
      serviceMetric(observability.metrics.refundsReturnedAfterFailure, 300),
    );
    expect(queries.unreturned).toMatchObject(
      serviceMetric(observability.metrics.automaticReturnsFailed, 300),
    );
    expect(queries.overdue).toMatchObject(serviceMetric(observability.metrics.refundsOverdue, 300));
  });

  it('has a dashboard with the alarms and every service metric', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const body = JSON.stringify(
      Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]?.Properties.DashboardBody,
    );
    for (const name of Object.values(observability.metrics)) expect(body).toContain(`\\"${name}\\"`);
    for (const alarm of [
      'Api5xxRateAlarm',
      'AcquirerErrorRateAlarm',
      'DeliveryFailureRateAlarm',
      'OutboxAgeAlarm',
      'SchedulerErrorsAlarm',
      'RefundMoneyAlarm',
      // The queues' alarms too.
      logicalId(pixStack.webhookQueues.dlqAlarm.node.defaultChild as CfnElement),
      logicalId(pixStack.webhookQueues.outboxFailureAlarm.node.defaultChild as CfnElement),
      logicalId(pixStack.providerCallbackQueues.dlqAlarm.node.defaultChild as CfnElement),
    ])
      expect(body).toContain(alarm);
  });
});

describe('evidence bucket', () => {
  const evidence = (): string => logicalId(pixStack.evidence.bucket.node.defaultChild as CfnElement);

  it('is private and S3-encrypted', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      LoggingConfiguration: { DestinationBucketName: Match.anyValue() },
    });
    template.resourceCountIs('AWS::S3::Bucket', 2);
    template.allResourcesProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: Match.objectLike({ BlockPublicPolicy: true }),
    });
  });

  it('accepts browser PUTs only from presigned URLs (CORS PUT)', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      CorsConfiguration: {
        CorsRules: [
          Match.objectLike({
            AllowedMethods: ['PUT'],
            AllowedOrigins: [...evidenceBucket.cors.allowedOrigins],
            AllowedHeaders: [...evidenceBucket.cors.allowedHeaders],
          }),
        ],
      },
    });
  });

  const lifecycleOf = (bucketId: string): Record<string, unknown>[] =>
    template.toJSON().Resources[bucketId].Properties.LifecycleConfiguration?.Rules ?? [];
  const accessLogs = (): string =>
    logicalId(pixStack.evidence.accessLogsBucket.node.defaultChild as CfnElement);

  it('aborts stale multipart uploads, moves old evidence to infrequent access, expires raw uploads', () => {
    expect(lifecycleOf(evidence())).toEqual([
      {
        Status: 'Enabled',
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: evidenceBucket.abortIncompleteUploadDays },
        Transitions: [
          { StorageClass: 'STANDARD_IA', TransitionInDays: evidenceBucket.infrequentAccessAfterDays },
        ],
      },
      // The bucket is versioned: the noncurrent versions (an expired upload, or one a second PUT
      // to the same URL replaced) and then the delete markers go too.
      {
        Id: 'ExpireUploads',
        Status: 'Enabled',
        Prefix: evidenceBucket.uploadKeyPrefix,
        ExpirationInDays: evidenceBucket.uploadExpirationDays,
        NoncurrentVersionExpiration: { NoncurrentDays: evidenceBucket.uploadNoncurrentExpirationDays },
      },
      {
        Id: 'RemoveUploadDeleteMarkers',
        Status: 'Enabled',
        Prefix: evidenceBucket.uploadKeyPrefix,
        ExpiredObjectDeleteMarker: true,
      },
    ]);
    expect(template.toJSON().Resources[evidence()].Properties.VersioningConfiguration).toEqual({
      Status: 'Enabled',
    });
    // Well past the grant (and a `complete` still running): an upload is never read after it.
    expect(evidenceBucket.uploadExpirationDays * 86_400).toBeGreaterThan(
      evidenceBucket.uploadUrlTtlSeconds + lambdaTimeoutSeconds.api,
    );
  });

  it('expires nothing outside the uploads prefix: the confirmed copies are kept', () => {
    const expiring = lifecycleOf(evidence()).filter(
      (rule) =>
        'ExpirationInDays' in rule ||
        'ExpirationDate' in rule ||
        'NoncurrentVersionExpiration' in rule ||
        'ExpiredObjectDeleteMarker' in rule,
    );
    expect(expiring.length).toBeGreaterThan(0);
    for (const rule of expiring) expect(rule.Prefix).toBe(evidenceBucket.uploadKeyPrefix);
    expect(evidenceBucket.uploadKeyPrefix.startsWith(evidenceBucket.storedKeyPrefix)).toBe(false);
    expect(evidenceBucket.storedKeyPrefix.startsWith(evidenceBucket.uploadKeyPrefix)).toBe(false);
  });

  it('expires the server access logs', () => {
    expect(template.toJSON().Resources[evidence()].Properties.LoggingConfiguration).toMatchObject({
      DestinationBucketName: { Ref: accessLogs() },
    });
    expect(lifecycleOf(accessLogs())).toEqual([
      { Id: 'ExpireAccessLogs', Status: 'Enabled', ExpirationInDays: evidenceBucket.accessLogExpirationDays },
    ]);
  });

  it('denies every request that is not over TLS, on the evidence and the access log bucket', () => {
    const tlsOnly = {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Principal: { AWS: '*' },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    };
    template.hasResourceProperties('AWS::S3::BucketPolicy', { Bucket: { Ref: evidence() }, ...tlsOnly });
    template.resourcePropertiesCountIs('AWS::S3::BucketPolicy', tlsOnly, 2);
  });
});

describe('secrets', () => {
  it('are two, each a generated 64-character alphanumeric string: the JWT key and the Pix signing seed', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', 2);
    template.allResourcesProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      Description: Match.stringLikeRegexp('ES256 key that signs Pix location payloads'),
    });
  });
});

describe('secret grants', () => {
  it('are GetSecretValue on the one secret ARN only: no DescribeSecret (the code never calls it)', () => {
    const jwtArn = { Ref: logicalId(pixStack.jwtSecret.secret.node.defaultChild as CfnElement) };
    const jwt = statementsOf('auth').filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('secretsmanager:')),
    );
    expect(jwt).toEqual([{ Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: jwtArn }]);
    const everyAction = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as PolicyStatement[]).flatMap(actionsOf),
    );
    expect(everyAction).toContain('secretsmanager:GetSecretValue');
    expect(everyAction).not.toContain('secretsmanager:DescribeSecret');
  });

  it('outputs both generated secrets, for ops rotating them by hand', () => {
    for (const [output, secret] of [
      ['JwtSecretArn', pixStack.jwtSecret],
      ['PixSigningSecretArn', pixStack.pixSigningSecret],
    ] as const)
      template.hasOutput(output, {
        Value: { Ref: logicalId(secret.secret.node.defaultChild as CfnElement) },
      });
  });
});

describe('API Lambdas', () => {
  it('runs one Node.js 24 arm64 function per API group (plus four background ones)', () => {
    expect(groups).toEqual([
      'auth',
      'api-keys',
      'charges',
      'payments',
      'wallets',
      'webhooks',
      'med',
      'checkout',
      'provider-callbacks',
      'sandbox',
      'docs',
    ]);
    // Background: scheduler, outbox, webhook dispatcher, provider callback consumer.
    template.resourceCountIs('AWS::Lambda::Function', groups.length + 4);
    for (const group of groups) {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: `Pix API: the ${group} routes`,
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 512,
        Environment: {
          Variables: Match.objectLike({
            NODE_OPTIONS: '--enable-source-maps',
            API_VERSION: '2026-11-01',
            ALLOW_HTTP_WEBHOOKS: 'false',
          }),
        },
        LoggingConfig: { LogGroup: Match.anyValue() },
      });
    }
  });

  it('gives each function its own log group with a retention, and no managed policy', () => {
    // One per API group, one per background function (4), and the API access logs.
    template.resourcePropertiesCountIs('AWS::Logs::LogGroup', { RetentionInDays: 30 }, groups.length + 5);
    template.allResourcesProperties('AWS::IAM::Role', { ManagedPolicyArns: Match.absent() });
  });

  it.each(groups)('grants the %s group exactly what the grant table says', (group) => {
    const access = groupAccess[group];
    const actions = statementsOf(group).flatMap((statement) =>
      statement.Condition ? [] : actionsOf(statement),
    );
    expect('TABLE_NAME' in environmentOf(pixStack.functions[group])).toBe(tableAccessOf[group] !== 'none');
    expect(readsSecret(group, 'jwtSecret')).toBe(access.jwtSecret);
    expect(readsSecret(group, 'pixSigningSecret')).toBe(access.pixSigningSecret);
    expect(actions.filter((action) => action.startsWith('secretsmanager:')).length > 0).toBe(
      access.jwtSecret || access.pixSigningSecret || access.acquirerSecrets === true,
    );
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);

    const environment = environmentOf(pixStack.functions[group]);
    expect('JWT_SECRET_ARN' in environment).toBe(access.jwtSecret);
    expect('PIX_SIGNING_SECRET_ARN' in environment).toBe(access.pixSigningSecret);
    expect('ACQUIRER_SECRET_PREFIX' in environment).toBe(access.acquirerSecrets === true);
    // Deliveries are queued by the outbox, consumed by the dispatcher; the only API group with a
    // queue is provider-callbacks, which may only send to its own.
    expect(queueGrantsOf(group)).toEqual(
      access.providerCallbackQueue === true
        ? { 'sqs:SendMessage': [JSON.stringify(arnOf(pixStack.providerCallbackQueues.queue))] }
        : {},
    );
    expect('PROVIDER_CALLBACK_QUEUE_URL' in environment).toBe(access.providerCallbackQueue === true);
    expect(environment).not.toHaveProperty('WEBHOOK_QUEUE_URL');
  });

  const tableFunctions = Object.keys(tableAccessOf) as (keyof typeof tableAccessOf)[];
  const functionOf = (name: keyof typeof tableAccessOf): ServiceFunction =>
    name in pixStack.functions
      ? pixStack.functions[name as Group]
      : {
          scheduler: pixStack.background.scheduler,
          outbox: pixStack.background.outbox,
          'webhook-dispatcher': pixStack.background.webhookDispatcher,
          'provider-callback-consumer': pixStack.background.providerCallbackConsumer,
        }[name as BackgroundFunction];
  it.each(tableFunctions)(
    'grants %s exactly its tier of table actions, on the table and (a tier with indexes) each GSI by name',
    (name) => {
      const access = tableAccessOf[name];
      // The tier's statement is the one that reads: the prefixed write grants only write.
      const statements = statementsOf(functionOf(name)).filter((statement) =>
        actionsOf(statement).some((action) => /^dynamodb:(GetItem|BatchGetItem|Query|Scan)$/.test(action)),
      );
      if (access === 'none') return expect(statements).toEqual([]);
      expect(statements).toHaveLength(1);
      const [statement] = statements as [PolicyStatement];
      expect([...actionsOf(statement)].sort()).toEqual(
        tableAccessTiers[access].actions.map((action) => `dynamodb:${action}`).sort(),
      );
      const resources = JSON.stringify(statement.Resource);
      for (const index of table.indexes)
        expect(resources.includes(`/index/${index.name}`)).toBe(tableAccessTiers[access].indexes);
      expect(resources).not.toContain('/index/*');
      // Only on the partition keys tierKeyPatterns names, when it names the function.
      const patterns = tierKeyPatterns[name];
      expect(statement.Condition).toEqual(
        patterns && { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...patterns] } },
      );
      // Writes only where the tier says so; deletes only in the functions whose code deletes.
      expect(canWriteTable(functionOf(name))).toBe(
        !patterns && tableAccessTiers[access].actions.some((action) => /Put|Update|Delete/.test(action)),
      );
    },
  );

  it('gives the prefix-limited write grants (IAM LeadingKeys) to exactly the functions prefixedWrites names', () => {
    for (const name of tableFunctions) {
      const conditioned = statementsOf(functionOf(name)).filter(
        (statement) => statement.Condition && !actionsOf(statement).includes('dynamodb:GetItem'),
      );
      const grants = prefixedWrites[name] ?? [];
      expect(
        conditioned.map((statement) => ({
          actions: [...actionsOf(statement)].sort(),
          condition: statement.Condition,
        })),
        name,
      ).toEqual(
        grants.map((writes) => ({
          actions: writes.actions.map((a) => `dynamodb:${a}`).sort(),
          condition: {
            'ForAllValues:StringLike': {
              'dynamodb:LeadingKeys': writes.prefixes.map((prefix) => `${prefix}*`),
            },
          },
        })),
      );
    }
    // The public login function writes nothing else: no unconditioned write on the table.
    expect(canWriteTable('auth')).toBe(false);
  });

  it('lets the public checkout group read the table and the Pix signing seed, and nothing else', () => {
    const statements = statementsOf('checkout');
    const allActions = statements.flatMap(actionsOf);
    for (const action of tableWriteActions) expect(allActions).not.toContain(action);
    expect(allActions).not.toContain('dynamodb:Scan');
    expect(readsSecret('checkout', 'pixSigningSecret')).toBe(true);
    expect(readsSecret('checkout', 'jwtSecret')).toBe(false);
    expect(environmentOf(pixStack.functions.checkout)).toMatchObject({
      PIX_SIGNING_SECRET_ARN: {
        Ref: logicalId(pixStack.pixSigningSecret.secret.node.defaultChild as CfnElement),
      },
    });
  });

  it('lets the charges, payments, med and sandbox groups write the table but delete nothing, without any secret', () => {
    for (const group of ['charges', 'payments', 'med', 'sandbox'] as const) {
      expect(canWriteTable(group)).toBe(true);
      expect(statementsOf(group).flatMap(actionsOf)).not.toContain('dynamodb:DeleteItem');
      expect(readsSecret(group, 'jwtSecret')).toBe(false);
      expect(readsSecret(group, 'pixSigningSecret')).toBe(false);
    }
  });

  it('lets the webhooks group write the table (endpoints, cancelled deliveries), with no queue and no secret', () => {
    expect(groupAccess.webhooks).toEqual({ jwtSecret: false, pixSigningSecret: false });
    expect(tableAccessOf.webhooks).toBe('readWriteDelete');
    expect(canWriteTable('webhooks')).toBe(true);
    const allActions = statementsOf('webhooks').flatMap(actionsOf);
    expect(allActions.filter((action) => action.startsWith('sqs:'))).toEqual([]);
    expect(allActions.filter((action) => action.startsWith('secretsmanager:'))).toEqual([]);
    expect(environmentOf(pixStack.functions.webhooks)).toMatchObject({ ALLOW_HTTP_WEBHOOKS: 'false' });
    // Every webhooks route, the public event catalog included, goes to this Lambda.
    const webhooks = logicalId(pixStack.functions.webhooks.function.node.defaultChild as CfnElement);
    const [integration] = Object.keys(
      template.findResources('AWS::ApiGatewayV2::Integration', {
        Properties: { IntegrationUri: { 'Fn::GetAtt': [webhooks, 'Arn'] } },
      }),
    );
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'GET /v1/webhooks/event-catalog',
      Target: { 'Fn::Join': ['', ['integrations/', { Ref: integration }]] },
    });
  });

  it('lets only the med group use the evidence bucket: Put/Get on uploads, Put on copies, Get on accounts', () => {
    const bucket = logicalId(pixStack.evidence.bucket.node.defaultChild as CfnElement);
    const objects = (pattern: string) => ({
      'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, `/${pattern}`]],
    });
    const uploads = `${evidenceBucket.uploadKeyPrefix}*`;
    const copies = `${evidenceBucket.storedKeyPrefix}*/${evidenceBucket.storedCopyFolder}/*`;
    const stored = `${evidenceBucket.storedKeyPrefix}*`;
    for (const group of groups) {
      const s3 = statementsOf(group).filter((statement) =>
        actionsOf(statement).some((a) => a.startsWith('s3:')),
      );
      if (group !== 'med') {
        expect(s3, group).toEqual([]);
        expect(environmentOf(pixStack.functions[group]), group).not.toHaveProperty('EVIDENCE_BUCKET');
        continue;
      }
      expect(s3).toEqual([
        // Presigned PUTs; HeadObject before a grant and at `complete`; the copy's source.
        { Effect: 'Allow', Action: ['s3:PutObject', 's3:GetObject'], Resource: objects(uploads) },
        // The copy's target only.
        { Effect: 'Allow', Action: 's3:PutObject', Resource: objects(copies) },
        // Presigned downloads and HeadObject of confirmed files.
        { Effect: 'Allow', Action: 's3:GetObject', Resource: objects(stored) },
      ]);
      expect(environmentOf(pixStack.functions.med)).toMatchObject({ EVIDENCE_BUCKET: { Ref: bucket } });
    }
    // The keys the service builds fall under those patterns (`*` spans `/` in an S3 ARN).
    const scope = { accountId: 'acct_1', mode: 'live' } as const;
    const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const matches = (pattern: string, key: string) =>
      new RegExp(`^${pattern.split('*').map(literal).join('.*')}$`).test(key);
    expect(matches(uploads, evidenceObjectKey(scope, 'f00d'))).toBe(true);
    expect(matches(copies, evidenceObjectKey(scope, 'f00d'))).toBe(false);
    expect(matches(stored, evidenceObjectKey(scope, 'f00d'))).toBe(false);
    expect(matches(copies, evidenceStoredObjectKey(scope, 'f00d'))).toBe(true);
    expect(matches(stored, evidenceStoredObjectKey(scope, 'f00d'))).toBe(true);
    expect(matches(uploads, evidenceStoredObjectKey(scope, 'f00d'))).toBe(false);
  });

  it("acknowledges to cdk-nag exactly the med role's evidence wildcards", () => {
    const bucket = logicalId(pixStack.evidence.bucket.node.defaultChild as CfnElement);
    const acknowledged = pixStack.functions.med.role.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.keys(entry.data as Record<string, string>));
    expect(acknowledged.filter((id) => id.includes('AwsSolutions-IAM5')).sort()).toEqual(
      [
        `${evidenceBucket.uploadKeyPrefix}*`,
        `${evidenceBucket.storedKeyPrefix}*/${evidenceBucket.storedCopyFolder}/*`,
        `${evidenceBucket.storedKeyPrefix}*`,
      ]
        .map((pattern) => `Annotation::AwsSolutions-IAM5[Resource::<${bucket}.Arn>/${pattern}]`)
        .sort(),
    );
  });

  it('sets no PUBLIC_BASE_URL unless the publicBaseUrl context value is given', () => {
    for (const group of groups)
      expect(environmentOf(pixStack.functions[group])).not.toHaveProperty('PUBLIC_BASE_URL');
  });

  it('sets PUBLIC_BASE_URL on every API Lambda (not the background ones) for a custom domain', () => {
    // Bundling skipped: only the environment is under test.
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const custom = new PixServiceStack(app, 'Custom', { publicBaseUrl: 'https://Pay.Example.com/' });
    const customTemplate = Template.fromStack(custom);
    for (const group of groups) {
      expect(environmentOf(custom.functions[group], customTemplate)).toMatchObject({
        PUBLIC_BASE_URL: 'https://pay.example.com',
      });
    }
    for (const fn of [
      custom.background.scheduler,
      custom.background.outbox,
      custom.background.webhookDispatcher,
    ]) {
      expect(environmentOf(fn, customTemplate)).not.toHaveProperty('PUBLIC_BASE_URL');
    }
  });

  it('accepts only an https publicBaseUrl without query, and drops a trailing slash', () => {
    expect(parsePublicBaseUrl(undefined)).toBeUndefined();
    expect(parsePublicBaseUrl('')).toBeUndefined();
    expect(parsePublicBaseUrl('https://pay.example.com')).toBe('https://pay.example.com');
    expect(parsePublicBaseUrl('https://api.example.com/pix/')).toBe('https://api.example.com/pix');
    expect(() => parsePublicBaseUrl('http://pay.example.com')).toThrow(/https/);
    expect(() => parsePublicBaseUrl('pay.example.com')).toThrow(/not a URL/);
    expect(() => parsePublicBaseUrl('https://pay.example.com/?x=1')).toThrow(/query/);
    expect(() => parsePublicBaseUrl(42)).toThrow(/string/);
  });

  it('lets the read-only wallets group update nothing but its rate-limit counters', () => {
    const statements = statementsOf('wallets');
    const allActions = statements.flatMap(actionsOf);
    expect(allActions).not.toContain('dynamodb:PutItem');
    expect(allActions).not.toContain('dynamodb:DeleteItem');
    expect(allActions).not.toContain('dynamodb:BatchWriteItem');

    const updates = statements.filter((statement) => actionsOf(statement).includes('dynamodb:UpdateItem'));
    expect(updates).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: 'dynamodb:UpdateItem',
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATE#*'] } },
      }),
    ]);
  });
});

describe('scheduler', () => {
  const scheduler = (): ServiceFunction => pixStack.background.scheduler;
  const schedulerId = (): string => logicalId(scheduler().function.node.defaultChild as CfnElement);

  it('is a house Lambda with a 60 s timeout and the service environment', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('scheduler'),
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Timeout: 60,
      LoggingConfig: { LogGroup: Match.anyValue() },
    });
    expect(environmentOf(scheduler())).toMatchObject({
      TABLE_NAME: { Ref: logicalId(pixStack.table.table.node.defaultChild as CfnElement) },
      API_VERSION: '2026-11-01',
      LOG_LEVEL: 'info',
    });
  });

  it('reads and writes the table (and GSI2), and reads no secret', () => {
    expect(canWriteTable(scheduler())).toBe(true);
    const resources = JSON.stringify(statementsOf(scheduler()).map((statement) => statement.Resource));
    expect(resources).toContain('/index/gsi2');
    expect(readsSecret(scheduler(), 'jwtSecret')).toBe(false);
    expect(readsSecret(scheduler(), 'pixSigningSecret')).toBe(false);
  });

  it('runs every schedulerPeriodSeconds from an EventBridge rule, without retries', () => {
    expect(schedulerPeriodSeconds).toBe(60);
    template.resourceCountIs('AWS::Events::Rule', 1);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [schedulerId(), 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 0 },
        }),
      ],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [schedulerId(), 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
    // EventBridge invokes asynchronously: Lambda's own retries (2 by default) are off too, so a
    // failed run is not run again beside the next minute's.
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: schedulerId() },
      MaximumRetryAttempts: 0,
    });
  });

  it('reads no queue', () => {
    expect(queueGrantsOf(scheduler())).toEqual({});
  });
});

describe('background functions', () => {
  it.each(['scheduler', 'outbox', 'webhookDispatcher', 'providerCallbackConsumer'] as const)(
    '%s is not reachable from the API',
    (name) => {
      const fn = pixStack.background[name];
      const integrations = template.findResources('AWS::ApiGatewayV2::Integration', {
        Properties: {
          IntegrationUri: { 'Fn::GetAtt': [logicalId(fn.function.node.defaultChild as CfnElement), 'Arn'] },
        },
      });
      expect(integrations).toEqual({});
    },
  );
});

describe('outbox', () => {
  const outbox = (): ServiceFunction => pixStack.background.outbox;
  const deliveryQueue = (): string => JSON.stringify(arnOf(pixStack.webhookQueues.deliveryQueue));
  const outboxReplays = (): string => JSON.stringify(arnOf(pixStack.webhookQueues.outboxReplayQueue));
  const tableStream = () => ({
    'Fn::GetAtt': [logicalId(pixStack.table.table.node.defaultChild as CfnElement), 'StreamArn'],
  });

  it('is a house Lambda with the table and the delivery queue URL', () => {
    expect(functionPropertiesOf(outbox())).toMatchObject({
      Handler: 'index.handler',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      MemorySize: 512,
      Timeout: 60,
    });
    expect(environmentOf(outbox())).toMatchObject({
      TABLE_NAME: { Ref: logicalId(pixStack.table.table.node.defaultChild as CfnElement) },
      WEBHOOK_QUEUE_URL: {
        Ref: logicalId(pixStack.webhookQueues.deliveryQueue.node.defaultChild as CfnElement),
      },
      API_VERSION: '2026-11-01',
    });
  });

  it('consumes the table stream from TRIM_HORIZON, new event items, delivery and charge changes only', () => {
    const mapping = mappingOf(outbox(), tableStream());
    expect(mapping).toMatchObject({
      EventSourceArn: {
        'Fn::GetAtt': [logicalId(pixStack.table.table.node.defaultChild as CfnElement), 'StreamArn'],
      },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      // One merchant's records share few shards: up to 10 batches of a shard at once (docs/scale.md).
      ParallelizationFactor: 10,
    });
    const filters = (mapping.FilterCriteria as { Filters: { Pattern: string }[] }).Filters;
    // Alternatives (Lambda ORs a mapping's filters): new events to fan out, delivery and charge
    // changes to count.
    expect(filters.map((filter) => JSON.parse(filter.Pattern))).toEqual([
      { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['event'] } } } },
      { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { type: { S: ['webhookDelivery'] } } } },
      { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { type: { S: ['charge'] } } } },
    ]);
  });

  it('bisects failing batches, retries a finite number of times, then sends them to OutboxReplay, which it consumes too', () => {
    const mapping = mappingOf(outbox(), tableStream());
    expect(mapping).toMatchObject({
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: outboxStream.retryAttempts,
      MaximumRecordAgeInSeconds: outboxStream.maxRecordAgeSeconds,
      DestinationConfig: { OnFailure: { Destination: arnOf(pixStack.webhookQueues.outboxReplayQueue) } },
    });
    expect(mappingOf(outbox(), arnOf(pixStack.webhookQueues.outboxReplayQueue))).toMatchObject({
      BatchSize: 1,
    });
    expect(outboxStream.retryAttempts).toBeGreaterThan(0);
    expect(outboxStream.retryAttempts).toBeLessThanOrEqual(10);
    // Finite, and inside the stream's 24 h retention: a record is given up on before it expires.
    expect(outboxStream.maxRecordAgeSeconds).toBeGreaterThan(0);
    expect(outboxStream.maxRecordAgeSeconds).toBeLessThan(24 * 3600);
  });

  it('reads and writes the table and reads its stream', () => {
    expect(canWriteTable(outbox())).toBe(true);
    const stream = JSON.stringify({
      'Fn::GetAtt': [logicalId(pixStack.table.table.node.defaultChild as CfnElement), 'StreamArn'],
    });
    const streamReads = statementsOf(outbox()).filter((statement) =>
      actionsOf(statement).includes('dynamodb:GetRecords'),
    );
    expect(streamReads.map((statement) => JSON.stringify(statement.Resource))).toEqual([stream]);
    expect(readsSecret(outbox(), 'jwtSecret')).toBe(false);
    expect(readsSecret(outbox(), 'pixSigningSecret')).toBe(false);
  });

  it('may send to the delivery queue and OutboxReplay only, and receive from OutboxReplay only', () => {
    const grants = queueGrantsOf(outbox());
    // Lambda sends a failed batch's description to OutboxReplay with the function's role.
    expect(grants['sqs:SendMessage']).toEqual([deliveryQueue(), outboxReplays()].sort());
    const onDeliveryQueue = Object.keys(grants).filter((action) => grants[action]?.includes(deliveryQueue()));
    expect(onDeliveryQueue).toEqual(['sqs:SendMessage']);
    for (const queue of [pixStack.webhookQueues.deadLetterQueue, pixStack.webhookQueues.outboxFailureQueue]) {
      expect(JSON.stringify(grants)).not.toContain(logicalId(queue.node.defaultChild as CfnElement));
    }
    for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']) {
      expect(grants[action]).toEqual([outboxReplays()]);
    }
  });

  it('has a wildcard resource only for dynamodb:ListStreams (acknowledged), which has no resource type', () => {
    const wildcard = statementsOf(outbox()).filter((statement) =>
      JSON.stringify(statement.Resource).includes('*'),
    );
    expect(wildcard).toEqual([{ Effect: 'Allow', Action: 'dynamodb:ListStreams', Resource: '*' }]);
  });

  it('may send e-mail as the configured SES identity only, from EMAIL_FROM; no other Lambda may send any', () => {
    const identityArn = {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':ses:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':identity/example.com',
        ],
      ],
    };
    const sends = statementsOf(outbox()).filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('ses:')),
    );
    expect(sends).toEqual([{ Effect: 'Allow', Action: 'ses:SendEmail', Resource: identityArn }]);
    expect(environmentOf(outbox())).toMatchObject({ EMAIL_FROM: 'no-reply@example.com' });
    expect(environmentOf(outbox())).not.toHaveProperty('EMAIL_REPLY_TO');
    for (const fn of [...groups, pixStack.background.scheduler, pixStack.background.webhookDispatcher]) {
      expect(JSON.stringify(statementsOf(fn))).not.toContain('ses:');
    }
  });

  it('takes the sender and identity from the emailFrom / emailIdentity values, refusing a mismatch', () => {
    expect(parseEmailSender('Pix <No-Reply@Pay.Example.com>')).toEqual({
      from: 'Pix <No-Reply@Pay.Example.com>',
      identity: 'pay.example.com',
    });
    expect(parseEmailSender('ops@example.org', 'ops@example.org')).toEqual({
      from: 'ops@example.org',
      identity: 'ops@example.org',
    });
    expect(() => parseEmailSender('not an address')).toThrow(/not an e-mail address/);
    expect(() => parseEmailSender('ops@example.org', 'other.org')).toThrow(
      /must be example.org or ops@example.org/,
    );
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(parseEmailSender('ops@example.org', undefined, 'Suporte <suporte@example.org>')).toEqual({
      from: 'ops@example.org',
      identity: 'example.org',
      replyTo: 'Suporte <suporte@example.org>',
    });
    expect(() => parseEmailSender('ops@example.org', undefined, 'suporte')).toThrow(
      /emailReplyTo "suporte" is not an e-mail address/,
    );
    const custom = new PixServiceStack(app, 'Mail', {
      emailFrom: 'Pix <no-reply@pay.example.com>',
      emailReplyTo: 'Suporte <suporte@pay.example.com>',
    });
    const customTemplate = Template.fromStack(custom);
    expect(environmentOf(custom.background.outbox, customTemplate)).toMatchObject({
      EMAIL_FROM: 'Pix <no-reply@pay.example.com>',
      EMAIL_REPLY_TO: 'Suporte <suporte@pay.example.com>',
    });
    expect(JSON.stringify(customTemplate.toJSON())).toContain(':identity/pay.example.com');
  });
});

describe('webhook dispatcher', () => {
  const dispatcher = (): ServiceFunction => pixStack.background.webhookDispatcher;
  const deliveryQueue = (): string => JSON.stringify(arnOf(pixStack.webhookQueues.deliveryQueue));

  it('is a house Lambda with a 60 s timeout, 512 MB and the SSRF guard on', () => {
    expect(functionPropertiesOf(dispatcher())).toMatchObject({
      Handler: 'index.handler',
      Runtime: 'nodejs24.x',
      MemorySize: 512,
      Timeout: 60,
    });
    // Not in a VPC: it calls merchants' HTTPS endpoints on the internet.
    expect(functionPropertiesOf(dispatcher())).not.toHaveProperty('VpcConfig');
    const environment = environmentOf(dispatcher());
    expect(environment).toMatchObject({
      TABLE_NAME: { Ref: logicalId(pixStack.table.table.node.defaultChild as CfnElement) },
      WEBHOOK_QUEUE_URL: {
        Ref: logicalId(pixStack.webhookQueues.deliveryQueue.node.defaultChild as CfnElement),
      },
      ALLOW_HTTP_WEBHOOKS: 'false',
    });
    // Test-only knobs: deployed, the dispatcher runs the real 30 s timeout and retry schedule.
    expect(environment).not.toHaveProperty('WEBHOOK_RETRY_SCALE');
    expect(environment).not.toHaveProperty('WEBHOOK_TIMEOUT_MS');
  });

  it('consumes the delivery queue 10 messages at a time, reporting failures per message', () => {
    expect(mappingOf(dispatcher())).toEqual({
      FunctionName: { Ref: logicalId(dispatcher().function.node.defaultChild as CfnElement) },
      EventSourceArn: arnOf(pixStack.webhookQueues.deliveryQueue),
      BatchSize: dispatcherQueue.batchSize,
      MaximumBatchingWindowInSeconds: dispatcherQueue.maxBatchingWindowSeconds,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: dispatcherQueue.maxConcurrency },
    });
    expect(dispatcherQueue.batchSize).toBe(10);
  });

  it("keeps a message invisible for at least the dispatcher's whole run", () => {
    const delivery = logicalId(pixStack.webhookQueues.deliveryQueue.node.defaultChild as CfnElement);
    const visibility = template.toJSON().Resources[delivery].Properties.VisibilityTimeout as number;
    expect(visibility).toBe(webhookQueues.visibilityTimeoutSeconds);
    expect(visibility).toBeGreaterThanOrEqual(functionPropertiesOf(dispatcher()).Timeout as number);
  });

  it('may change visibility, receive and delete on the delivery queue only, and send nothing', () => {
    const grants = queueGrantsOf(dispatcher());
    expect(Object.keys(grants).sort()).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
    ]);
    for (const resources of Object.values(grants))
      expect(new Set(resources)).toEqual(new Set([deliveryQueue()]));
    expect(grants).not.toHaveProperty(['sqs:SendMessage']);
  });

  it('reads items by key and updates them (no query, no index, no put, delete or batch write), and reads no secret', () => {
    const dynamodb = statementsOf(dispatcher()).filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('dynamodb:')),
    );
    expect(dynamodb).toHaveLength(1);
    expect([...actionsOf(dynamodb[0] as PolicyStatement)].sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:UpdateItem',
    ]);
    // Only the partition keys of a delivery, its event, endpoint and override secret: no account,
    // user, key lookup or idempotency item, which it would otherwise be able to rewrite or create.
    expect(dynamodb[0]?.Condition).toEqual({
      'ForAllValues:StringLike': {
        'dynamodb:LeadingKeys': ['ACCOUNT#*#live', 'ACCOUNT#*#test', 'ACCOUNT#*#live#*', 'ACCOUNT#*#test#*'],
      },
    });
    const resources = JSON.stringify(dynamodb[0]?.Resource);
    for (const index of table.indexes) expect(resources).not.toContain(`/index/${index.name}`);
    expect(readsSecret(dispatcher(), 'jwtSecret')).toBe(false);
    expect(readsSecret(dispatcher(), 'pixSigningSecret')).toBe(false);
    expect(JSON.stringify(statementsOf(dispatcher()).map((statement) => statement.Resource))).not.toContain(
      '"*"',
    );
  });
});

describe('HTTP API', () => {
  it('is an HTTP API', () => {
    template.resourcePropertiesCountIs('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' }, 1);
  });

  it.each(routes.map((route) => routeKey(route)))('routes %s', (key) => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: key,
      AuthorizationType: 'NONE',
      Target: Match.anyValue(),
    });
  });

  it('sends unknown paths ($default) to the docs group, which has no table and no secret, and nothing else is routed', () => {
    expect(fallbackGroup).toBe('docs');
    template.resourceCountIs('AWS::ApiGatewayV2::Route', routes.length + 1);
    const docs = logicalId(pixStack.functions.docs.function.node.defaultChild as CfnElement);
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration', {
      Properties: { IntegrationUri: { 'Fn::GetAtt': [docs, 'Arn'] } },
    });
    const [docsIntegration] = Object.keys(integrations);
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: '$default',
      Target: { 'Fn::Join': ['', ['integrations/', { Ref: docsIntegration }]] },
    });
    // Least privilege: its role touches neither the table nor a secret, nor any queue or bucket.
    const actions = statementsOf('docs').flatMap(actionsOf);
    expect(actions.filter((action) => !action.startsWith('logs:'))).toEqual([]);
    expect(environmentOf(pixStack.functions.docs)).not.toHaveProperty('TABLE_NAME');
  });

  it('uses one payload-2.0 Lambda integration per group', () => {
    template.resourcePropertiesCountIs(
      'AWS::ApiGatewayV2::Integration',
      { IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' },
      groups.length,
    );
  });

  it('throttles and access-logs the $default stage', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: {
        ThrottlingRateLimit: apiThrottle.rateLimit,
        ThrottlingBurstLimit: apiThrottle.burstLimit,
      },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.anyValue() },
    });
    const [stage] = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
    const format = JSON.parse(stage?.Properties.AccessLogSettings.Format) as Record<string, string>;
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      ip: '$context.identity.sourceIp',
      routeKey: '$context.routeKey',
      status: '$context.status',
      responseLength: '$context.responseLength',
      integrationError: '$context.integrationErrorMessage',
    });
  });

  it('outputs its URL', () => {
    template.hasOutput('ApiUrl', { Value: Match.anyValue() });
  });
});

describe('AWS Solutions checks (cdk-nag)', () => {
  it('report no unacknowledged finding, so synth succeeds', () => {
    expect(findingsOf(synthesized.nag)).toEqual([]);
    expect(synthesized.error).toBeUndefined();
  });

  it('fail the synth when a finding is not acknowledged', () => {
    const canary = synthesize((app) => {
      const stack = new Stack(app, 'Canary');
      new Queue(stack, 'Queue', { enforceSSL: true });
      return stack;
    });
    expect(findingsOf(canary.nag)).toContain('AwsSolutions-SQS3 at Canary/Queue/Resource');
    expect(canary.error).toBeInstanceOf(Error);
  });
});

describe('acquirer secrets', () => {
  const acquirerSecretPrefix = acquirerSecretPrefixOf('PixService');
  const acquirerStatements = (fn: Group | ServiceFunction) =>
    statementsOf(fn).filter((statement) => JSON.stringify(statement.Resource).includes(':secret:'));
  const secretsUnderPrefix = {
    'Fn::Join': [
      '',
      [
        'arn:',
        { Ref: 'AWS::Partition' },
        ':secretsmanager:',
        { Ref: 'AWS::Region' },
        ':',
        { Ref: 'AWS::AccountId' },
        `:secret:${acquirerSecretPrefix}*`,
      ],
    ],
  };

  it('only the functions that call the acquirer read the secrets under the prefix, and nothing else', () => {
    const callers = [
      pixStack.functions.charges,
      pixStack.functions.payments,
      pixStack.background.scheduler,
      pixStack.background.providerCallbackConsumer,
    ];
    for (const fn of callers) {
      expect(acquirerStatements(fn)).toEqual([
        { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: secretsUnderPrefix },
      ]);
      expect(environmentOf(fn)).toMatchObject({ ACQUIRER_SECRET_PREFIX: acquirerSecretPrefix });
    }
    const others = [
      ...groups.filter((g) => g !== 'charges' && g !== 'payments'),
      pixStack.background.outbox,
      pixStack.background.webhookDispatcher,
    ];
    for (const fn of others) expect(acquirerStatements(fn)).toEqual([]);
    template.hasOutput('AcquirerSecretPrefix', { Value: acquirerSecretPrefix });
  });

  it("gives each stack its own namespace: a stage in the same account and region never reads another's merchants' secrets", () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stages = ['PixService-staging', 'PixService-prod'].map((name) => new PixServiceStack(app, name));
    expect(stages.map((stage) => stage.acquirerSecretPrefix)).toEqual([
      'pix-service/PixService-staging/acquirer/',
      'pix-service/PixService-prod/acquirer/',
    ]);
    for (const [stage, other] of [stages, [...stages].reverse()] as const) {
      const synthesized = Template.fromStack(stage as PixServiceStack);
      const policies = JSON.stringify(synthesized.findResources('AWS::IAM::Policy'));
      expect(policies).toContain(`:secret:${stage?.acquirerSecretPrefix}*`);
      expect(policies).not.toContain(`:secret:${other?.acquirerSecretPrefix}`);
      synthesized.hasOutput('AcquirerSecretPrefix', { Value: stage?.acquirerSecretPrefix });
    }
  });
});

describe('provider callbacks', () => {
  const consumer = (): ServiceFunction => pixStack.background.providerCallbackConsumer;
  const queue = (): string =>
    logicalId(pixStack.providerCallbackQueues.queue.node.defaultChild as CfnElement);
  const dlq = (): string =>
    logicalId(pixStack.providerCallbackQueues.deadLetterQueue.node.defaultChild as CfnElement);

  it('routes POST /v1/provider-callbacks/{token}/pix, unauthenticated, to its own group', () => {
    const route = routes.find((r) => r.group === 'provider-callbacks');
    expect(route && routeKey(route)).toBe('POST /v1/provider-callbacks/{token}/pix');
    expect(route?.auth).toBe('none');
    expect(tableAccessOf['provider-callbacks']).toBe('getItem');
  });

  it('queues callbacks durably: encrypted, a DLQ after maxReceiveCount receives, which alarms', () => {
    expect(template.toJSON().Resources[queue()].Properties).toEqual({
      VisibilityTimeout: providerCallbackQueues.visibilityTimeoutSeconds,
      MessageRetentionPeriod: providerCallbackQueues.retentionSeconds,
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: arnOf(pixStack.providerCallbackQueues.deadLetterQueue),
        maxReceiveCount: providerCallbackQueues.maxReceiveCount,
      },
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq(), 'QueueName'] } }],
      Threshold: 1,
      AlarmActions: [{ Ref: logicalId(pixStack.alarms.topic.node.defaultChild as CfnElement) }],
    });
    template.hasOutput('ProviderCallbackDeadLetterQueueUrl', { Value: { Ref: dlq() } });
  });

  it('the consumer reads its queue with partial batch responses, and may use the table and the acquirer secrets only', () => {
    expect(mappingOf(consumer())).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [queue(), 'Arn'] },
      BatchSize: providerCallbackConsumerQueue.batchSize,
      ScalingConfig: { MaximumConcurrency: providerCallbackConsumerQueue.maxConcurrency },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(functionPropertiesOf(consumer())).toMatchObject({ Timeout: 60 });
    expect(providerCallbackQueues.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(60);
    // Receive and delete on its own queue (the event source's grant); no other queue, no send.
    const grants = queueGrantsOf(consumer());
    for (const resources of Object.values(grants))
      expect(resources).toEqual([JSON.stringify(arnOf(pixStack.providerCallbackQueues.queue))]);
    expect(grants).not.toHaveProperty('sqs:SendMessage');
    expect(JSON.stringify(statementsOf(consumer()))).not.toContain('ses:');
    expect(canWriteTable(consumer())).toBe(true);
  });
});
