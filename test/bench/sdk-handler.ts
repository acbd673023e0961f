/**
 * The second cold-start baseline: only the DynamoDB document client, built as
 * shared/store/client.ts builds it. The import time of a group beyond this one is our own code.
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async () => ({ statusCode: db ? 200 : 500 });
