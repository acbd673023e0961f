/**
 * What the local PSP holds, in memory: cobs, the Pix received, their devolutions, the registered
 * webhooks and reported infractions, with the standard's rules for changing them. Each operation
 * answers the resource or the standard's problem document; `server.ts` puts that on the wire.
 */

import { randomBytes, randomUUID } from 'node:crypto';
import { buildDynamicBrCode } from '../../../shared/domain/br-code.ts';
import { endToEndTimestamp } from '../../../shared/domain/pix-ids.ts';
import { fromDecimalString, toDecimalString } from '../../../shared/providers/api-pix/money.ts';
import type { Problema, Violacao } from '../../../shared/providers/api-pix/wire.ts';
import { PROBLEM_TYPE_BASE } from '../../../shared/providers/api-pix/wire.ts';

type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';
type DevolucaoStatus = 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';

export interface StoredCob {
  txid: string;
  revisao: number;
  calendario: { criacao: string; expiracao: number };
  devedor?: Record<string, unknown>;
  valor: { original: string; modalidadeAlteracao?: number };
  chave: string;
  solicitacaoPagador?: string;
  infoAdicionais?: unknown[];
  status: CobStatus;
  /** `CobGerada.loc` requires `txid` beside `PayloadLocation`'s own fields. */
  loc: { id: number; txid: string; location: string; tipoCob: 'cob'; criacao: string };
  location: string;
  pixCopiaECola: string;
  endToEndIds: string[];
}

interface StoredDevolucao {
  id: string;
  rtrId: string;
  valor: string;
  natureza: 'ORIGINAL';
  descricao?: string;
  horario: { solicitacao: string; liquidacao?: string };
  status: DevolucaoStatus;
  motivo?: string;
}

export interface StoredPix {
  endToEndId: string;
  txid: string;
  valor: string;
  chave: string;
  horario: string;
  infoPagador?: string;
  devolucoes: StoredDevolucao[];
  /** Known to the PSP (the SPI message carries it) but not part of the standard's `Pix`: filters only. */
  payer: { document?: string; name?: string };
}

interface Infraction {
  id: string;
  endToEndId: string;
  infractionType: string;
  reportDetails?: string;
  status: 'OPEN' | 'ACKNOWLEDGED' | 'CLOSED' | 'CANCELLED';
  /** When CLOSED: the payer's bank agreed (fraud confirmed, money back to the payer) or not. */
  analysisResult?: 'AGREED' | 'DISAGREED';
  creationTime: string;
  lastModified: string;
}

/** The outcome a test arranged for a devolution, before or after it was requested. */
type DevolucaoPlan = { outcome: 'fail'; motivo: string } | { outcome: 'hold' };

export type Result<T> = { ok: true; value: T; status?: number } | { ok: false; problem: Problema };

