/**
 * The request and response types of the resources. Hand-written from the spec and the service's
 * serializers until the OpenAPI document lands; then each name here becomes an alias of the
 * generated `components['schemas'][…]` (`npm run sdk:types` → `openapi.d.ts`), so the resources
 * do not change.
 */

type Timestamp = string;

// ── Charges ─────────────────────────────────────────────────────────────────────────────────

export type ChargeStatus =
  | 'pending'
  | 'processing'
  | 'paid'
  | 'failed'
  | 'expired'
  | 'cancelled'
  | 'refunded'
  | 'disputed';

export interface Charge {
  id: string;
  object: 'charge';
  amount: number;
  currency: string;
  status: ChargeStatus;
  payment_method: string;
  customer: { name?: string; document?: string };
  pix: {
    br_code?: string;
    qr_code_url?: string;
    qr_code_base64?: string;
    expires_at: Timestamp;
    txid?: string;
  };
  checkout_url: string;
  settlement: { end_to_end_id?: string };
  metadata: Record<string, unknown>;
  expected_payer_tax_id?: string;
  created_at: Timestamp;
}

export interface CreateChargeParams {
  amount: number;
  payment_method?: 'pix';
  currency?: string;
  description?: string;
  expires_in?: number;
  customer?: { name?: string; document?: string; email?: string; phone?: string };
  expected_payer_tax_id?: string;
  metadata?: Record<string, unknown>;
}

export interface ListChargesParams {
  limit?: number;
  starting_after?: string;
  status?: ChargeStatus;
  created_after?: string;
  created_before?: string;
  customer_id?: string;
}

export interface CursorPage<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

// ── Payments and refunds (transaction format) ───────────────────────────────────────────────

export type TransactionStatus =
  | 'PENDING'
  | 'WAITING_PAYMENT'
  | 'PROCESSING'
  | 'PAID'
  | 'APPROVED'
  | 'REFUSED'
  | 'CANCELLED'
  | 'EXPIRED'
  | 'REFUNDED'
  | 'CHARGEBACK'
  | 'DISPUTE';

export type PaymentMethod = 'PIX' | 'CREDIT_CARD' | 'MBWAY' | 'MULTIBANCO' | 'BOLETO' | 'CRYPTO';

export interface PaymentCreated {
  id: string;
  status: TransactionStatus;
  amount: number;
  currency: string;
  paymentMethods: PaymentMethod[];
  customerName: string | null;
  customerDocument: string | null;
  customerEmail: string | null;
  metadata: Record<string, unknown>;
  createdAt: Timestamp;
}

export interface Payment extends PaymentCreated {
  paidWith: string | null;
  providerFee: number | null;
  platformFee: number | null;
  netAmount: number | null;
  paidAt: Timestamp | null;
  pixQrCode: string | null;
  pixCopyPaste: string | null;
  pixExpiresAt: Timestamp | null;
  [methodField: string]: unknown;
}

export interface CreatePaymentParams {
  amount: number;
  currency?: string;
  paymentMethods: PaymentMethod[];
  customerId?: string;
  customerName?: string;
  customerDocument?: string;
  customerEmail?: string;
  metadata?: Record<string, unknown>;
  webhookUrl?: string;
  /** Generated when omitted; the same key is sent on every retry. */
  idempotencyKey?: string;
}

export interface ListPaymentsParams {
  page?: number;
  limit?: number;
  status?: TransactionStatus;
  startDate?: string;
  endDate?: string;
  sortBy?: string;
  sortOrder?: 'asc' | 'desc';
}

export interface PaymentPage {
  data: Payment[];
  total: number;
  page: number;
  limit: number;
}

export type RefundStatus = 'PENDING' | 'IN_PROGRESS' | 'REFUNDED' | 'FAILED';

