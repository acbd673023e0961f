/**
 * The description of a stream batch the outbox gave up on: what Lambda sends to a stream
 * mapping's on-failure destination (`DDBStreamBatchInfo`, no records), and what the outbox reads
 * back when ops redrive it (docs/infrastructure.md, "Failure paths").
 */

import * as v from 'valibot';

const Text = v.pipe(v.string(), v.minLength(1));

const StreamBatchFailure = v.object({
  DDBStreamBatchInfo: v.object({
    streamArn: Text,
    shardId: Text,
    startSequenceNumber: Text,
    endSequenceNumber: Text,
    batchSize: v.pipe(v.number(), v.integer(), v.minValue(1)),
    approximateArrivalOfFirstRecord: v.optional(v.string()),
  }),
});

/** Where the batch sits in the stream: its shard and its first and last records. */
export type StreamBatchRange = v.InferOutput<typeof StreamBatchFailure>['DDBStreamBatchInfo'];

/** The batch a failure message describes, or `undefined` when the body is not such a description. */
export function streamBatchOf(body: string): StreamBatchRange | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const parsed = v.safeParse(StreamBatchFailure, json);
  return parsed.success ? parsed.output.DDBStreamBatchInfo : undefined;
}
