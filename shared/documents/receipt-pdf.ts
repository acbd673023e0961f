/**
 * Lays a receipt (`shared/domain/receipts.ts`, which decides every word of it) out as an A4 PDF
 * with pdf-lib. A document renderer is an outbound adapter like the acquirer's: it turns domain
 * data into a wire format, so it lives beside them, not in the pure domain (whose layer rule
 * admits no third-party code but valibot): the domain stays testable without a PDF, and the
 * rendering can change (another library, a template) without touching what the receipt says.
 *
 * pdf-lib is pure JavaScript (no native code, no files, no network), so it bundles into the
 * Lambda as is. The standard Helvetica font needs no embedding and encodes WinAnsi (cp1252),
 * which holds every Portuguese letter (ã, ç, õ, é…); anything outside it (an emoji in a payer's
 * name) is replaced before drawing, since pdf-lib throws on a character its font cannot encode.
 * Creation and modification dates are the receipt's issue time: the same receipt renders to the
 * same bytes.
 */

import { type Color, PageSizes, PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from 'pdf-lib';
import type { Receipt } from '../domain/receipts.ts';

const [PAGE_WIDTH, PAGE_HEIGHT] = PageSizes.A4;
const MARGIN = 50;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const LABEL_WIDTH = 150;
const BAND_HEIGHT = 92;
const FOOTER_SPACE = 60;

const BRAND = rgb(0.196, 0.737, 0.678); // #32BCAD, the checkout page's colour
const INK = rgb(0.059, 0.09, 0.165);
const MUTED = rgb(0.39, 0.45, 0.55);
const RULE = rgb(0.86, 0.89, 0.92);
const ZEBRA = rgb(0.95, 0.96, 0.97);
const WHITE = rgb(1, 1, 1);

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
}

const graphemes = new Intl.Segmenter('pt-BR', { granularity: 'grapheme' });

/**
 * Text the font can encode: accents kept where WinAnsi has them, else dropped, else one `?` per
 * character as the reader sees it. NFC first: a name typed on an Apple device may arrive
 * decomposed (`a` + U+0303), which WinAnsi holds only composed (`ã`); an emoji sequence
 * (👩‍💻, ❤️) is one character, so one `?`.
 */
function encodableText(text: string, font: PDFFont): string {
  const charset = new Set(font.getCharacterSet());
  const encodable = (chars: string) => [...chars].every((c) => charset.has(c.codePointAt(0) ?? 0));
  let out = '';
  for (const { segment } of graphemes.segment(text.normalize('NFC').replace(/\s/g, ' '))) {
    if (encodable(segment)) {
      out += segment;
      continue;
    }
    const base = segment.normalize('NFD').replace(/\p{M}/gu, '');
    out += base !== '' && encodable(base) ? base : '?';
  }
  return out;
}

/** Lines of at most `width` points; words longer than a line are cut. */
function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (font.widthOfTextAtSize(candidate, size) <= width) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    line = '';
    for (const char of word) {
      if (font.widthOfTextAtSize(line + char, size) > width && line !== '') {
        lines.push(line);
        line = '';
      }
      line += char;
    }
  }
  lines.push(line);
  return lines;
}

