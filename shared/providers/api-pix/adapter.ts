/**
 * The live acquirer: any receiving PSP through the central bank's standard API Pix 2.9.0
 * (`shared/reference/bcb-api-pix-2.9.0.openapi.yaml`). Implements the `PixProvider` port over
 * `transport.ts` (mutual TLS, OAuth2, retries); failures are the port's typed errors
 * (`errors.ts`). It keeps no state: the PSP holds the charges.
 */

import { log } from '../../log.ts';
import {
  type CobSnapshot,
  type CreateCobInput,
  type CreatedCob,
  type DevolutionInput,
  DevolutionRefusedError,
  type DevolutionState,
  type InfractionReport,
  type PixProvider,
  ProviderNotFoundError,
  ProviderQueryNotOfferedError,
  ProviderRejectedError,
  ProviderUnavailableError,
  type ReceivedPix,
  type ReceivedPixQuery,
} from '../provider.ts';
import { fromDecimalString, toDecimalString, toUtcIso } from './money.ts';
import { type ApiPixCredentials, apiPixTransport, type TransportOptions } from './transport.ts';
import type {
  CobRequest,
  CobResponse,
  DevolucaoResponse,
  ExtendedInfractionReport,
  PixConsultados,
  PixResponse,
} from './wire.ts';

export interface ApiPixConfig extends ApiPixCredentials, TransportOptions {
  /** The merchant's Pix key (DICT `chave`) the charges are paid to and callbacks are registered for. */
  pixKey: string;
  /** Items per `GET /pix` page (default the standard's maximum, 1000). */
  pixPageSize?: number;
}

/** The adapter offers every optional read of the port. */
export type ApiPixProvider = PixProvider &
  Required<Pick<PixProvider, 'getPix' | 'listPix' | 'registerWebhook' | 'listInfractions'>>;

/**
 * The OAuth2 scopes the calls below need (the standard's `security` per operation): `PUT`/`PATCH
 * /cob` `cob.write`, `GET /cob` `cob.read`, `GET /pix…` and `GET …/devolucao` `pix.read`, `PUT
 * …/devolucao` `pix.write`, `PUT /webhook` `webhook.write`. Asked for in the token request unless
 * the account names its own (`set-provider --scopes`): a PSP may grant a client without them only
 * a subset by default, and then answers 403 `AcessoNegado`.
 */
const API_PIX_SCOPES = 'cob.write cob.read pix.write pix.read webhook.write';

/** API Pix caps `solicitacaoPagador` at 140 characters and `devedor.nome` at 200 (JSON Schema counts code points). */
const PAYER_REQUEST_MAX = 140;
const PAYER_NAME_MAX = 200;
/** The first `max` code points: never half of a surrogate pair, which a strict PSP would refuse. */
const firstCodePoints = (text: string, max: number): string => Array.from(text).slice(0, max).join('');
/** `GET /pix` pages at the standard's maximum, and a bound on pages so a broken PSP cannot loop us forever. */
const PIX_PAGE_SIZE = 1000;
const MAX_PIX_PAGES = 1000;

const digitsAndLetters = (document: string): string => document.replace(/[^0-9A-Za-z]/g, '').toUpperCase();

/** CPF by its 11 characters, otherwise CNPJ (14, alphanumeric since 2026). */
const documentField = (document: string): { cpf: string } | { cnpj: string } => {
  const normalized = digitsAndLetters(document);
  return normalized.length === 11 ? { cpf: normalized } : { cnpj: normalized };
};

/** `calendario.criacao` + `calendario.expiracao`, in UTC; undefined when the answer lacks either. */
function cobExpiresAt(cob: CobResponse): string | undefined {
  const calendario = cob.calendario as { criacao?: unknown; expiracao?: unknown } | undefined;
  if (typeof calendario?.criacao !== 'string' || typeof calendario.expiracao !== 'number') return undefined;
  const created = Date.parse(calendario.criacao);
  return Number.isNaN(created) ? undefined : new Date(created + calendario.expiracao * 1000).toISOString();
}

/** The cob's payload location: `location`, else `loc.location`. */
const locationOf = (cob: CobResponse): string | undefined =>
  cob.location ??
  (typeof (cob.loc as { location?: unknown } | undefined)?.location === 'string'
    ? (cob.loc as { location: string }).location
    : undefined);