export interface Refund {
  id: string;
  transactionId: string;
  amount: number;
  currency: string;
  status: RefundStatus;
  reason: string | null;
  strategy: 'devolution' | 'cashout';
  fee: number;
  automatic: boolean;
  destinationKey?: string;
  failureReason: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  completedAt: Timestamp | null;
}

export interface CreateRefundParams {
  /** Generated when omitted; the same key is sent on every retry. */
  idempotencyKey?: string;
  amount?: number;
  reason?: string;
  strategy?: 'devolution' | 'cashout';
  passFeeToTenant?: boolean;
  destinationKey?: string;
}

export interface RefundList {
  data: Refund[];
}

export interface ResendWebhookResult {
  resent: boolean;
  status: TransactionStatus;
}

export interface PaymentReceipt {
  contentType: 'application/pdf';
  base64: string;
}

// ── Wallets ─────────────────────────────────────────────────────────────────────────────────

export interface CurrencyBalance {
  currency: string;
  available: number;
  pending: number;
  total: number;
}

export interface WalletBalance {
  available: number;
  pending: number;
  total: number;
  retained: number;
  currency: string;
  next_release_at: Timestamp | null;
  next_release_amount: number | null;
  balances: CurrencyBalance[];
  primary: CurrencyBalance;
}

export interface SingleCurrencyBalance {
  available: number;
  pending: number;
  currency: string;
  next_release_at: Timestamp | null;
  next_release_amount: number | null;
}

export interface WalletListItem {
  currency: string;
  walletType: string;
  balance: number;
  pendingBalance: number;
}

// ── Webhooks ────────────────────────────────────────────────────────────────────────────────

export type WebhookEndpointStatus = 'ACTIVE' | 'INACTIVE';

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  status: WebhookEndpointStatus;
}

export interface WebhookEndpointWithSecret extends WebhookEndpoint {
  /** 64 hex characters, shown only here and on rotation. */
  secret: string;
}