export const problem = (
  status: number,
  tipo: string,
  title: string,
  detail?: string,
  violacoes?: Violacao[],
): { ok: false; problem: Problema } => ({
  ok: false,
  problem: {
    type: `${PROBLEM_TYPE_BASE}${tipo}`,
    title,
    status,
    ...(detail !== undefined && { detail }),
    ...(violacoes !== undefined && violacoes.length > 0 && { violacoes }),
  },
});

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randomAlphanumeric = (length: number): string =>
  Array.from(randomBytes(length), (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');

/** The payer's institution in end-to-end ids of Pix this PSP receives. */
const PAYER_ISPB = '99999998';

interface BankOptions {
  /** The merchant's Pix key: cobs and webhooks for any other key are refused, as a real PSP does. */
  pixKey: string;
  /** `host:port` the locations are served under (no scheme, as API Pix writes them). */
  locationHost: string;
  /** The PSP's own ISPB, which signs its return ids. */
  ispb: string;
  merchantName: string;
  merchantCity: string;
  /** How long a devolution stays `EM_PROCESSAMENTO` before the payer's bank confirms it. */
  devolutionSettleMs: number;
  /** A Pix arrived or a devolution became final: the callback, if a webhook is registered. */
  onNotify: (pix: StoredPix) => void;
}

export class Bank {
  readonly cobs = new Map<string, StoredCob>();
  readonly pix = new Map<string, StoredPix>();
  readonly webhooks = new Map<string, { webhookUrl: string; chave: string; criacao: string }>();
  readonly infractions: Infraction[] = [];
  private readonly plans = new Map<string, DevolucaoPlan>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private nextLocId = 1;
  private readonly options: BankOptions;

  constructor(options: BankOptions) {
    this.options = options;
  }

  /** Stops pending devolution confirmations (server stop). */
  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  cobJson(cob: StoredCob): Record<string, unknown> {
    const { endToEndIds, ...fields } = cob;
    const received = endToEndIds.map((id) => this.pix.get(id)).filter((p) => p !== undefined);
    return { ...fields, ...(received.length > 0 && { pix: received.map(pixJson) }) };
  }

  /** `PUT /cob/{txid}`, the body already schema-valid. */
  putCob(txid: string, body: Record<string, unknown>): Result<StoredCob> {
    const request = body as {
      calendario?: { expiracao?: number };
      devedor?: Record<string, unknown>;
      valor: { original: string; modalidadeAlteracao?: number };
      chave: string;
      solicitacaoPagador?: string;
      infoAdicionais?: unknown[];
    };
    const violacoes = this.cobViolations(request);
    if (violacoes.length > 0)
      return problem(400, 'CobOperacaoInvalida', 'Cobrança inválida.', undefined, violacoes);
    const existing = this.cobs.get(txid);
    if (existing && existing.status !== 'ATIVA') {
      return problem(400, 'CobOperacaoInvalida', 'Cobrança inválida.', undefined, [
        { razao: 'A cobrança já existe, não está no status ATIVA.', propriedade: 'cob.status' },
      ]);
    }
    const content = {
      calendario: {
        criacao: existing?.calendario.criacao ?? new Date().toISOString(),
        expiracao: request.calendario?.expiracao ?? 86_400,
      },
      ...(request.devedor !== undefined && { devedor: request.devedor }),
      valor: request.valor,
      chave: request.chave,
      ...(request.solicitacaoPagador !== undefined && { solicitacaoPagador: request.solicitacaoPagador }),
      ...(request.infoAdicionais !== undefined && { infoAdicionais: request.infoAdicionais }),
    };
    if (existing) {
      // The same body again is a retry; anything else revises the cob.
      const same = JSON.stringify(cobContent(existing)) === JSON.stringify(content);
      if (same) return { ok: true, value: existing, status: 201 };
      return { ok: true, value: this.revise(existing, content), status: 201 };
    }
    const locId = this.nextLocId++;
    const location = `${this.options.locationHost}/qr/v2/${randomUUID().replaceAll('-', '')}`;
    const cob: StoredCob = {
      txid,
      revisao: 0,
      ...content,
      status: 'ATIVA',
      loc: { id: locId, txid, location, tipoCob: 'cob', criacao: content.calendario.criacao },
      location,
      pixCopiaECola: this.brCode(location, request.valor.original),
      endToEndIds: [],
    };
    this.cobs.set(txid, cob);
    return { ok: true, value: cob, status: 201 };
  }

  /** `PATCH /cob/{txid}`, the body already schema-valid. */
  patchCob(txid: string, body: Record<string, unknown>): Result<StoredCob> {
    const cob = this.cobs.get(txid);
    if (!cob) return problem(404, 'CobNaoEncontrado', 'Cobrança não encontrada.');
    const refuse = (razao: string, propriedade = 'cob.status') =>
      problem(400, 'CobOperacaoInvalida', 'Operação inválida.', undefined, [{ razao, propriedade }]);
    if (cob.status !== 'ATIVA') return refuse('A cobrança não está ATIVA.');
    if (body.status === 'REMOVIDA_PELO_USUARIO_RECEBEDOR') {
      if (Object.keys(body).length > 1)
        return refuse('Não se remove uma cobrança ao mesmo tempo em que se realizam outras alterações.');
      const removed: StoredCob = {
        ...cob,
        status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
        revisao: cob.revisao + 1,
      };
      this.cobs.set(txid, removed);
      return { ok: true, value: removed };
    }
    // Only the fields a revision may change (CobRevisada), whatever else the body carries.
    const revision = body as Partial<Pick<StoredCob, RevisableField>>;
    const content = {
      ...cobContent(cob),
      ...Object.fromEntries(
        REVISABLE_FIELDS.flatMap((field) => (field in revision ? [[field, revision[field]]] : [])),
      ),
      calendario: { ...cob.calendario, ...(revision.calendario ?? {}) },
      valor: { ...cob.valor, ...(revision.valor ?? {}) },
    } as Pick<StoredCob, RevisableField>;
    const violacoes = this.cobViolations(content);
    if (violacoes.length > 0)
      return problem(400, 'CobOperacaoInvalida', 'Cobrança inválida.', undefined, violacoes);
    return { ok: true, value: this.revise(cob, content) };
  }

  /** The next revision of a cob; its copy-and-paste code follows a new amount. */
  private revise(cob: StoredCob, content: Pick<StoredCob, RevisableField>): StoredCob {
    const revised: StoredCob = {
      ...cob,
      ...content,
      revisao: cob.revisao + 1,
      pixCopiaECola: this.brCode(cob.location, content.valor.original),
    };
    this.cobs.set(cob.txid, revised);
    return revised;
  }

  private brCode(location: string, original: string): string {
    return buildDynamicBrCode({
      locationUrl: location,
      merchantName: this.options.merchantName,
      merchantCity: this.options.merchantCity,
      amount: fromDecimalString(original),
    });
  }

  /** What the standard refuses beyond the schema (`CobOperacaoInvalida` violations). */
  private cobViolations(cob: {
    calendario?: { expiracao?: number };
    valor: { original: string };
    chave: string;
  }): Violacao[] {
    const violacoes: Violacao[] = [];
    const expiracao = cob.calendario?.expiracao;
    if (expiracao !== undefined && expiracao <= 0)
      violacoes.push({
        razao: 'O campo cob.calendario.expiracao é igual ou menor que zero.',
        propriedade: 'cob.calendario.expiracao',
        valor: String(expiracao),
      });
    if (fromDecimalString(cob.valor.original) === 0)
      violacoes.push({ razao: 'O campo cob.valor.original é zero.', propriedade: 'cob.valor.original' });
    if (cob.chave !== this.options.pixKey)
      violacoes.push({
        razao: 'O campo cob.chave corresponde a uma conta que não pertence a este usuário recebedor.',
        propriedade: 'cob.chave',
        valor: cob.chave,
      });
    return violacoes;
  }

  /**
   * A test control: the payer's bank sends a Pix for this cob. As a real PSP, only while the cob
   * can take it: a removed cob, a `CONCLUIDA` one ("já foi paga e, por conseguinte, não pode
   * acolher outro pagamento", the standard's `CobrancaStatus`) and one past `calendario.expiracao`
   * are refused, so an adapter or service that leans on such a payment fails its tests. The
   * service still handles a second or a late Pix (returned by devolution: a payer's bank that
   * did not check): a test plays one only by opting in, `secondPayment` / `afterExpiry`.
   */
  pay(
    txid: string,
    payment: { amount?: number; payerDocument?: string; payerName?: string; infoPagador?: string },
    optIn: { secondPayment?: boolean; afterExpiry?: boolean } = {},
  ): Result<StoredPix> {
    const cob = this.cobs.get(txid);
    if (!cob) return problem(404, 'CobNaoEncontrado', 'Cobrança não encontrada.');
    if (cob.status === 'REMOVIDA_PELO_USUARIO_RECEBEDOR' || cob.status === 'REMOVIDA_PELO_PSP')
      return problem(409, 'CobOperacaoInvalida', 'Cobrança removida: o pagador não consegue pagá-la.');
    if (cob.status === 'CONCLUIDA' && optIn.secondPayment !== true)
      return problem(409, 'CobOperacaoInvalida', 'Cobrança CONCLUIDA: não pode acolher outro pagamento.');
    const now = new Date();
    const expiresAt = Date.parse(cob.calendario.criacao) + cob.calendario.expiracao * 1000;
    if (now.getTime() >= expiresAt && optIn.afterExpiry !== true)
      return problem(409, 'CobOperacaoInvalida', 'Cobrança expirada: o pagador não consegue pagá-la.');
    const pix: StoredPix = {
      endToEndId: `E${PAYER_ISPB}${endToEndTimestamp(now)}${randomAlphanumeric(11)}`,
      txid,
      valor: payment.amount === undefined ? cob.valor.original : toDecimalString(payment.amount),
      chave: cob.chave,
      horario: now.toISOString(),
      ...(payment.infoPagador !== undefined && { infoPagador: payment.infoPagador }),
      devolucoes: [],
      payer: {
        ...(payment.payerDocument !== undefined && { document: payment.payerDocument }),
        ...(payment.payerName !== undefined && { name: payment.payerName }),
      },
    };
    this.pix.set(pix.endToEndId, pix);
    this.cobs.set(txid, { ...cob, status: 'CONCLUIDA', endToEndIds: [...cob.endToEndIds, pix.endToEndId] });
    this.options.onNotify(pix);
    return { ok: true, value: pix, status: 201 };
  }

  /** `GET /pix`: received between `inicio` and `fim`, by payer document and txid, oldest first. */
  listPix(filter: { inicio: string; fim: string; cpf?: string; cnpj?: string; txid?: string }): StoredPix[] {
    const from = Date.parse(filter.inicio);
    const to = Date.parse(filter.fim);
    const document = filter.cpf ?? filter.cnpj;
    return [...this.pix.values()]
      .filter((pix) => {
        const at = Date.parse(pix.horario);
        return (
          at >= from &&
          at <= to &&
          (document === undefined || pix.payer.document === document) &&
          (filter.txid === undefined || pix.txid === filter.txid)
        );
      })
      .sort((a, b) => a.horario.localeCompare(b.horario));
  }

  /** `PUT /pix/{e2eid}/devolucao/{id}`, the body already schema-valid. */
  requestDevolucao(
    endToEndId: string,
    id: string,
    body: { valor: string; descricao?: string },
  ): Result<StoredDevolucao> {
    const pix = this.pix.get(endToEndId);
    // The general NaoEncontrado: the file names PixNaoEncontrado for `GET /pix/{e2eid}` only.
    if (!pix) return problem(404, 'NaoEncontrado', 'Pix não encontrado.');
    const refuse = (razao: string, propriedade: string) =>
      problem(400, 'PixDevolucaoInvalida', 'Devolução inválida.', undefined, [{ razao, propriedade }]);
    if (pix.devolucoes.some((d) => d.id === id))
      return refuse('O id da devolução já foi utilizado por outra devolução deste Pix.', 'devolucao.id');
    const committed = pix.devolucoes
      .filter((d) => d.status !== 'NAO_REALIZADO')
      .reduce((sum, d) => sum + fromDecimalString(d.valor), 0);
    const amount = fromDecimalString(body.valor);
    if (amount === 0) return refuse('O valor da devolução é zero.', 'devolucao.valor');
    if (committed + amount > fromDecimalString(pix.valor))
      return refuse('A devolução, com as anteriores, excederia o valor do Pix.', 'devolucao.valor');
    const now = new Date();
    const devolucao: StoredDevolucao = {
      id,
      rtrId: `D${this.options.ispb}${endToEndTimestamp(now)}${randomAlphanumeric(11)}`,
      valor: body.valor,
      natureza: 'ORIGINAL',
      ...(body.descricao !== undefined && { descricao: body.descricao }),
      horario: { solicitacao: now.toISOString() },
      status: 'EM_PROCESSAMENTO',
    };
    pix.devolucoes.push(devolucao);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      // The plan is read when the payer's bank answers, so a test may steer it meanwhile.
      const plan = this.plans.get(id);
      if (plan?.outcome === 'hold') return;
      if (plan?.outcome === 'fail') this.settle(pix, devolucao, 'NAO_REALIZADO', plan.motivo);
      else this.settle(pix, devolucao, 'DEVOLVIDO');
    }, this.options.devolutionSettleMs);
    this.timers.add(timer);
    return { ok: true, value: devolucao, status: 201 };
  }

  private findDevolucao(id: string): { pix: StoredPix; devolucao: StoredDevolucao } | undefined {
    for (const pix of this.pix.values()) {
      const devolucao = pix.devolucoes.find((d) => d.id === id);
      if (devolucao) return { pix, devolucao };
    }
    return undefined;
  }

  private settle(pix: StoredPix, devolucao: StoredDevolucao, status: DevolucaoStatus, motivo?: string): void {
    if (devolucao.status !== 'EM_PROCESSAMENTO') return;
    devolucao.status = status;
    if (motivo !== undefined) devolucao.motivo = motivo;
    if (status === 'DEVOLVIDO') devolucao.horario.liquidacao = new Date().toISOString();
    this.options.onNotify(pix);
  }

  /**
   * A test control over devolution `id` (its `{id}`; the first Pix that has one by that id):
   * `fail` ends it `NAO_REALIZADO`, `hold` keeps it `EM_PROCESSAMENTO`, `complete` ends it
   * `DEVOLVIDO`. Before the devolution is requested, `fail` and `hold` are kept for when it is.
   */
  steerDevolucao(
    id: string,
    action: 'fail' | 'hold' | 'complete',
    motivo = 'Recusada pelo PSP do pagador',
  ): Result<string> {
    const found = this.findDevolucao(id);
    if (!found) {
      if (action === 'complete')
        return problem(404, 'PixDevolucaoNaoEncontrada', 'Devolução não encontrada.');
      this.plans.set(id, action === 'fail' ? { outcome: 'fail', motivo } : { outcome: 'hold' });
      return { ok: true, value: 'planned', status: 202 };
    }
    if (found.devolucao.status !== 'EM_PROCESSAMENTO')
      return problem(409, 'PixDevolucaoInvalida', `A devolução já está ${found.devolucao.status}.`);
    if (action === 'hold') {
      this.plans.set(id, { outcome: 'hold' });
      return { ok: true, value: 'held' };
    }
    this.settle(
      found.pix,
      found.devolucao,
      action === 'fail' ? 'NAO_REALIZADO' : 'DEVOLVIDO',
      action === 'fail' ? motivo : undefined,
    );
    return { ok: true, value: found.devolucao.status };
  }

  /** `PUT /webhook/{chave}`, the body already schema-valid. */
  putWebhook(chave: string, webhookUrl: string): Result<undefined> {
    if (chave !== this.options.pixKey)
      return problem(400, 'WebhookOperacaoInvalida', 'Webhook inválido.', undefined, [
        {
          razao: 'O parâmetro chave não corresponde a uma chave DICT pertencente a este usuário recebedor.',
          propriedade: 'chave',
          valor: chave,
        },
      ]);
    this.webhooks.set(chave, { webhookUrl, chave, criacao: new Date().toISOString() });
    return { ok: true, value: undefined };
  }

  /** A test control: the payer's bank reports an infraction (MED) against a Pix received here. */
  reportInfraction(report: {
    endToEndId: string;
    infractionType?: string;
    reportDetails?: string;
  }): Result<Infraction> {
    if (!this.pix.has(report.endToEndId)) return problem(404, 'PixNaoEncontrado', 'Pix não encontrado.');
    const infraction: Infraction = {
      id: randomUUID(),
      endToEndId: report.endToEndId,
      infractionType: report.infractionType ?? 'FRAUD',
      ...(report.reportDetails !== undefined && { reportDetails: report.reportDetails }),
      status: 'OPEN',
      creationTime: new Date().toISOString(),
      lastModified: new Date().toISOString(),
    };
    this.infractions.push(infraction);
    return { ok: true, value: infraction, status: 201 };
  }

  /** A test control: the infraction's analysis ends (CLOSED with a result) or it is withdrawn (CANCELLED). */
  endInfraction(
    id: string,
    end: { status: 'CLOSED'; analysisResult: 'AGREED' | 'DISAGREED' } | { status: 'CANCELLED' },
  ): Result<Infraction> {
    const infraction = this.infractions.find((i) => i.id === id);
    if (!infraction) return problem(404, 'NaoEncontrado', 'Infração não encontrada.');
    if (infraction.status === 'CLOSED' || infraction.status === 'CANCELLED')
      return problem(409, 'RequisicaoInvalida', 'Infração já encerrada.');
    Object.assign(infraction, end, { lastModified: new Date().toISOString() });
    return { ok: true, value: infraction };
  }

  /** DICT `ExtendedInfractionReport` (bcb-dict-api.schemas.yaml) of an infraction against a Pix received here. */
  infractionReport(infraction: Infraction): Record<string, unknown> {
    return {
      Id: infraction.id,
      TransactionId: infraction.endToEndId,
      TransactionType: 'SPI',
      TransactionResult: 'SETTLED',
      InfractionType: infraction.infractionType,
      ...(infraction.reportDetails !== undefined && { ReportDetails: infraction.reportDetails }),
      ReportedBy: 'DEBITED_PARTICIPANT',
      Status: infraction.status,
      ...(infraction.analysisResult !== undefined && { AnalysisResult: infraction.analysisResult }),
      DebitedParticipant: PAYER_ISPB,
      CreditedParticipant: this.options.ispb,
      CreationTime: infraction.creationTime,
      LastModified: infraction.lastModified,
    };
  }

  /** Infractions changed within the period (`LastModified`), oldest first. */
  listInfractions(inicio: string, fim: string): Infraction[] {
    const from = Date.parse(inicio);
    const to = Date.parse(fim);
    return this.infractions.filter((i) => {
      const at = Date.parse(i.lastModified);
      return at >= from && at <= to;
    });
  }
}

const REVISABLE_FIELDS = [
  'calendario',
  'devedor',
  'valor',
  'chave',
  'solicitacaoPagador',
  'infoAdicionais',
] as const;
type RevisableField = (typeof REVISABLE_FIELDS)[number];

const cobContent = (cob: Pick<StoredCob, RevisableField>): Pick<StoredCob, RevisableField> => ({
  calendario: cob.calendario,
  ...(cob.devedor !== undefined && { devedor: cob.devedor }),
  valor: cob.valor,
  chave: cob.chave,
  ...(cob.solicitacaoPagador !== undefined && { solicitacaoPagador: cob.solicitacaoPagador }),
  ...(cob.infoAdicionais !== undefined && { infoAdicionais: cob.infoAdicionais }),
});

/** The standard's `Pix`: without the payer, which API Pix does not report. */
export const pixJson = ({ payer: _payer, devolucoes, ...pix }: StoredPix): Record<string, unknown> => ({
  ...pix,
  ...(devolucoes.length > 0 && { devolucoes }),
});
