import { join } from 'node:path';
import type { Duration } from 'aws-cdk-lib';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { type Group, groups } from '#shared/routes.ts';
import { ServiceFunction } from './service-function.ts';
import type { SingleTable, TableAccess } from './table.ts';

/** What one API group's Lambda may do. Everything not listed here is denied. */
export interface GroupAccess {
  /** Item access to the single table. */
  readonly table: TableAccess;
  /** Reads the dashboard JWT signing key (issues or verifies dashboard tokens). */
  readonly jwtSecret: boolean;
  /** May bump its per-key rate-limit counters although its table access is read-only. */
  readonly rateLimitCounters: boolean;
  /** @default 10 seconds */
  readonly timeout?: Duration;
}

/**
 * The grant table: one entry per API group of the route manifest, so a group added to
 * `shared/routes.ts` without a decision here is a compile error.
 */
export const groupAccess: Record<Group, GroupAccess> = {
  // Login checks passwords and issues tokens; logout writes the token to the deny-list.
  auth: { table: 'readWrite', jwtSecret: true, rateLimitCounters: false },
  // Dashboard routes (JWT): issue, rotate, revoke keys and write their audit log.
  'api-keys': { table: 'readWrite', jwtSecret: true, rateLimitCounters: false },
  // API-key routes that only read balances; the key lookup is a table read.
  wallets: { table: 'read', jwtSecret: false, rateLimitCounters: true },
};

/** Settings every API Lambda reads at cold start. */
const commonEnvironment = {
  API_VERSION: '2026-11-01',
  LOG_LEVEL: 'info',
  ALLOW_HTTP_WEBHOOKS: 'false',
} as const;

const functionsDir = join(import.meta.dirname, '..', '..', 'functions');

export interface ApiFunctionsProps {
  readonly table: SingleTable;
  readonly jwtSecret: ISecret;
}

/** One `ServiceFunction` per API group, entry `functions/<group>/index.ts`, granted per `groupAccess`. */
export class ApiFunctions extends Construct {
  readonly functions: Readonly<Record<Group, ServiceFunction>>;

  constructor(scope: Construct, id: string, props: ApiFunctionsProps) {
    super(scope, id);

    const byGroup = new Map<Group, ServiceFunction>();
    for (const group of groups) {
      const access = groupAccess[group];
      const fn = new ServiceFunction(this, group, {
        entry: join(functionsDir, group, 'index.ts'),
        description: `Pix API: the ${group} routes`,
        timeout: access.timeout,
        environment: commonEnvironment,
      });
      fn.bindTable(props.table, { access: access.table });
      if (access.jwtSecret) fn.bindSecret(props.jwtSecret);
      if (access.rateLimitCounters) fn.allowRateLimitCounters(props.table);
      byGroup.set(group, fn);
    }
    // Complete: `groups` is every group that has a route, and only those get a Lambda.
    this.functions = Object.fromEntries(byGroup) as Record<Group, ServiceFunction>;
  }
}
