/**
 * Fault injection for the local test runtime only: with `FAULT_INJECTION=true` (never set by
 * the stack), a request header `x-fault-inject: <point>` makes the service fail at that point,
 * so tests can prove a retry after a failure at any step creates nothing twice.
 */

import { config } from '../config.ts';
import { DomainError } from '../domain/errors.ts';

type FaultPoint =
  | 'after-provider'
  | 'after-write'
  | 'refund-after-write'
  | 'refund-after-provider'
  | 'refund-contended'
  | 'unexpected-error'
  | 'evidence-storage';

/** A failure the test asked for: the edge's table maps no status to it, so it answers 500 `injected_fault`. */
class InjectedFault extends DomainError {
  constructor(point: FaultPoint) {
    super('injected_fault', `Injected fault at ${point}`);
  }
}

export function injectFault(point: FaultPoint, headers: Record<string, string>): void {
  if (faultRequested(point, headers)) throw new InjectedFault(point);
}

/** Whether the request asks to fail at `point` (for faults the caller raises as its own error). */
export const faultRequested = (point: FaultPoint, headers: Record<string, string>): boolean =>
  config.faultInjection && headers['x-fault-inject'] === point;
