/**
 * Claims of MED notice e-mails, one item per event (`EMAILNOTICE#<eventId>`): the stream may
 * deliver an event again (a batch retried after another record failed), and the claim makes the
 * second delivery send nothing. Removed by TTL once no replay can come (the stream keeps 24 h).
 */

import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionFailure, tableName } from './client.ts';
import { emailNoticeKey } from './keys.ts';

/** True when this call claimed the event's e-mail; false when an earlier delivery did. */
export async function claimEmailNotice(eventId: string, expiresAt: number): Promise<boolean> {
  try {
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...emailNoticeKey(eventId), type: 'emailNoticeClaim', expiresAt },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Gives the claim up (the e-mail was not sent), so a replay of the event may try again. */
export async function releaseEmailNotice(eventId: string): Promise<void> {
  await db.send(new DeleteCommand({ TableName: tableName(), Key: emailNoticeKey(eventId) }));
}
