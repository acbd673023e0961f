/**
 * What every transition of a charge writes, whatever caused it: the charge in its new state
 * (only if it is still in the status it was read in, so a lost race writes nothing), the
 * live-charge counter when the charge stops awaiting payment, and the transition's events. A use
 * case adds its own items (journal, receipt…) and commits them all in one transaction.
 */

import { config } from '../config.ts';
import { type ChargeRecord, scopeOf } from '../domain/charges.ts';
import { type EventContext, transitionEvents } from '../domain/events.ts';
import { awaitingPayment, nextStatus, type Trigger } from '../domain/transaction-status.ts';
import { newEventId } from '../ids.ts';
import { type ChargeWriteGuards, pendingCounterChange, replaceChargeItem } from '../store/charges.ts';
import { outboxItems } from '../store/events.ts';

/** What the domain's event builders need from outside it. */
export const eventContext = (at: string): EventContext => ({
  at,
  recordedAt: new Date().toISOString(),
  apiVersion: config.apiVersion,
  newEventId,
});

/**
 * The named items of `trigger` taking `previous` to `next`. Throws if the state machine has no
 * such transition (a use case bug, never a client's mistake: use cases check first).
 */
export function chargeTransitionItems(
  previous: ChargeRecord,
  trigger: Trigger,
  next: ChargeRecord,
  at: string,
  options: ChargeWriteGuards = {},
) {
  if (nextStatus(trigger, previous.status) !== next.status)
    throw new Error(`${trigger} does not lead from ${previous.status} to ${next.status}`);
  const scope = scopeOf(previous);
  return {
    charge: replaceChargeItem(next, [previous.status], options),
    liveCounter:
      awaitingPayment(previous.status) && !awaitingPayment(next.status)
        ? pendingCounterChange(scope, -1, { shard: previous.liveCounterShard })
        : undefined,
    events: outboxItems(scope, transitionEvents(trigger, next, previous.status, eventContext(at))),
  };
}
