import { describe, expect, it } from 'vitest';
import type { ChargeRecord } from '../../shared/domain/charges.ts';
import { InvalidInput } from '../../shared/domain/errors.ts';
import { medCaseEvents } from '../../shared/domain/events.ts';
import { fanOutTargets } from '../../shared/domain/fan-out.ts';
import {
  isBalanced,
  medHoldJournal,
  medLossJournal,
  medReleaseJournal,
  walletDelta,
} from '../../shared/domain/ledger.ts';
import {
  applyMedStep,
  canApplyMedStep,
  chargeTriggerOf,
  disputableAmount,
  MED_STEPS,
  type MedCaseRecord,
  type MedCaseStatus,
  type MedStep,
  medCaseStatuses,
  medEventTypesOf,
  medMetadataOf,
  openMedCaseSchema,
  parseMedListQuery,
  serializeMedCase,
} from '../../shared/domain/med-cases.ts';
import { parseInput } from '../../shared/domain/validation.ts';

const AT = '2026-05-01T12:00:00.000Z';
const LATER = '2026-05-02T12:00:00.000Z';
const CHARGE = '0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const medCase = (status: MedCaseStatus = 'open'): MedCaseRecord => ({
  id: 'med_0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c',
  accountId: 'acct_1',
  mode: 'test',
  type: 'med',
  status,
  amount: 1000,
  currency: 'BRL',
  chargeId: CHARGE,
  reason: 'golpe',
  method: 'scam',
  payerName: 'Maria',
  payerDocument: '12345678909',
  responseDeadline: null,
  evidenceRequestedAt: null,
  appealReason: null,
  appealedAt: null,
  moneyOutcome: null,
  openedAt: AT,
  closedAt: null,
  createdAt: AT,
  updatedAt: AT,
});

// The whole case machine: step, the statuses it leaves, where it goes, the money outcome, events.
const TABLE: [MedStep, MedCaseStatus[], MedCaseStatus, string | null, string[]][] = [
  ['appeal', ['open'], 'appealed', null, ['med_case.updated']],
  ['accept', ['open'], 'accepted', 'lost', ['med_case.updated', 'med.resolved']],
  [
    'merchant_won',
    ['open', 'appealed'],
    'closed',
    'refunded_to_merchant',
    ['med_case.updated', 'med.resolved'],
  ],
  ['merchant_lost', ['open', 'appealed'], 'rejected', 'lost', ['med_case.updated', 'med.resolved']],
  ['withdrawn', ['open'], 'closed', 'refunded_to_merchant', ['med_case.updated', 'med.resolved']],
  [
    'closed_without_refund',
    ['open', 'appealed'],
    'closed',
    'closed_without_refund',
    ['med_case.updated', 'med.resolved'],
  ],
];

describe('MED case state machine', () => {
  it('the table has exactly these steps', () => {
    expect(Object.keys(MED_STEPS).sort()).toEqual(TABLE.map(([step]) => step).sort());
  });

  for (const [step, from, to, outcome, events] of TABLE) {
    it(`${step}: ${from.join('|')} → ${to} (${outcome ?? 'undecided'})`, () => {
      for (const status of medCaseStatuses) {
        expect(canApplyMedStep(step, status)).toBe(from.includes(status));
        if (!from.includes(status)) expect(() => applyMedStep(medCase(status), step, LATER)).toThrow();
      }
      for (const status of from) {
        const after = applyMedStep(medCase(status), step, LATER, 'a valid reason');
        expect(after.status).toBe(to);
        expect(after.moneyOutcome).toBe(outcome);
        expect(after.updatedAt).toBe(LATER);
        expect(after.closedAt).toBe(outcome === null ? null : LATER);
      }
      expect(medEventTypesOf(step)).toEqual(events);
    });
  }

  it('accepted, rejected and closed are final', () => {
    for (const status of ['accepted', 'rejected', 'closed'] as const)
      for (const [step] of TABLE) expect(canApplyMedStep(step, status)).toBe(false);
  });

  it('appeal records the reason and the time', () => {
    const after = applyMedStep(medCase(), 'appeal', LATER, 'the goods were delivered');
    expect(after).toMatchObject({ appealReason: 'the goods were delivered', appealedAt: LATER });
  });

  it('opening emits med_case.created, requesting evidence med_case.updated', () => {
    expect(medEventTypesOf('open')).toEqual(['med_case.created']);
    expect(medEventTypesOf('requestEvidence')).toEqual(['med_case.updated']);
  });

  it('won settles the charge again; lost and closed without refund charge it back', () => {
    expect(chargeTriggerOf('refunded_to_merchant')).toBe('winDispute');
    expect(chargeTriggerOf('lost')).toBe('loseDispute');
    expect(chargeTriggerOf('closed_without_refund')).toBe('loseDispute');
  });
});

