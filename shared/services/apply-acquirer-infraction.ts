/**
 * The MED port (README, "Going live", MED from the PSP): an infraction report a live acquirer shows against a Pix this
 * service settled (DICT `InfractionReport`) opens a MED case on its charge, and the report's end
 * decides it: CLOSED AGREED (the fraud is confirmed) → `merchant_lost`, CLOSED DISAGREED →
 * `merchant_won`, CANCELLED → `withdrawn` (or `merchant_won` once appealed). The same steps as the
 * sandbox's MED routes (`open-med-case.ts`, `decide-med-case.ts`). A record per report says what
 * was applied, so a report seen again in the next overlapping period changes nothing twice.
 *
 * A case cannot open while a refund of the charge is in flight (`REFUNDS_IN_FLIGHT`), and the PSP
 * lists a report again only when it changes: such a report is recorded as waiting, with the
 * report itself, and every reconciliation run of the account applies its waiting reports again
 * (`applyWaitingAcquirerInfractions`) until the case opens or the report ends.
 */

import { InvalidInput } from '../domain/errors.ts';
import {
  INFRACTION_WAITING,
  type InfractionReport,
  isFinalInfraction as isFinal,
  MED_REASON_MAX_LENGTH,
  type MedCaseType,
  type MedDecision,
  REFUNDS_IN_FLIGHT,
} from '../domain/med-cases.ts';
import { log } from '../log.ts';
import {
  acquirerInfractionItem,
  chargeOfPix,
  getAcquirerInfraction,
  putAcquirerInfraction,
  putWaitingAcquirerInfraction,
  waitingAcquirerInfractionIds,
} from '../store/live-acquirer.ts';
import { getMedCase } from '../store/med-cases.ts';
import { decideMedCase } from './decide-med-case.ts';
import { openMedCase } from './open-med-case.ts';

const CASE_TYPE: Record<InfractionReport['infractionType'], MedCaseType> = {
  FRAUD: 'fraud',
  REFUND_REQUEST: 'med',
  REFUND_CANCELLED: 'med',
};

export async function applyAcquirerInfraction(accountId: string, report: InfractionReport): Promise<void> {
  const known = await getAcquirerInfraction(accountId, report.id);
  if (known && (known.applied === report.status || isFinal(known.applied))) return;
  const pix = await chargeOfPix(report.endToEndId);
  if (!pix || pix.scope.accountId !== accountId || pix.scope.mode !== 'live') {
    log.warn('acquirer infraction against a Pix of no charge here', { accountId, reportId: report.id });
    return;
  }
  let caseId = known?.caseId;
  if (caseId === undefined && report.status !== 'CANCELLED') {
    // A final report first seen opens the case as if OPEN; its end is recorded once it is decided.
    const applied = isFinal(report.status) ? 'OPEN' : report.status;
    try {
      // The record commits with the case: a crash cannot leave a case its report does not name.
      const opened = await openMedCase({
        scope: pix.scope,
        chargeId: pix.chargeId,
        body: {
          type: CASE_TYPE[report.infractionType],
          ...(report.reportDetails !== undefined && {
            reason: report.reportDetails.slice(0, MED_REASON_MAX_LENGTH),
          }),
        },
        record: (medCase) => acquirerInfractionItem(accountId, report.id, { applied, caseId: medCase.id }),
      });
      caseId = opened.id;
    } catch (error) {
      if (!(error instanceof InvalidInput)) throw error;
      if (error.code === REFUNDS_IN_FLIGHT) {
        // Kept and retried every run: the PSP may not list the report again before the refunds end.
        const waiting = await putWaitingAcquirerInfraction(accountId, report);
        log.warn('acquirer infraction waits for the charge refunds in flight', {
          accountId,
          reportId: report.id,
          ...(!waiting && { recorded: 'meanwhile by another run' }),
        });
        return;
      }
      // Not paid or already disputed: the report is recorded (below when final), no case of its own opened.
      log.warn('acquirer infraction opens no MED case', {
        accountId,
        reportId: report.id,
        why: error.message,
      });
      if (!isFinal(report.status)) await putAcquirerInfraction(accountId, report.id, { applied });
    }
  }
  if (!isFinal(report.status)) return;
  if (caseId !== undefined) {
    // CANCELLED withdraws a case still open; an appealed one the merchant has won.
    const decision: MedDecision =
      report.status === 'CLOSED'
        ? report.analysisResult === 'AGREED'
          ? 'merchant_lost'
          : 'merchant_won'
        : (await getMedCase(pix.scope, caseId))?.status === 'open'
          ? 'withdrawn'
          : 'merchant_won';
    try {
      await decideMedCase(pix.scope, caseId, decision);
    } catch (error) {
      // Decided meanwhile (an operator, the merchant's accept): the case's own state stands.
      if (!(error instanceof InvalidInput)) throw error;
      log.warn('acquirer infraction decision not applied', { caseId, decision, why: error.message });
    }
  }
  await putAcquirerInfraction(accountId, report.id, { applied: report.status, ...(caseId && { caseId }) });
}

/**
 * Applies again the account's reports waiting for refunds in flight, as last seen; `skip`: the
 * ids this run's listing already applied (a listed report is newer than its stored copy; one
 * that became final is applied as that).
 */
export async function applyWaitingAcquirerInfractions(
  accountId: string,
  skip: ReadonlySet<string>,
): Promise<void> {
  for (const reportId of await waitingAcquirerInfractionIds(accountId)) {
    if (skip.has(reportId)) continue;
    // The index may lag its record: only a record still waiting is applied, with the report it keeps.
    const known = await getAcquirerInfraction(accountId, reportId);
    if (known?.applied === INFRACTION_WAITING && known.report)
      await applyAcquirerInfraction(accountId, known.report);
  }
}
