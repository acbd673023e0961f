import type { RequestOptions } from '../http.ts';
import type {
  Charge,
  MedCase,
  Refund,
  SandboxAcquirerParams,
  SandboxAcquirerState,
  SandboxMedDecision,
  SandboxMedParams,
  SandboxPayment,
  SandboxPayParams,
} from '../types.ts';
import { Resource } from './resource.ts';

const id = encodeURIComponent;

/**
 * `/v1/sandbox`: test keys drive charges, refunds and MED cases through the real pipeline (live
 * keys get 404). None of these is idempotent, so a 5xx is never retried.
 */
export class Sandbox extends Resource {
  /** A Pix arrives for the charge; omit `payer_document` to simulate a bank that did not report it. */
  pay(chargeId: string, params: SandboxPayParams = {}, options?: RequestOptions): Promise<SandboxPayment> {
    return this.http.request(
      { method: 'POST', path: `/v1/sandbox/charges/${id(chargeId)}/pay`, auth: 'apikey', body: params },
      options,
    );
  }

  /** The charge's window closes now (`charge.expired`). */
  expire(chargeId: string, options?: RequestOptions): Promise<Charge> {
    return this.http.request(
      { method: 'POST', path: `/v1/sandbox/charges/${id(chargeId)}/expire`, auth: 'apikey' },
      options,
    );
  }

  /** Takes the sandbox acquirer down or up, or withdraws its Pix-out. */
  setAcquirer(params: SandboxAcquirerParams, options?: RequestOptions): Promise<SandboxAcquirerState> {
    return this.http.request(
      { method: 'POST', path: '/v1/sandbox/acquirer', auth: 'apikey', body: params },
      options,
    );
  }

  failRefund(refundId: string, options?: RequestOptions): Promise<Refund> {
    return this.http.request(
      { method: 'POST', path: `/v1/sandbox/refunds/${id(refundId)}/fail`, auth: 'apikey' },
      options,
    );
  }

  confirmRefund(refundId: string, options?: RequestOptions): Promise<Refund> {
    return this.http.request(
      { method: 'POST', path: `/v1/sandbox/refunds/${id(refundId)}/confirm`, auth: 'apikey' },
      options,
    );
  }

  /** The payer's bank opens a MED case against a paid charge. */
  openMedCase(chargeId: string, params: SandboxMedParams = {}, options?: RequestOptions): Promise<MedCase> {
    return this.http.request(
      { method: 'POST', path: `/v1/sandbox/charges/${id(chargeId)}/med`, auth: 'apikey', body: params },
      options,
    );
  }

  requestMedEvidence(caseId: string, options?: RequestOptions): Promise<MedCase> {
    return this.http.request(
      { method: 'POST', path: `/v1/sandbox/med/cases/${id(caseId)}/request-evidence`, auth: 'apikey' },
      options,
    );
  }

  /** The MED channel's decision (a case opened with `review` keeps its status until an operator acts). */
  decideMedCase(caseId: string, outcome: SandboxMedDecision, options?: RequestOptions): Promise<MedCase> {
    return this.http.request(
      {
        method: 'POST',
        path: `/v1/sandbox/med/cases/${id(caseId)}/decide`,
        auth: 'apikey',
        body: { outcome },
      },
      options,
    );
  }
}
