import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { groupAccess } from '#infra/constructs/api-functions.ts';
import { PixServiceStack } from '#infra/stack.ts';
import { apiThrottle, evidenceBucket, table, webhookQueues } from '#shared/resources.ts';
import { type Group, groups, routeKey, routes } from '#shared/routes.ts';

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

/** Every statement of the policies attached to a group's Lambda role. */
function statementsOf(group: Group): PolicyStatement[] {
  const role = pixStack.functions[group].role.node.defaultChild as CfnElement;
  const policies = template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: [{ Ref: logicalId(role) }] },
  });
  return Object.values(policies).flatMap(
    (policy) => policy.Properties.PolicyDocument.Statement as PolicyStatement[],
  );
}

const actionsOf = (statement: PolicyStatement): readonly string[] =>
  typeof statement.Action === 'string' ? [statement.Action] : statement.Action;

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
  it('dead-letters a delivery after maxReceiveCount receives', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: webhookQueues.visibilityTimeoutSeconds,
      MessageRetentionPeriod: webhookQueues.retentionSeconds,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('DeadLetterQueue'), 'Arn'] },
        maxReceiveCount: 15,
      },
    });
  });

  it('lets the DLQ be redriven back to its source queue', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedriveAllowPolicy: { redrivePermission: 'allowAll' },
      MessageRetentionPeriod: webhookQueues.retentionSeconds,
    });
  });

  it('encrypts both queues and refuses plain HTTP', () => {
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
      2,
    );
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

  it('aborts stale multipart uploads and moves old evidence to infrequent access', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: [
          Match.objectLike({
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: evidenceBucket.abortIncompleteUploadDays },
            Transitions: [
              { StorageClass: 'STANDARD_IA', TransitionInDays: evidenceBucket.infrequentAccessAfterDays },
            ],
          }),
        ],
      },
    });
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

describe('JWT secret', () => {
  it('is a generated 64-character alphanumeric string', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
  });
});

describe('API Lambdas', () => {
  it('runs one Node.js 24 arm64 function per API group', () => {
    template.resourceCountIs('AWS::Lambda::Function', groups.length);
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
            TABLE_NAME: Match.anyValue(),
          }),
        },
        LoggingConfig: { LogGroup: Match.anyValue() },
      });
    }
  });

  it('gives each function its own log group with a retention, and no managed policy', () => {
    template.resourcePropertiesCountIs('AWS::Logs::LogGroup', { RetentionInDays: 30 }, groups.length + 1);
    template.allResourcesProperties('AWS::IAM::Role', { ManagedPolicyArns: Match.absent() });
  });

  it.each(groups)('grants the %s group exactly what the grant table says', (group) => {
    const access = groupAccess[group];
    const actions = statementsOf(group).flatMap((statement) =>
      statement.Condition ? [] : actionsOf(statement),
    );
    expect(actions).toContain('dynamodb:Query');
    expect(actions.includes('dynamodb:PutItem')).toBe(access.table === 'readWrite');
    expect(actions.includes('secretsmanager:GetSecretValue')).toBe(access.jwtSecret);
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
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

  it('sends unknown paths ($default) to the auth group and nothing else is routed', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Route', routes.length + 1);
    const auth = logicalId(pixStack.functions.auth.function.node.defaultChild as CfnElement);
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration', {
      Properties: { IntegrationUri: { 'Fn::GetAtt': [auth, 'Arn'] } },
    });
    const [authIntegration] = Object.keys(integrations);
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: '$default',
      Target: { 'Fn::Join': ['', ['integrations/', { Ref: authIntegration }]] },
    });
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
