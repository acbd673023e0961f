import { EvidenceUploadError } from '../errors.ts';
import type { RequestOptions } from '../http.ts';
import type {
  EvidenceDeclaration,
  EvidenceMimeType,
  EvidenceUploadGrant,
  ListMedCasesParams,
  MedCase,
  MedCasePage,
  MedEvidence,
  MedEvidenceList,
} from '../types.ts';
import { followCursor } from './pagination.ts';
import { Resource } from './resource.ts';

const casePath = (id: string, suffix = '') => `/v1/med/cases/${encodeURIComponent(id)}${suffix}`;

/**
 * The file as a request body under any lib: DOM's `BodyInit` takes only views over an
 * `ArrayBuffer` (a `Uint8Array` may sit on a `SharedArrayBuffer`), so such a view is copied.
 */
const asBody = (file: Uint8Array | ArrayBuffer | Blob): Blob | ArrayBuffer | Uint8Array<ArrayBuffer> =>
  file instanceof Uint8Array && !(file.buffer instanceof ArrayBuffer)
    ? new Uint8Array(file)
    : (file as Blob | ArrayBuffer | Uint8Array<ArrayBuffer>);

export interface EvidenceFile {
  fileName: string;
  mimeType: EvidenceMimeType;
}

/** `/v1/med/cases`: Pix disputes (MED) against the account's charges, and their evidence. */
export class MedCases extends Resource {
  /** One page, newest first; pass `next_cursor` as `starting_after` for the next. */
  list(params: ListMedCasesParams = {}, options?: RequestOptions): Promise<MedCasePage> {
    return this.http.request(
      { method: 'GET', path: '/v1/med/cases', auth: 'apikey', query: { ...params } },
      options,
    );
  }

  /** Every matching case, newest first (daily reconciliation: `{ created_after }`). */
  listAll(
    params: Omit<ListMedCasesParams, 'starting_after'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<MedCase> {
    return followCursor((starting_after) =>
      this.list({ ...params, ...(starting_after && { starting_after }) }, options),
    );
  }

  retrieve(id: string, options?: RequestOptions): Promise<MedCase> {
    return this.http.request({ method: 'GET', path: casePath(id), auth: 'apikey' }, options);
  }

  /** Only while the case is `open`; `reason` 5–2000 characters. */
  appeal(id: string, reason: string, options?: RequestOptions): Promise<MedCase> {
    return this.http.request(
      { method: 'POST', path: casePath(id, '/appeal'), auth: 'apikey', body: { reason } },
      options,
    );
  }

  /** Accepts the loss (`money_outcome: lost`); only while the case is `open`. */
  accept(id: string, options?: RequestOptions): Promise<MedCase> {
    return this.http.request({ method: 'POST', path: casePath(id, '/accept'), auth: 'apikey' }, options);
  }

  /** Confirmed evidence only, newest first; each `view_url` works for 5 minutes. */
  listEvidence(id: string, options?: RequestOptions): Promise<MedEvidenceList> {
    return this.http.request({ method: 'GET', path: casePath(id, '/evidence'), auth: 'apikey' }, options);
  }

  /** Step 1 of an upload: declare the file, receive a presigned PUT valid 900 s. */
  createEvidenceUpload(
    id: string,
    declaration: EvidenceDeclaration,
    options?: RequestOptions,
  ): Promise<EvidenceUploadGrant> {
    return this.http.request(
      { method: 'POST', path: casePath(id, '/evidence'), auth: 'apikey', body: declaration },
      options,
    );
  }

  /** Step 3: the service checks the stored object (idempotent: repeating it returns the same evidence). */
  completeEvidenceUpload(id: string, evidenceId: string, options?: RequestOptions): Promise<MedEvidence> {
    return this.http.request(
      {
        method: 'POST',
        path: casePath(id, `/evidence/${encodeURIComponent(evidenceId)}/complete`),
        auth: 'apikey',
        repeatable: true,
      },
      options,
    );
  }

  /**
   * Declares, uploads and confirms one evidence file in one call: the bytes go straight to
   * storage with exactly the granted headers (the URL is the credential: no API key is sent to it).
   */
  async uploadEvidence(
    id: string,
    file: Uint8Array | ArrayBuffer | Blob,
    { fileName, mimeType }: EvidenceFile,
    options?: RequestOptions,
  ): Promise<MedEvidence> {
    const size = file instanceof Blob ? file.size : file.byteLength;
    const grant = await this.createEvidenceUpload(
      id,
      { file_name: fileName, file_size: size, mime_type: mimeType },
      options,
    );
    // A PUT of the same bytes to the same key is idempotent, so it follows the retry policy of reads.
    const stored = await this.http.fetch(
      grant.upload_url,
      { method: grant.upload_method, headers: grant.upload_headers, body: asBody(file) },
      true,
      options,
    );
    if (!stored.ok) {
      // A 5xx left after the retries is the storage's trouble (try again later), not the request's.
      const unavailable = stored.status >= 500;
      throw new EvidenceUploadError({
        message: `The storage ${unavailable ? 'failed' : 'refused'} the evidence upload (${stored.status}): ${stored.text.slice(0, 300)}`,
        type: unavailable ? 'api_error' : 'invalid_request_error',
        code: unavailable ? 'evidence_upload_failed' : 'evidence_upload_refused',
        statusCode: stored.status,
        headers: stored.headers,
      });
    }
    return this.completeEvidenceUpload(id, grant.id, options);
  }
}