export interface WebhookEndpointListItem extends WebhookEndpoint {
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface CreateWebhookEndpointParams {
  url: string;
  events: string[];
}

export interface UpdateWebhookEndpointParams {
  url?: string;
  events?: string[];
  status?: WebhookEndpointStatus;
}

export interface EventCatalogEntry {
  event: string;
  description: string;
  legacy?: true;
}

export type DeliveryStatus = 'PENDING' | 'PROCESSING' | 'DELIVERED' | 'FAILED' | 'CANCELLED';

export interface WebhookDelivery {
  id: string;
  endpointId: string | null;
  url?: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  maxAttempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastResponseBody?: string | null;
  nextRetryAt: Timestamp | null;
  deliveredAt: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  payload: unknown;
  [field: string]: unknown;
}

export interface ListDeliveriesParams {
  status?: DeliveryStatus;
  eventType?: string;
  endpointId?: string;
  limit?: number;
  offset?: number;
}

export interface DeliveryPage {
  data: WebhookDelivery[];
  total: number;
  limit: number;
  offset: number;
}

export type DeliveryStats = Record<'total' | DeliveryStatus, number>;

/** `charge.*`, `payout.*` and MED events (`t=…,v1=…` signature). */
export interface CanonicalEvent {
  id: string;
  object: 'event';
  api_version: string;
  type: string;
  created_at: Timestamp;
  data: { object: Record<string, unknown> };
}

/** The legacy `payment.*` and `withdrawal.*` family (`sha256=` signature). */
export interface LegacyEvent {
  event: string;
  data: {
    transactionId: string;
    amount: number;
    status: TransactionStatus;
    previousStatus: TransactionStatus | null;
    occurredAt: Timestamp;
    [field: string]: unknown;
  };
}

export type WebhookEvent = CanonicalEvent | LegacyEvent;

// ── MED cases ───────────────────────────────────────────────────────────────────────────────

export type MedCaseStatus = 'open' | 'appealed' | 'accepted' | 'rejected' | 'closed';
export type MedCaseType = 'med' | 'chargeback' | 'dispute' | 'fraud';
export type MoneyOutcome = 'refunded_to_merchant' | 'closed_without_refund' | 'lost';

export interface MedCase {
  id: string;
  object: 'med_case';
  type: MedCaseType;
  status: MedCaseStatus;
  amount: number;
  currency: string;
  charge_id: string;
  reason: string | null;
  response_deadline: Timestamp | null;
  evidence_requested_at: Timestamp | null;
  appeal_reason: string | null;
  appealed_at: Timestamp | null;
  evidence_count: number;
  money_outcome: MoneyOutcome | null;
  opened_at: Timestamp;
  closed_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ListMedCasesParams {
  limit?: number;
  starting_after?: string;
  status?: MedCaseStatus;
  type?: MedCaseType;
  charge_id?: string;
  created_after?: string;
  created_before?: string;
}

export type EvidenceMimeType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif' | 'application/pdf';

export interface EvidenceDeclaration {
  file_name: string;
  file_size: number;
  mime_type: EvidenceMimeType;
}

export interface EvidenceUploadGrant {
  id: string;
  object: 'med_case_evidence_upload';
  upload_url: string;
  upload_method: 'PUT';
  upload_headers: Record<string, string>;
  expires_in: number;
}

export interface MedEvidence {
  id: string;
  object: 'med_case_evidence';
  file_name: string;
  file_size: number;
  mime_type: EvidenceMimeType;
  uploaded_by: 'merchant' | 'partner' | 'platform';
  created_at: Timestamp;
  uploaded_at: Timestamp | null;
  view_url: string;
}

export interface MedEvidenceList {
  object: 'list';
  data: MedEvidence[];
}

// ── API keys and login (dashboard token) ────────────────────────────────────────────────────

export interface LoginParams {
  email: string;
  password: string;
  account_id?: string;
}

export interface LoginResult {
  token: string;
  token_type: 'Bearer';
  expires_in: number;
  account_id: string;
  role: 'OWNER' | 'ADMIN' | 'DEVELOPER' | 'VIEWER';
}

export interface IssuedApiKey {
  id: string;
  apiKey: string;
  fingerprint: string;
  prefix: string;
  label: string;
  createdAt: Timestamp;
  mode: 'test' | 'live';
}

export interface ApiKeyListItem {
  id: string;
  prefix: string;
  label: string;
  createdAt: Timestamp;
  mode: 'test' | 'live';
}

export interface ApiKeyList {
  data: ApiKeyListItem[];
  access: { canManage: boolean };
}

export interface AuditEvent {
  object: 'audit_event';
  id: string;
  action: 'api_key.issued' | 'api_key.rotated' | 'api_key.revoked';
  actorUserId: string;
  keyId: string;
  fingerprint: string;
  replacedKeyId?: string;
  replacedFingerprint?: string;
  createdAt: Timestamp;
}

// ── Sandbox ─────────────────────────────────────────────────────────────────────────────────

export interface SandboxPayParams {
  payer_document?: string;
  payer_name?: string;
  amount?: number;
}

export interface SandboxPayment {
  object: 'sandbox_payment';
  end_to_end_id: string;
  outcome: 'paid' | 'held_for_review' | 'refunded' | 'returned';
  return_reason?: string;
  charge: Charge;
}

export interface SandboxAcquirerParams {
  status?: 'up' | 'down';
  payouts?: 'supported' | 'unsupported';
}

export interface SandboxAcquirerState {
  object: 'sandbox_acquirer';
  status: 'up' | 'down';
  payouts: 'supported' | 'unsupported';
}

export interface SandboxMedParams {
  amount?: number;
  type?: MedCaseType;
  method?: 'scam' | 'unauthorized' | 'coercion' | 'invasion' | 'other';
  reason?: string;
  payer_name?: string;
  payer_document?: string;
  response_deadline?: string;
  review?: boolean;
}

export type SandboxMedDecision = 'merchant_won' | 'merchant_lost' | 'withdrawn' | 'closed_without_refund';