/** The text cut with an ellipsis to `width` points. */
function fitText(text: string, font: PDFFont, size: number, width: number): string {
  if (font.widthOfTextAtSize(text, size) <= width) return text;
  let cut = text;
  while (cut !== '' && font.widthOfTextAtSize(`${cut}…`, size) > width) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** A cursor down the pages: starts a new page when the next block does not fit. */
class Layout {
  readonly doc: PDFDocument;
  readonly fonts: Fonts;
  page: PDFPage;
  y: number;
  constructor(doc: PDFDocument, fonts: Fonts) {
    this.doc = doc;
    this.fonts = fonts;
    this.page = doc.addPage(PageSizes.A4);
    this.y = PAGE_HEIGHT - MARGIN;
  }

  /** Starts a new page unless `height` fits above the footer; says whether it did. */
  ensure(height: number): boolean {
    if (this.y - height >= FOOTER_SPACE) return false;
    this.page = this.doc.addPage(PageSizes.A4);
    this.y = PAGE_HEIGHT - MARGIN;
    return true;
  }

  text(value: string, x: number, options: { size: number; bold?: boolean; color?: Color; y?: number }) {
    const font = options.bold ? this.fonts.bold : this.fonts.regular;
    this.page.drawText(encodableText(value, font), {
      x,
      y: options.y ?? this.y,
      size: options.size,
      font,
      color: options.color ?? INK,
    });
  }
}

function drawHeader(layout: Layout, receipt: Receipt, fonts: Fonts): void {
  const { page } = layout;
  page.drawRectangle({
    x: 0,
    y: PAGE_HEIGHT - BAND_HEIGHT,
    width: PAGE_WIDTH,
    height: BAND_HEIGHT,
    color: BRAND,
  });
  layout.text(receipt.title, MARGIN, { size: 20, bold: true, color: WHITE, y: PAGE_HEIGHT - 48 });
  const name = fitText(encodableText(receipt.merchantName, fonts.regular), fonts.regular, 11, CONTENT_WIDTH);
  layout.text(name, MARGIN, { size: 11, color: WHITE, y: PAGE_HEIGHT - 70 });
  layout.y = PAGE_HEIGHT - BAND_HEIGHT - 40;
  layout.text('Valor pago', MARGIN, { size: 10, color: MUTED });
  layout.y -= 30;
  layout.text(receipt.amount, MARGIN, { size: 28, bold: true });
  layout.y -= 20;
  layout.text(receipt.paidAt, MARGIN, { size: 10, color: MUTED });
  layout.y -= 34;
}

function drawSectionHeading(layout: Layout, heading: string): void {
  layout.ensure(40);
  layout.text(heading.toUpperCase(), MARGIN, { size: 10, bold: true, color: BRAND });
  layout.y -= 7;
  layout.page.drawLine({
    start: { x: MARGIN, y: layout.y },
    end: { x: PAGE_WIDTH - MARGIN, y: layout.y },
    thickness: 0.75,
    color: RULE,
  });
  layout.y -= 16;
}

function drawField(layout: Layout, fonts: Fonts, label: string, value: string): void {
  const lines = wrap(encodableText(value, fonts.regular), fonts.regular, 10, CONTENT_WIDTH - LABEL_WIDTH);
  layout.ensure(lines.length * 13 + 6);
  layout.text(label, MARGIN, { size: 9, color: MUTED });
  for (const line of lines) {
    layout.text(line, MARGIN + LABEL_WIDTH, { size: 10 });
    layout.y -= 13;
  }
  layout.y -= 5;
}

const COLUMN_WIDTHS = [182, 78, 155, 80] as const;

function drawRefunds(layout: Layout, receipt: Receipt): void {
  if (receipt.refunds.length === 0) return;
  layout.y -= 6;
  drawSectionHeading(layout, receipt.refundsHeading);
  const row = (cells: readonly string[], options: { bold?: boolean; color?: Color; shade?: Color }) => {
    layout.ensure(18);
    if (options.shade)
      layout.page.drawRectangle({
        x: MARGIN,
        y: layout.y - 5,
        width: CONTENT_WIDTH,
        height: 17,
        color: options.shade,
      });
    let x = MARGIN + 4;
    const font = options.bold ? layout.fonts.bold : layout.fonts.regular;
    cells.forEach((cell, n) => {
      const width = COLUMN_WIDTHS[n] ?? 0;
      layout.text(fitText(encodableText(cell, font), font, 8.5, width - 6), x, { size: 8.5, ...options });
      x += width;
    });
    layout.y -= 17;
  };
  const header = () => row(receipt.refundColumns, { bold: true, color: MUTED });
  header();
  receipt.refunds.forEach((refund, n) => {
    // A list that runs onto another page repeats its column names there.
    if (layout.ensure(18)) header();
    row([refund.id, refund.amount, refund.status, refund.requestedAt], {
      ...(n % 2 === 0 && { shade: ZEBRA }),
    });
  });
}

function drawFooters(doc: PDFDocument, receipt: Receipt, fonts: Fonts): void {
  const pages = doc.getPages();
  pages.forEach((page, n) => {
    page.drawLine({
      start: { x: MARGIN, y: 46 },
      end: { x: PAGE_WIDTH - MARGIN, y: 46 },
      thickness: 0.5,
      color: RULE,
    });
    const lines = wrap(encodableText(receipt.footer, fonts.regular), fonts.regular, 8, CONTENT_WIDTH - 50);
    lines.slice(0, 2).forEach((line, i) => {
      page.drawText(line, { x: MARGIN, y: 34 - i * 10, size: 8, font: fonts.regular, color: MUTED });
    });
    const number = `${n + 1}/${pages.length}`;
    page.drawText(number, {
      x: PAGE_WIDTH - MARGIN - fonts.regular.widthOfTextAtSize(number, 8),
      y: 34,
      size: 8,
      font: fonts.regular,
      color: MUTED,
    });
  });
}

/** The receipt as PDF bytes: one A4 page (more only for a long list of refunds). */
export async function renderReceiptPdf(receipt: Receipt): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const fonts: Fonts = {
    regular: await doc.embedFont(StandardFonts.Helvetica),
    bold: await doc.embedFont(StandardFonts.HelveticaBold),
  };
  const { properties } = receipt;
  const issued = new Date(properties.createdAt);
  // Document properties are UTF-16 strings: no font, so nothing to replace.
  doc.setTitle(properties.title);
  doc.setSubject(properties.subject);
  doc.setAuthor(properties.author);
  doc.setCreator('Pix payment service');
  doc.setProducer('pdf-lib');
  doc.setLanguage('pt-BR');
  doc.setCreationDate(issued);
  doc.setModificationDate(issued);

  const layout = new Layout(doc, fonts);
  drawHeader(layout, receipt, fonts);
  for (const section of receipt.sections) {
    drawSectionHeading(layout, section.heading);
    for (const field of section.fields) drawField(layout, fonts, field.label, field.value);
    layout.y -= 8;
  }
  drawRefunds(layout, receipt);
  drawFooters(doc, receipt, fonts);
  return doc.save();
}
