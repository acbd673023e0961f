import { describe, expect, it } from 'vitest';
import { streamBatchOf } from '#shared/domain/stream-batch-failure.ts';

/** What Lambda sends a DynamoDB stream mapping's on-failure destination (one batch, its records left out). */
const description = {
  requestContext: {
    requestId: 'c9b8fa9f-5a7f-4b2e-9c43-2f3c9e0e9c10',
    functionArn: 'arn:aws:lambda:sa-east-1:123456789012:function:Outbox',
    condition: 'RetryAttemptsExhausted',
    approximateInvokeCount: 11,
  },
  responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
  version: '1.0',
  timestamp: '2026-11-24T08:00:00.000Z',
  DDBStreamBatchInfo: {
    shardId: 'shardId-00000001764000000000-abcdef12',
    startSequenceNumber: '4200000000000000000001',
    endSequenceNumber: '4200000000000000000099',
    approximateArrivalOfFirstRecord: '2026-11-24T07:59:00Z',
    approximateArrivalOfLastRecord: '2026-11-24T07:59:01Z',
    batchSize: 37,
    streamArn: 'arn:aws:dynamodb:sa-east-1:123456789012:table/Pix/stream/2026-11-01T00:00:00.000',
  },
};

describe('streamBatchOf', () => {
  it("reads the batch's shard and first and last sequence numbers", () => {
    expect(streamBatchOf(JSON.stringify(description))).toEqual({
      shardId: 'shardId-00000001764000000000-abcdef12',
      startSequenceNumber: '4200000000000000000001',
      endSequenceNumber: '4200000000000000000099',
      approximateArrivalOfFirstRecord: '2026-11-24T07:59:00Z',
      batchSize: 37,
      streamArn: 'arn:aws:dynamodb:sa-east-1:123456789012:table/Pix/stream/2026-11-01T00:00:00.000',
    });
  });

  it.each([
    ['not JSON', 'RetryAttemptsExhausted'],
    ['JSON without the batch', JSON.stringify({ requestContext: description.requestContext })],
    [
      'a batch without its last record',
      JSON.stringify({ DDBStreamBatchInfo: { ...description.DDBStreamBatchInfo, endSequenceNumber: '' } }),
    ],
    [
      'an SQS-source description',
      JSON.stringify({ SQSBatchInfo: { queueArn: 'arn:aws:sqs:sa-east-1:123456789012:q', batchSize: 1 } }),
    ],
  ])('is undefined for %s', (_, body) => {
    expect(streamBatchOf(body)).toBeUndefined();
  });
});
