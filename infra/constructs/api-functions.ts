import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  evidenceBucket,
  lambdaTimeoutSeconds,
  prefixedWrites,
  tableAccessOf,
  tierKeyPatterns,
} from '#shared/resources.ts';
import { type Group, groups } from '#shared/routes.ts';
import { ServiceFunction, serviceEnvironment } from './service-function.ts';
import type { SingleTable } from './table.ts';

/** What one API group's Lambda may do. Everything not listed here is denied. */
interface GroupAccess {
  /** Reads the dashboard JWT signing key (issues or verifies dashboard tokens): `JWT_SECRET_ARN`. */
  readonly jwtSecret: boolean;
  /** Reads the seed of the Pix payload signing key (signs `/pix/{id}`): `PIX_SIGNING_SECRET_ARN`. */
  readonly pixSigningSecret: boolean;
  /** Calls the merchants' live acquirers: reads their secrets (`ACQUIRER_SECRET_PREFIX`). @default false */
  readonly acquirerSecrets?: boolean;
  /** Puts acquirer callbacks on the provider callback queue (`PROVIDER_CALLBACK_QUEUE_URL`). @default false */
  readonly providerCallbackQueue?: boolean;
  /** Presigns evidence uploads and downloads and checks stored files (`EVIDENCE_BUCKET`). @default false */
  readonly evidenceBucket?: boolean;
  /**
   * @default `lambdaTimeoutSeconds.api` (10 s, shared/resources.ts), which the acquirer's
   * `request` budget is checked against: a group calling the acquirer keeps it (test/infra).
   */
  readonly timeout?: Duration;
  /** Files the group serves, copied beside its bundle (name → path from the repository root). */
  readonly assets?: Readonly<Record<string, string>>;
}

/**
 * The grant table: one entry per API group of the route manifest, so a group added to
 * `shared/routes.ts` without a decision here is a compile error. Table access is in
 * `tableAccessOf` (shared/resources.ts), which the local runtime enforces too.
 */
export const groupAccess: Record<Group, GroupAccess> = {
  // Login checks passwords and issues tokens; logout writes the token to the deny-list.
  auth: { jwtSecret: true, pixSigningSecret: false },
  // Dashboard routes (JWT): issue, rotate, revoke keys (a revoke deletes the key's hash pointer)
  // and write their audit log.
  'api-keys': {
    jwtSecret: true,
    pixSigningSecret: false,
  },
  // API-key routes: create charges (with their idempotency record and outbox event, in transactions).
  // Live charges are created at the merchant's acquirer (its secret).
  charges: {
    jwtSecret: false,
    pixSigningSecret: false,
    acquirerSecrets: true,
  },
  // API-key routes that only read balances; the key lookup is a table read.
  wallets: { jwtSecret: false, pixSigningSecret: false },
  // API-key routes: create payments (the same charge creation as `charges`, in transactions),
  // list and read them, cancel, refund (refund records, reserves, events, in transactions),
  // resend a webhook (an outbox event), provider status and receipts (reads). Checks a
  // `webhookUrl` the way endpoint registration does (DNS, no connection).
  // Live payments, cancels, refunds and provider status call the merchant's acquirer (its secret).
  payments: {
    jwtSecret: false,
    pixSigningSecret: false,
    acquirerSecrets: true,
  },
  // API-key routes: register, update, rotate and delete webhook endpoints (deleting cancels their
  // pending deliveries), list deliveries and stats; plus the public event catalog (no table use).
  // No queue access: the outbox and the dispatcher move deliveries; this group only writes items.
  webhooks: { jwtSecret: false, pixSigningSecret: false },
  // API-key routes: list and read MED cases, appeal and accept them (the case, the charge's
  // transition and metadata, the journal and the MED events, in transactions). No secret. The
  // evidence routes presign uploads and downloads and check stored files in the evidence bucket,
  // under the accounts' prefix only.
  med: {
    jwtSecret: false,
    pixSigningSecret: false,
    evidenceBucket: true,
  },
  // Public pages and documents fetched by payers and their banks: read a charge, sign its Pix
  // payload. No API key, hence no per-key counters either; the stage throttle protects it.
  checkout: { jwtSecret: false, pixSigningSecret: true },
  // A live acquirer's callback (public, the token in the path): reads the token's pointer item,
  // puts the announced end-to-end ids on the provider callback queue. Writes nothing.
  'provider-callbacks': {
    jwtSecret: false,
    pixSigningSecret: false,
    providerCallbackQueue: true,
  },
  // Test-mode only: drives a charge through payment or expiry, a refund to its outcome, and a
  // MED case (open, evidence request, decision), as the acquirer would.
  sandbox: { jwtSecret: false, pixSigningSecret: false },
  // The OpenAPI document and its reference page: built from code, no data, no secret. Its own
  // Lambda keeps the reference page's script (about 4 MB) out of every other bundle.
  docs: {
    jwtSecret: false,
    pixSigningSecret: false,
    assets: { 'api-reference.js': 'node_modules/@scalar/api-reference/dist/browser/standalone.js' },
  },
};

