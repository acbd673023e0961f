/**
 * The few API Pix 2.9.0 shapes the adapter reads (`shared/reference/bcb-api-pix-2.9.0.openapi.yaml`),
 * with only the fields it uses; everything else the PSP sends is kept in `raw` where callers
 * need it.
 */

import type { CobStatus, DevolutionStatus } from '../provider.ts';

/** `CobSolicitada`: the body of `PUT /cob/{txid}`. */
export interface CobRequest {
  calendario: { expiracao: number };
  devedor?: { cpf: string; nome: string } | { cnpj: string; nome: string };
  valor: { original: string };
  chave: string;
  solicitacaoPagador?: string;
}

/** `CobGerada` / `CobCompleta`. */
export interface CobResponse {
  txid: string;
  status: CobStatus;
  revisao: number;
  location?: string;
  pixCopiaECola?: string;
  [field: string]: unknown;
}

/** `Devolucao`. */
export interface DevolucaoResponse {
  id: string;
  rtrId: string;
  valor: string;
  status: DevolutionStatus;
  motivo?: string;
  horario: { solicitacao?: string; liquidacao?: string };
}

/** `Pix`. */
export interface PixResponse {
  endToEndId: string;
  txid?: string;
  valor: string;
  horario: string;
  infoPagador?: string;
  /** A list in the schema; a bare object in the file's own callback example (`pixWebhook1`). */
  devolucoes?: DevolucaoResponse[] | DevolucaoResponse;
}

/** `Paginacao`. */
interface Paginacao {
  paginaAtual: number;
  itensPorPagina: number;
  quantidadeDePaginas: number;
  quantidadeTotalDeItens: number;
}

/** `PixConsultados`: one page of `GET /pix`. */
export interface PixConsultados {
  /** The filters the PSP applied (`ParametrosConsultaPix`: `cpf`, `cnpj`, `txid` when it did). */
  parametros: {
    inicio: string;
    fim: string;
    cpf?: string;
    cnpj?: string;
    txid?: string;
    paginacao: Paginacao;
  };
  pix?: PixResponse[];
}

/** DICT `ExtendedInfractionReport`, the fields read (the local PSP's `GET /infracoes` extension). */
export interface ExtendedInfractionReport {
  Id: string;
  TransactionId: string;
  InfractionType: 'FRAUD' | 'REFUND_REQUEST' | 'REFUND_CANCELLED';
  ReportDetails?: string;
  Status: 'OPEN' | 'ACKNOWLEDGED' | 'CLOSED' | 'CANCELLED';
  AnalysisResult?: 'AGREED' | 'DISAGREED';
  LastModified: string;
}

/** `Violacao`. */
export interface Violacao {
  razao?: string;
  propriedade?: string;
  valor?: string;
}

/** `Problema` (RFC 7807), what API Pix answers for every error. */
export interface Problema {
  type: string;
  title: string;
  status: number;
  detail?: string;
  correlationId?: string;
  violacoes?: Violacao[];
}

/** The standard's problem types are `https://pix.bcb.gov.br/api/v2/error/<TipoErro>`. */
export const PROBLEM_TYPE_BASE = 'https://pix.bcb.gov.br/api/v2/error/';
