import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { type TableAccess, tableAccessTiers, table as tableDefinition } from '#shared/resources.ts';

export type { TableAccess };

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

  /**
   * Item-level access (`tableAccessTiers` of shared/resources.ts) on the table, and its indexes if
   * the tier says so; with `keyPatterns` (`tierKeyPatterns`), only on items whose partition key
   * matches one of them.
   */
  grantData(grantee: IGrantable, access: TableAccess, keyPatterns?: readonly string[]): Grant {
    const tier = tableAccessTiers[access];
    return Grant.addToPrincipal({
      grantee,
      actions: tier.actions.map((action) => `dynamodb:${action}`),
      resourceArns: tier.indexes ? [...this.dataArns] : [this.table.tableArn],
      ...(keyPatterns && {
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...keyPatterns] } },
      }),
    });
  }

  /** `actions` on the items whose partition key starts with one of `prefixes` only (`prefixedWrites`). */
  grantPrefixedWrites(
    grantee: IGrantable,
    writes: { actions: readonly string[]; prefixes: readonly string[] },
  ): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: writes.actions.map((action) => `dynamodb:${action}`),
        resources: [this.table.tableArn],
        conditions: {
          'ForAllValues:StringLike': {
            'dynamodb:LeadingKeys': writes.prefixes.map((prefix) => `${prefix}*`),
          },
        },
      }),
    );
  }
}
