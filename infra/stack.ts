import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import * as v from 'valibot';
import { acquirerSecretPrefixOf } from '#shared/resources.ts';
import { fallbackGroup, type Group } from '#shared/routes.ts';
import { AlarmTopic } from './constructs/alarm-topic.ts';
import { HttpApi } from './constructs/api.ts';
import { ApiFunctions } from './constructs/api-functions.ts';
import { BackgroundFunctions } from './constructs/background-functions.ts';
import { EvidenceBucket } from './constructs/evidence-bucket.ts';
import { GeneratedSecret } from './constructs/generated-secret.ts';
import { Observability } from './constructs/observability.ts';
import { ProviderCallbackQueues } from './constructs/provider-callback-queues.ts';
import type { ServiceFunction } from './constructs/service-function.ts';
import { SingleTable } from './constructs/table.ts';
import { WebhookQueues } from './constructs/webhook-queues.ts';

export interface PixServiceStackProps extends StackProps {
  /**
   * Base URL of the public links (checkout pages, Pix payload locations) when the API is served on
   * a custom domain, e.g. `https://pay.example.com`: HTTPS, no query, no trailing slash (one is
   * removed). Becomes `PUBLIC_BASE_URL` on the API Lambdas; absent, the code derives the base URL
   * from the request's domain name. `bin/app.ts` reads it from the `publicBaseUrl` context value.
   */
  readonly publicBaseUrl?: string;
  /**
   * The sender of MED notice e-mails (`EMAIL_FROM`), an address of a verified SES identity, e.g.
   * `Pix <no-reply@pay.example.com>`. `bin/app.ts` reads it from the `emailFrom` context value.
   * @default 'no-reply@example.com' (SES refuses it: notices fail and are logged, nothing else is affected)
   */
  readonly emailFrom?: string;
  /**
   * The verified SES identity the outbox may send as (`ses:SendEmail` on its ARN only): the
   * sender's domain or the address itself. Context value `emailIdentity`.
   * @default the domain of `emailFrom`
   */
  readonly emailIdentity?: string;
  /**
   * Where a merchant's reply to a MED notice goes (`EMAIL_REPLY_TO`), e.g.
   * `Suporte <suporte@pay.example.com>`: the sender is usually a no-reply address. Context value
   * `emailReplyTo`.
   * @default none: replies go to the sender
   */
  readonly emailReplyTo?: string;
}

/** The address of `Name <address>` or of a bare address; anything else fails the synth, named. */
function mailboxAddress(name: string, value: unknown): string {
  if (typeof value !== 'string') throw new Error(`${name} must be a string`);
  const address = /<([^<>]+)>\s*$/.exec(value)?.[1] ?? value.trim();
  if (!v.is(v.pipe(v.string(), v.email()), address))
    throw new Error(`${name} ${JSON.stringify(value)} is not an e-mail address`);
  return address;
}

/**
 * The sender address, the SES identity it belongs to (a mismatch fails the synth) and the
 * optional reply-to address (SES sends to it without verifying it).
 */
export function parseEmailSender(
  from: unknown = 'no-reply@example.com',
  identity?: unknown,
  replyTo?: unknown,
): { from: string; identity: string; replyTo?: string } {
  const address = mailboxAddress('emailFrom', from);
  if (replyTo !== undefined && replyTo !== '') mailboxAddress('emailReplyTo', replyTo);
  const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
  const chosen = identity === undefined || identity === '' ? domain : identity;
  if (
    typeof chosen !== 'string' ||
    (chosen.toLowerCase() !== domain && chosen.toLowerCase() !== address.toLowerCase())
  )
    throw new Error(
      `emailIdentity ${JSON.stringify(identity)} must be ${domain} or ${address} (the sender's)`,
    );
  return {
    from: from as string,
    identity: chosen.toLowerCase(),
    ...(typeof replyTo === 'string' && replyTo !== '' && { replyTo }),
  };
}