/** The `PUT /cob/{txid}` body of a charge. */
export function cobRequest(input: CreateCobInput, pixKey: string): CobRequest {
  return {
    calendario: { expiracao: input.expiresIn },
    // The standard's PessoaFisica/PessoaJuridica require a name with the document: without one
    // the payer is not named to the PSP (the service's own payer lock still applies).
    ...(input.payerDocument !== undefined &&
      input.payerName !== undefined && {
        // Our 200-character limit counts what a reader sees (é as e + ◌́ is one): the PSP's, code points.
        devedor: {
          ...documentField(input.payerDocument),
          nome: firstCodePoints(input.payerName, PAYER_NAME_MAX),
        },
      }),
    valor: { original: toDecimalString(input.amount) },
    chave: pixKey,
    ...(input.description !== undefined && {
      solicitacaoPagador: firstCodePoints(input.description, PAYER_REQUEST_MAX),
    }),
  };
}

/** A `Devolucao` as the port's state; unknown fields are ignored. */
export const devolutionState = (devolucao: DevolucaoResponse): DevolutionState => ({
  status: devolucao.status,
  ...(devolucao.motivo !== undefined && { reason: devolucao.motivo }),
});

/**
 * A `Pix` as the port's: only the fields read, the optional ones when present, `horario` in UTC.
 * `devolucoes` is a list, but the file's own callback example (`pixWebhook1`) writes one as a
 * bare object: read as a list of one.
 */
export const receivedPix = (pix: PixResponse): ReceivedPix => ({
  endToEndId: pix.endToEndId,
  ...(pix.txid !== undefined && { txid: pix.txid }),
  amount: fromDecimalString(pix.valor),
  receivedAt: toUtcIso(pix.horario),
  ...(pix.infoPagador !== undefined && { payerMessage: pix.infoPagador }),
  devolutions: [pix.devolucoes ?? []].flat().map((d) => ({
    ...devolutionState(d),
    returnId: d.id,
    amount: fromDecimalString(d.valor),
  })),
});

/** A `CobGerada` as the port's created cob. */
export function createdCob(cob: CobResponse): CreatedCob {
  return {
    providerChargeId: cob.txid,
    txid: cob.txid,
    ...(cob.pixCopiaECola !== undefined && { pixCopiaECola: cob.pixCopiaECola }),
    // `location` is optional in CobGerada; its `loc` (a PayloadLocation) names it too.
    ...(locationOf(cob) !== undefined && { location: locationOf(cob) }),
    ...(cobExpiresAt(cob) !== undefined && { expiresAt: cobExpiresAt(cob) }),
  };
}

/**
 * The refusal names only what the request asked for (its `valor`, say), never the devolution's
 * `{id}`: a refusal of this request whatever a read shows. A refusal naming the id ("id já
 * utilizado") or nothing (`violacoes` is optional in the standard, and its own example of that
 * refusal has none) may be of a devolution the PSP took, whose answer was lost.
 */
const refusesTheRequest = (error: DevolutionRefusedError): boolean =>
  error.properties.length > 0 && !error.properties.some((property) => /(^|\.)id$/.test(property));

const at = (...segments: string[]): string => `/${segments.map(encodeURIComponent).join('/')}`;