describe('MED money', () => {
  it('hold: available → retained; release: back; loss: retained leaves the books', () => {
    for (const j of [medHoldJournal, medReleaseJournal, medLossJournal])
      expect(isBalanced(j(CHARGE, 'BRL', 1000))).toBe(true);
    expect(walletDelta(medHoldJournal(CHARGE, 'BRL', 1000))).toEqual({
      available: -1000,
      pending: 0,
      retained: 1000,
    });
    expect(walletDelta(medReleaseJournal(CHARGE, 'BRL', 1000))).toEqual({
      available: 1000,
      pending: 0,
      retained: -1000,
    });
    expect(walletDelta(medLossJournal(CHARGE, 'BRL', 1000))).toEqual({
      available: 0,
      pending: 0,
      retained: -1000,
    });
  });
});

describe('what a case may hold (disputableAmount)', () => {
  const paid = (fields: Partial<ChargeRecord> = {}) =>
    ({ id: CHARGE, amount: 1050, currency: 'BRL', status: 'PAID', ...fields }) as ChargeRecord;
  const refusal = (charge: ChargeRecord) => {
    try {
      disputableAmount(charge);
    } catch (error) {
      return error instanceof InvalidInput
        ? `${error.code ?? 'invalid_request'} ${error.param}`
        : String(error);
    }
    return 'opens';
  };

  it.each([
    ['no refund', {}, 1050],
    ['a refund of 500 paid', { refundedAmount: 500, refundedSettled: 500 }, 550],
    ['a failed refund (its amount back in the refundable total)', { refundedAmount: 0 }, 1050],
  ])('%s: holds %i', (_label, fields, held) => {
    expect(disputableAmount(paid(fields))).toBe(held);
  });

  it.each([
    ['a refund in flight', { refundedAmount: 500 }, 'refunds_in_flight id'],
    [
      'a paid refund and one in flight',
      { refundedAmount: 800, refundedSettled: 500 },
      'refunds_in_flight id',
    ],
    ['refunds of all of it in flight', { refundedAmount: 1050, refundedSettled: 0 }, 'refunds_in_flight id'],
    ['an undecided case', { status: 'DISPUTE' as const }, 'invalid_request id'],
    ['not paid', { status: 'WAITING_PAYMENT' as const }, 'invalid_request id'],
    [
      'refunded in full',
      { status: 'REFUNDED' as const, refundedAmount: 1050, refundedSettled: 1050 },
      'invalid_request id',
    ],
  ])('%s: 400 %s', (_label, fields, expected) => {
    expect(refusal(paid(fields))).toBe(expected);
  });
});