/** Settings every API Lambda reads at cold start. */
const apiEnvironment = { ...serviceEnvironment, ALLOW_HTTP_WEBHOOKS: 'false' } as const;

/** The evidence keys of `store/keys.ts`, as the `med` group's grant patterns. */
const evidenceGrantKeys = {
  uploads: `${evidenceBucket.uploadKeyPrefix}*`,
  storedCopies: `${evidenceBucket.storedKeyPrefix}*/${evidenceBucket.storedCopyFolder}/*`,
  stored: `${evidenceBucket.storedKeyPrefix}*`,
} as const;

const repositoryRoot = join(import.meta.dirname, '..', '..');
const functionsDir = join(repositoryRoot, 'functions');

export interface ApiFunctionsProps {
  readonly table: SingleTable;
  /** This stack's namespace of acquirer secrets (`acquirerSecretPrefixOf`). */
  readonly acquirerSecretPrefix: string;
  readonly jwtSecret: ISecret;
  readonly pixSigningSecret: ISecret;
  /** The MED evidence bucket (granted to the groups whose access says so). */
  readonly evidenceBucket: IBucket;
  /** Where the provider-callbacks group puts acquirer callbacks. */
  readonly providerCallbackQueue: IQueue;
  /**
   * Base URL of the public links (checkout pages, Pix payload locations) when the API is served
   * on a custom domain, set as `PUBLIC_BASE_URL`. Absent, the code derives it from the request's
   * domain name.
   */
  readonly publicBaseUrl?: string;
}

/** One `ServiceFunction` per API group, entry `functions/<group>/index.ts`, granted per `groupAccess`. */
export class ApiFunctions extends Construct {
  readonly functions: Readonly<Record<Group, ServiceFunction>>;

  constructor(scope: Construct, id: string, props: ApiFunctionsProps) {
    super(scope, id);

    const environment: Record<string, string> = { ...apiEnvironment };
    if (props.publicBaseUrl !== undefined) environment.PUBLIC_BASE_URL = props.publicBaseUrl;

    const byGroup = new Map<Group, ServiceFunction>();
    for (const group of groups) {
      const access = groupAccess[group];
      const fn = new ServiceFunction(this, group, {
        entry: join(functionsDir, group, 'index.ts'),
        description: `Pix API: the ${group} routes`,
        timeout: access.timeout ?? Duration.seconds(lambdaTimeoutSeconds.api),
        environment,
        ...(access.assets && {
          assets: Object.fromEntries(
            Object.entries(access.assets).map(([name, path]) => [name, join(repositoryRoot, path)]),
          ),
        }),
      });
      const tableAccess = tableAccessOf[group];
      if (tableAccess !== 'none')
        fn.bindTable(props.table, { access: tableAccess, keyPatterns: tierKeyPatterns[group] });
      if (access.jwtSecret) fn.bindSecret(props.jwtSecret, 'JWT_SECRET_ARN');
      if (access.pixSigningSecret) fn.bindSecret(props.pixSigningSecret, 'PIX_SIGNING_SECRET_ARN');
      for (const writes of prefixedWrites[group] ?? []) fn.allowPrefixedWrites(props.table, writes);
      if (access.acquirerSecrets === true) fn.allowAcquirerSecrets(props.acquirerSecretPrefix);
      if (access.providerCallbackQueue === true)
        fn.bindQueue(props.providerCallbackQueue, 'PROVIDER_CALLBACK_QUEUE_URL', ['sqs:SendMessage']);
      if (access.evidenceBucket === true) fn.bindEvidenceBucket(props.evidenceBucket, evidenceGrantKeys);
      byGroup.set(group, fn);
    }
    // Complete: `groups` is every group that has a route, and only those get a Lambda.
    this.functions = Object.fromEntries(byGroup) as Record<Group, ServiceFunction>;
  }
}