/** Checks and normalises `publicBaseUrl`: a mistyped value fails the synth, not a payer's scan. */
export function parsePublicBaseUrl(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const invalid = (why: string) => new Error(`publicBaseUrl ${JSON.stringify(value)} ${why}`);
  if (typeof value !== 'string') throw invalid('must be a string');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid('is not a URL');
  }
  if (url.protocol !== 'https:') throw invalid('must use https');
  if (url.search || url.hash || url.username || url.password) {
    throw invalid('must have no query, fragment or credentials');
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/**
 * The Pix payment service: stateful resources (table, webhook queues, evidence bucket, JWT and
 * Pix signing keys), one Lambda per API group, the HTTP API in front of them, and the background
 * Lambdas (scheduler, outbox fan-out, webhook dispatcher, provider callback consumer).
 * Environment-agnostic, and no physical names, so the same stack deploys to any account, region
 * or stage side by side.
 */
export class PixServiceStack extends Stack {
  readonly table: SingleTable;
  readonly webhookQueues: WebhookQueues;
  readonly providerCallbackQueues: ProviderCallbackQueues;
  readonly evidence: EvidenceBucket;
  readonly alarms: AlarmTopic;
  readonly jwtSecret: GeneratedSecret;
  readonly pixSigningSecret: GeneratedSecret;
  readonly functions: Readonly<Record<Group, ServiceFunction>>;
  readonly background: BackgroundFunctions;
  /** Where this stack's acquirer secrets live in Secrets Manager (one namespace per stack). */
  readonly acquirerSecretPrefix: string;
  readonly api: HttpApi;
  readonly observability: Observability;

  constructor(scope: Construct, id: string, props: PixServiceStackProps = {}) {
    const { publicBaseUrl, emailFrom, emailIdentity, emailReplyTo, ...stackProps } = props;
    super(scope, id, { description: 'Pix payment service', ...stackProps });

    this.table = new SingleTable(this, 'Table');
    this.alarms = new AlarmTopic(this, 'Alarms');
    this.webhookQueues = new WebhookQueues(this, 'WebhookQueues', { alarmTopic: this.alarms.topic });
    this.providerCallbackQueues = new ProviderCallbackQueues(this, 'ProviderCallbackQueues', {
      alarmTopic: this.alarms.topic,
    });
    this.evidence = new EvidenceBucket(this, 'Evidence');
    this.jwtSecret = new GeneratedSecret(this, 'JwtSecret', {
      description: 'HS256 signing key for Pix dashboard JWTs',
      noRotationReason:
        'Not rotated automatically: rotating the signing key would invalidate every open dashboard ' +
        'session at once, and the tokens it signs are short-lived (1 h). Rotate by hand if it leaks.',
    });
    this.pixSigningSecret = new GeneratedSecret(this, 'PixSigningSecret', {
      description: 'Seed of the ES256 key that signs Pix location payloads (JWS at /pix/{id})',
      noRotationReason:
        'Not rotated automatically: rotating changes the Pix payload signing key. Payer banks fetch ' +
        'the public key from /.well-known/jwks.json on every payload, but a rotation procedure ' +
        '(publishing old and new keys during the switch) is not automated yet. Rotate by hand if it leaks.',
    });

    this.acquirerSecretPrefix = acquirerSecretPrefixOf(this.stackName);
    this.functions = new ApiFunctions(this, 'ApiFunctions', {
      table: this.table,
      acquirerSecretPrefix: this.acquirerSecretPrefix,
      jwtSecret: this.jwtSecret.secret,
      pixSigningSecret: this.pixSigningSecret.secret,
      evidenceBucket: this.evidence.bucket,
      providerCallbackQueue: this.providerCallbackQueues.queue,
      publicBaseUrl: parsePublicBaseUrl(publicBaseUrl),
    }).functions;
    this.background = new BackgroundFunctions(this, 'BackgroundFunctions', {
      table: this.table,
      acquirerSecretPrefix: this.acquirerSecretPrefix,
      deliveryQueue: this.webhookQueues.deliveryQueue,
      providerCallbackQueue: this.providerCallbackQueues.queue,
      outboxReplayQueue: this.webhookQueues.outboxReplayQueue,
      emailSender: parseEmailSender(emailFrom, emailIdentity, emailReplyTo),
    });

    this.api = new HttpApi(this, 'HttpApi', { functions: this.functions, fallbackGroup });
    this.observability = new Observability(this, 'Observability', {
      alarmTopic: this.alarms.topic,
      api: this.api.api,
      outbox: this.background.outbox.function,
      scheduler: this.background.scheduler.function,
      queueAlarms: [
        this.webhookQueues.dlqAlarm,
        this.webhookQueues.outboxFailureAlarm,
        this.providerCallbackQueues.dlqAlarm,
      ],
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the public API' });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarms.topic.topicArn,
      description:
        'Subscribe ops (email, chat) here: operational alarms (webhook DLQ, provider callback DLQ, outbox failures and age, scheduler errors, 5xx, acquirer and delivery failure rates, refund money to reconcile; the queue alarms also notify again when the queue grows)',
    });
    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'The single table (for the admin CLI)',
    });
    new CfnOutput(this, 'WebhookDeadLetterQueueUrl', {
      value: this.webhookQueues.deadLetterQueue.queueUrl,
      description: 'Dead-lettered webhook deliveries; redrive from the console',
    });
    new CfnOutput(this, 'OutboxFailureQueueUrl', {
      value: this.webhookQueues.outboxFailureQueue.queueUrl,
      description:
        'Stream batches the outbox gave up on, replays included; redrive to the source queue (OutboxReplay) once fixed',
    });
    new CfnOutput(this, 'ProviderCallbackDeadLetterQueueUrl', {
      value: this.providerCallbackQueues.deadLetterQueue.queueUrl,
      description: 'Acquirer callbacks the consumer could not settle (reconciliation settles them anyway)',
    });
    new CfnOutput(this, 'EvidenceBucketName', { value: this.evidence.bucket.bucketName });
    new CfnOutput(this, 'JwtSecretArn', {
      value: this.jwtSecret.secret.secretArn,
      description: 'The dashboard JWT signing key (rotate by hand: README, Operations)',
    });
    new CfnOutput(this, 'PixSigningSecretArn', {
      value: this.pixSigningSecret.secret.secretArn,
      description: 'The seed of the Pix payload signing key (rotate by hand: README, Operations)',
    });
    new CfnOutput(this, 'AcquirerSecretPrefix', {
      value: this.acquirerSecretPrefix,
      description:
        'For the admin CLI (ACQUIRER_SECRET_PREFIX): set-provider stores each account secret under it',
    });
  }
}