describe('med_case object and events', () => {
  it('serializes every field of the spec', () => {
    expect(serializeMedCase(medCase())).toEqual({
      id: 'med_0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c',
      object: 'med_case',
      type: 'med',
      status: 'open',
      amount: 1000,
      currency: 'BRL',
      charge_id: `ch_${CHARGE}`,
      reason: 'golpe',
      response_deadline: null,
      evidence_requested_at: null,
      appeal_reason: null,
      appealed_at: null,
      evidence_count: 0,
      money_outcome: null,
      opened_at: AT,
      closed_at: null,
      created_at: AT,
      updated_at: AT,
    });
  });

  it('events use the canonical envelope and carry the charge id', () => {
    const [event] = medCaseEvents(['med.resolved'], medCase(), {
      at: AT,
      recordedAt: AT,
      apiVersion: '2026-01-01',
      newEventId: () => 'evt_1',
    });
    expect(event).toMatchObject({ id: 'evt_1', family: 'canonical', type: 'med.resolved', chargeId: CHARGE });
    expect(event?.payload).toEqual({
      id: 'evt_1',
      object: 'event',
      api_version: '2026-01-01',
      type: 'med.resolved',
      created_at: AT,
      data: { object: serializeMedCase(medCase()) },
    });
  });

  it('reach the endpoints subscribed to them, and only those', () => {
    const endpoints = [
      { id: 'we_1', status: 'ACTIVE', events: ['med_case.created', 'med.resolved'], createdAt: AT },
      { id: 'we_2', status: 'ACTIVE', events: ['charge.paid'], createdAt: AT },
      { id: 'we_3', status: 'INACTIVE', events: ['med.resolved'], createdAt: AT },
    ];
    for (const type of ['med_case.created', 'med.resolved'] as const) {
      const [event] = medCaseEvents([type], medCase(), {
        at: AT,
        recordedAt: AT,
        apiVersion: 'v',
        newEventId: () => 'evt_2',
      });
      expect(fanOutTargets({ eventType: type, family: event?.family ?? 'legacy' }, endpoints)).toEqual([
        { endpointId: 'we_1' },
      ]);
    }
    expect(fanOutTargets({ eventType: 'med_case.updated', family: 'canonical' }, endpoints)).toEqual([]);
  });

  it('metadata.med follows the case', () => {
    expect(medMetadataOf(medCase(), 'E123', AT)).toMatchObject({ referenceId: 'E123', status: 'created' });
    const won = applyMedStep(medCase(), 'merchant_won', LATER);
    expect(medMetadataOf(won, 'E123', LATER, 'merchant_won')).toMatchObject({
      status: 'closed',
      result: 'disagreed',
      closedAt: LATER,
      amountMismatch: false,
    });
    const lost = applyMedStep(medCase(), 'accept', LATER);
    expect(medMetadataOf(lost, 'E123', LATER)).toMatchObject({ status: 'closed', result: 'agreed' });
    expect(medMetadataOf(applyMedStep(medCase(), 'withdrawn', LATER), 'E', LATER, 'withdrawn').status).toBe(
      'canceled',
    );
  });
});

describe('MED list query', () => {
  const param = (query: Record<string, string>) => {
    try {
      parseMedListQuery(query);
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidInput);
      return (error as InvalidInput).param;
    }
    return 'accepted';
  };

  it('defaults and converts', () => {
    expect(parseMedListQuery({})).toEqual({ limit: 25 });
    expect(
      parseMedListQuery({ limit: '100', status: 'open', type: 'fraud', charge_id: `ch_${CHARGE}` }),
    ).toEqual({ limit: 100, status: 'open', type: 'fraud', chargeId: CHARGE });
  });

  it('every unknown value or malformed date is a 400 naming its param', () => {
    expect(param({ limit: '0' })).toBe('limit');
    expect(param({ limit: '101' })).toBe('limit');
    expect(param({ limit: 'ten' })).toBe('limit');
    expect(param({ status: 'won' })).toBe('status');
    expect(param({ type: 'pix' })).toBe('type');
    expect(param({ charge_id: 'nope' })).toBe('charge_id');
    expect(param({ created_after: 'yesterday' })).toBe('created_after');
    expect(param({ created_before: '2026-13-45' })).toBe('created_before');
    expect(param({ created_before: '2026-02-30T00:00:00Z' })).toBe('created_before');
    expect(param({ created_after: '2026-01-01T24:00:00Z' })).toBe('created_after');
    expect(parseMedListQuery({ created_after: '2028-02-29T23:59:59.999-03:00' })).toEqual({
      limit: 25,
      createdAfterMs: Date.parse('2028-02-29T23:59:59.999-03:00'),
    });
    expect(parseMedListQuery({ created_before: '2026-05-01' }).createdBeforeMs).toBe(
      Date.parse('2026-05-01'),
    );
    expect(param({ starting_after: 'ch_1' })).toBe('starting_after');
    expect(param({ sort: 'asc' })).toBe('sort');
  });

  it('reads a time without an offset as UTC, whatever the host’s zone (the unit tests run in São Paulo)', () => {
    expect(new Date(0).getTimezoneOffset()).not.toBe(0);
    expect(parseMedListQuery({ created_after: '2026-05-01T13:45:00' }).createdAfterMs).toBe(
      Date.parse('2026-05-01T13:45:00Z'),
    );
    expect(parseInput(openMedCaseSchema, { response_deadline: '2026-12-01T18:00' }, 'body')).toEqual({
      response_deadline: '2026-12-01T18:00:00.000Z',
    });
  });
});
