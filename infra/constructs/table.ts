import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { rateLimitKeyPrefix, table as tableDefinition } from '#shared/resources.ts';

/**
 * `read`: the read actions. `readUpdate`: those and `UpdateItem` only (it changes attributes, and
 * can create an item whose key is absent, but nothing can be replaced whole or deleted).
 * `readWrite`: those and `PutItem`. `readWriteDelete`: those and `DeleteItem`, for the functions
 * whose code deletes items (the table holds the ledger: nothing else may remove an item).
 */
export type TableAccess = 'read' | 'readUpdate' | 'readWrite' | 'readWriteDelete';

// No Scan: every access pattern is a keyed GetItem or Query. ConditionCheckItem is how a
// transaction guards on an item it does not write.
const readActions = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:ConditionCheckItem',
];
// TransactWriteItems has no IAM action of its own: it is authorised per item as these. No
// BatchWriteItem: no function writes in batches.
const writeActions = ['dynamodb:PutItem', 'dynamodb:UpdateItem'];

/** Partition keys of the per-key rate-limit counters (fixed one-minute windows). */
const rateLimitCounterKeys = `${rateLimitKeyPrefix}*`;

/**
 * The service's single DynamoDB table, built from `shared/resources.ts` so the local runtime
 * creates the same keys, indexes and TTL attribute.
 */
export class SingleTable extends Construct {
  readonly table: Table;
  /** The table and each GSI by name, so grants never need the `/index/*` wildcard. */
  readonly dataArns: readonly string[];

  constructor(scope: Construct, id: string) {
    super(scope, id);

    this.table = new Table(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The ledger and balances live here: neither a stack deletion nor a console click may drop it.
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      timeToLiveAttribute: tableDefinition.ttlAttribute,
      // The outbox consumer fans events out from the stream; it needs the item as written.
      stream: StreamViewType.NEW_AND_OLD_IMAGES,
    });
    for (const index of tableDefinition.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
      });
    }

    this.dataArns = [
      this.table.tableArn,
      ...tableDefinition.indexes.map((index) => `${this.table.tableArn}/index/${index.name}`),
    ];
  }

  get tableName(): string {
    return this.table.tableName;
  }

  /** Item-level access (`TableAccess`) on the table and its indexes. */
  grantData(grantee: IGrantable, access: TableAccess): Grant {
    const actions = {
      read: readActions,
      readUpdate: [...readActions, 'dynamodb:UpdateItem'],
      readWrite: [...readActions, ...writeActions],
      readWriteDelete: [...readActions, ...writeActions, 'dynamodb:DeleteItem'],
    }[access];
    return Grant.addToPrincipal({ grantee, actions, resourceArns: [...this.dataArns] });
  }

  /**
   * `UpdateItem` on rate-limit counter items only: read-only groups still count requests
   * against the per-key limit and may write nothing else.
   */
  grantRateLimitCounterUpdates(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [this.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [rateLimitCounterKeys] } },
      }),
    );
  }
}
