import { ArnFormat, CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { lambdaBundling } from './bundling.ts';
import type { SingleTable, TableAccess } from './table.ts';

/** Environment variables that carry a secret's ARN (never the secret itself) end in `_SECRET_ARN`. */
type SecretArnVariable = `${string}_SECRET_ARN`;

/** Environment variables that carry a queue's URL end in `_QUEUE_URL`. */
type QueueUrlVariable = `${string}_QUEUE_URL`;

/**
 * What a function may do to a queue it uses directly. Receiving and deleting are the SQS event
 * source's business (it grants them itself); `SendMessage` also authorises `SendMessageBatch`.
 */
type QueueAction = 'sqs:SendMessage' | 'sqs:ChangeMessageVisibility';

/** Settings every service Lambda (API or background) reads at cold start. */
export const serviceEnvironment = {
  API_VERSION: '2026-11-01',
  LOG_LEVEL: 'info',
} as const;

export interface ServiceFunctionProps {
  /** Absolute path of the TypeScript module exporting the handler. */
  readonly entry: string;
  /** @default 'handler' */
  readonly handler?: string;
  readonly description?: string;
  /** @default 10 seconds */
  readonly timeout?: Duration;
  readonly environment?: Readonly<Record<string, string>>;
  /** Active X-Ray tracing. @default false */
  readonly tracing?: boolean;
  /** Files copied beside the bundle: name in the bundle → absolute source path. */
  readonly assets?: Readonly<Record<string, string>>;
}

/**
 * The house Lambda: Node.js 24 on arm64, an ESM bundle built by the local esbuild (never Docker),
 * source-mapped stack traces, its own log group with a retention, and an explicit role that
 * starts with nothing but writing to that log group. Access is added with the typed `bind*`
 * and `allow*` methods, each granting the least the function needs.
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);

    // Log groups are otherwise created by Lambda on first write, with no retention.
    this.logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH });

    // An explicit role instead of the default one, which carries the AWSLambdaBasicExecutionRole
    // managed policy (logs:* on every log group in the account).
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: props.handler ?? 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: 512,
      timeout: props.timeout ?? Duration.seconds(10),
      role: this.role,
      logGroup: this.logGroup,
      tracing: props.tracing ? Tracing.ACTIVE : Tracing.DISABLED,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      bundling: {
        ...lambdaBundling,
        format: OutputFormat.ESM,
        mainFields: [...lambdaBundling.mainFields],
        externalModules: [...lambdaBundling.externalModules],
        forceDockerBundling: false,
        ...(props.assets && {
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (_input: string, output: string) =>
              Object.entries(props.assets ?? {}).map(([name, from]) => `cp "${from}" "${output}/${name}"`),
          },
        }),
      },
    });

    if (props.tracing) {
      Validations.of(this.role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level permissions.',
      });
    }
  }

  /** Grants item access to the table (and its indexes) and sets `TABLE_NAME`. */
  bindTable(
    table: SingleTable,
    options: { readonly access: TableAccess; readonly keyPatterns?: readonly string[] | undefined },
  ): this {
    table.grantData(this.role, options.access, options.keyPatterns);
    this.function.addEnvironment('TABLE_NAME', table.tableName);
    return this;
  }

  /**
   * Grants reading one of the stack's secrets: `GetSecretValue` on its ARN (a full ARN, as the
   * stack makes them), not `DescribeSecret`, which `grantRead` adds and no code calls, and no key
   * grant (they use the AWS-managed key). Sets its ARN in `envName`, e.g. `JWT_SECRET_ARN`; the
   * code fetches the value once per cold start.
   */
  bindSecret(secret: ISecret, envName: SecretArnVariable): this {
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }),
    );
    this.function.addEnvironment(envName, secret.secretArn);
    return this;
  }

  /**
   * Grants exactly `actions` on one queue's ARN and sets its URL in `envName`, e.g.
   * `WEBHOOK_QUEUE_URL`. A queue encrypted with a customer-managed key also needs the key for
   * sending; SQS-managed encryption (what this stack uses) needs no key grant.
   */
  bindQueue(
    queue: IQueue,
    envName: QueueUrlVariable,
    actions: readonly [QueueAction, ...QueueAction[]],
  ): this {
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...actions], resources: [queue.queueArn] }),
    );
    if (actions.includes('sqs:SendMessage')) {
      queue.encryptionMasterKey?.grant(this.role, 'kms:GenerateDataKey', 'kms:Decrypt');
    }
    this.function.addEnvironment(envName, queue.queueUrl);
    return this;
  }

  /**
   * The MED evidence bucket, by object-key pattern (each ends in `*`; no `ListBucket`: `HeadObject`
   * of an absent key answers 403, which the adapter reads as "not uploaded"), and
   * `EVIDENCE_BUCKET`:
   * - `uploads`: `PutObject` (what a presigned upload URL is signed for) and `GetObject`
   *   (`HeadObject` before a grant and at `complete`, and `CopyObject`'s source);
   * - `storedCopies`: `PutObject` only (`CopyObject`'s target: the confirmed copies);
   * - `stored`: `GetObject` only (presigned downloads and `HeadObject` of the confirmed copies,
   *   and of files confirmed before copies existed, read at their old upload key there).
   */
  bindEvidenceBucket(
    bucket: IBucket,
    keys: { readonly uploads: string; readonly storedCopies: string; readonly stored: string },
  ): this {
    const grants = [
      {
        actions: ['s3:PutObject', 's3:GetObject'],
        pattern: keys.uploads,
        reason:
          'Upload keys are random, one per grant, under the uploads prefix: the presigned PUT needs ' +
          'PutObject there, HeadObject and the confirming copy GetObject.',
      },
      {
        actions: ['s3:PutObject'],
        pattern: keys.storedCopies,
        reason:
          "Confirmed copies' keys are random, one per confirmation, in each account's copy folder: " +
          'the copy (CopyObject) needs PutObject there, nothing else.',
      },
      {
        actions: ['s3:GetObject'],
        pattern: keys.stored,
        reason:
          'Confirmed evidence keys are random under each account prefix: presigned downloads and ' +
          'HeadObject need GetObject there, nothing else.',
      },
    ];
    const bucketResource = bucket.node.defaultChild;
    if (!(bucketResource instanceof CfnElement))
      throw new Error('The evidence bucket must be defined in this app');
    const bucketLogicalId = Stack.of(bucketResource).getLogicalId(bucketResource);
    for (const { actions, pattern, reason } of grants) {
      this.role.addToPrincipalPolicy(
        new PolicyStatement({ actions, resources: [bucket.arnForObjects(pattern)] }),
      );
      Validations.of(this.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/${pattern}]`,
        reason,
      });
    }
    this.function.addEnvironment('EVIDENCE_BUCKET', bucket.bucketName);
    return this;
  }

  /**
   * `ses:SendEmail` as one SES identity only (its ARN: a domain or an address), the sender
   * address in `EMAIL_FROM` and the reply-to address, if any, in `EMAIL_REPLY_TO`.
   */
  allowSendEmail({ identity, from, replyTo }: { identity: string; from: string; replyTo?: string }): this {
    const identityArn = Stack.of(this).formatArn({
      service: 'ses',
      resource: 'identity',
      resourceName: identity,
    });
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['ses:SendEmail'], resources: [identityArn] }),
    );
    this.function.addEnvironment('EMAIL_FROM', from);
    if (replyTo !== undefined) this.function.addEnvironment('EMAIL_REPLY_TO', replyTo);
    return this;
  }

  /**
   * Reads the merchants' acquirer secrets (`npm run admin -- set-provider`): `GetSecretValue` on
   * the secrets named under `prefix` only (their ARNs end in a random suffix, hence the `*`), and
   * the prefix in `ACQUIRER_SECRET_PREFIX`.
   */
  allowAcquirerSecrets(prefix: string): this {
    const secrets = Stack.of(this).formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${prefix}*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secrets] }),
    );
    this.function.addEnvironment('ACQUIRER_SECRET_PREFIX', prefix);
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${prefix}*]`,
      reason: 'One secret per merchant account, created by the admin CLI: the grant covers that prefix only.',
    });
    return this;
  }

  /** Writes on the table's items under some partition-key prefixes only (`prefixedWrites`). */
  allowPrefixedWrites(
    table: SingleTable,
    writes: { actions: readonly string[]; prefixes: readonly string[] },
  ): this {
    table.grantPrefixedWrites(this.role, writes);
    this.function.addEnvironment('TABLE_NAME', table.tableName);
    return this;
  }
}