export function apiPixProvider(config: ApiPixConfig): ApiPixProvider {
  const api = apiPixTransport({ ...config, scopes: config.scopes ?? API_PIX_SCOPES }, config);

  const getCob = async (txid: string): Promise<CobSnapshot> => {
    log.info('provider.getCob', { provider: 'api-pix', txid });
    const cob = await api.call<CobResponse>({
      operation: 'getCob',
      method: 'GET',
      path: at('cob', txid),
      idempotent: true,
    });
    return { status: cob.status, raw: cob };
  };

  const getDevolution = async ({
    endToEndId,
    returnId,
  }: Pick<DevolutionInput, 'endToEndId' | 'returnId'>) => {
    const devolucao = await api.call<DevolucaoResponse>({
      operation: 'getDevolution',
      method: 'GET',
      path: at('pix', endToEndId, 'devolucao', returnId),
      idempotent: true,
    });
    return devolucao;
  };

  return {
    name: 'api-pix',

    async createCob(input): Promise<CreatedCob> {
      log.info('provider.createCob', { provider: 'api-pix', txid: input.txid });
      const cob = await api.call<CobResponse>({
        operation: 'createCob',
        method: 'PUT',
        path: at('cob', input.txid),
        body: cobRequest(input, config.pixKey),
        idempotent: true,
      });
      return createdCob(cob);
    },

    getCob,

    async cancelCob(txid) {
      log.info('provider.cancelCob', { provider: 'api-pix', txid });
      try {
        await api.call({
          operation: 'cancelCob',
          method: 'PATCH',
          path: at('cob', txid),
          body: { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' },
          idempotent: true,
        });
      } catch (error) {
        // The standard refuses to remove a cob that is no longer ATIVA, so a retry whose first
        // attempt did remove it is refused: read it back before calling that a failure.
        if (!(error instanceof ProviderRejectedError)) throw error;
        const current = await getCob(txid).catch(() => undefined);
        if (current?.status !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR') throw error;
      }
    },

    async requestDevolution(input) {
      log.info('provider.requestDevolution', {
        provider: 'api-pix',
        endToEndId: input.endToEndId,
        returnId: input.returnId,
      });
      const valor = toDecimalString(input.amount);
      try {
        await api.call({
          operation: 'requestDevolution',
          method: 'PUT',
          path: at('pix', input.endToEndId, 'devolucao', input.returnId),
          body: { valor },
          idempotent: true,
        });
      } catch (error) {
        // The standard refuses an `{id}` already used, so a retry of a devolution the PSP took
        // is refused: read it back. Only a confirmed mismatch is a refusal; a read that fails
        // leaves the refund pending (failing it would return a reserve whose money left).
        if (!(error instanceof DevolutionRefusedError)) throw error;
        let existing: DevolucaoResponse;
        try {
          existing = await getDevolution(input);
        } catch (readError) {
          // Absent, and the refusal names another property: refused for that (amount, 90 days).
          if (readError instanceof ProviderNotFoundError && refusesTheRequest(error)) throw error;
          throw new ProviderUnavailableError(
            `API Pix requestDevolution: refused (${error.message}) and the devolution could not be read back`,
            { cause: readError },
          );
        }
        // As amounts, not strings: the standard's `\d{1,10}\.\d{2}` allows `"010.00"` for 1000.
        if (fromDecimalString(existing.valor) !== input.amount) throw error;
      }
    },

    async getDevolution(input) {
      return devolutionState(await getDevolution(input));
    },

    async getPix(endToEndId) {
      const pix = await api.call<PixResponse>({
        operation: 'getPix',
        method: 'GET',
        path: at('pix', endToEndId),
        idempotent: true,
      });
      return receivedPix(pix);
    },

    async listPix(query: ReceivedPixQuery) {
      const payer = query.payerDocument === undefined ? undefined : documentField(query.payerDocument);
      const filters: Record<string, string> = {
        inicio: query.from.toISOString(),
        fim: query.to.toISOString(),
        'paginacao.itensPorPagina': String(config.pixPageSize ?? PIX_PAGE_SIZE),
        ...payer,
        ...(query.txid !== undefined && { txid: query.txid }),
      };
      const received: ReceivedPix[] = [];
      for (let page = 0; page < MAX_PIX_PAGES; page++) {
        const answer = await api.call<PixConsultados>({
          operation: payer === undefined ? 'listPix' : 'listPixByPayer',
          method: 'GET',
          path: '/pix',
          query: { ...filters, 'paginacao.paginaAtual': String(page) },
          idempotent: true,
        });
        // A payer filter counts only if the PSP says it applied it (`ParametrosConsultaPix` echoes
        // the filters used): a PSP that ignored it would list any payer's Pix as the expected one's.
        if (
          payer &&
          Object.entries(payer).some(([field, value]) => answer.parametros[field as 'cpf'] !== value)
        )
          throw new ProviderQueryNotOfferedError(
            'API Pix GET /pix: the PSP did not confirm the payer filter (parametros.cpf/cnpj)',
            'payer-filter-not-applied',
          );
        received.push(...(answer.pix ?? []).map(receivedPix));
        if (page + 1 >= answer.parametros.paginacao.quantidadeDePaginas) return received;
      }
      throw new Error(`API Pix GET /pix has more than ${MAX_PIX_PAGES} pages for one period`);
    },

    async listInfractions({ from, to }): Promise<InfractionReport[]> {
      const answer = await api.call<{ InfractionReports?: ExtendedInfractionReport[] }>({
        operation: 'listInfractions',
        method: 'GET',
        path: '/infracoes',
        query: { inicio: from.toISOString(), fim: to.toISOString() },
        idempotent: true,
      });
      return (answer.InfractionReports ?? []).map((report) => ({
        id: report.Id,
        endToEndId: report.TransactionId,
        infractionType: report.InfractionType,
        ...(report.ReportDetails !== undefined && { reportDetails: report.ReportDetails }),
        status: report.Status,
        ...(report.AnalysisResult !== undefined && { analysisResult: report.AnalysisResult }),
        lastModified: report.LastModified,
      }));
    },

    async registerWebhook(webhookUrl) {
      log.info('provider.registerWebhook', { provider: 'api-pix' });
      await api.call({
        operation: 'registerWebhook',
        method: 'PUT',
        path: at('webhook', config.pixKey),
        body: { webhookUrl },
        idempotent: true,
      });
    },
  };
}
