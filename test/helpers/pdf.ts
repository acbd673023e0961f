/** Reads a PDF the way a person would: its pages and their text (pdfjs-dist, the legacy build for Node). */

import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** The standard fonts' metrics pdfjs reads for a PDF that does not embed its fonts (Helvetica). */
const standardFontDataUrl = `${dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'))}/standard_fonts/`;

export interface PdfContent {
  pages: number;
  /** Each page's text, its runs joined by spaces (a run is what one draw call wrote). */
  pageTexts: string[];
  /** Every page's text in one string. */
  text: string;
  info: Record<string, unknown>;
}

export async function readPdf(bytes: Uint8Array): Promise<PdfContent> {
  // pdfjs takes ownership of (detaches) the buffer it is given: hand it a copy.
  const doc = await getDocument({
    data: new Uint8Array(bytes),
    standardFontDataUrl,
    useSystemFonts: false,
    isEvalSupported: false,
  }).promise;
  try {
    const pageTexts: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const content = await (await doc.getPage(n)).getTextContent();
      pageTexts.push(
        content.items
          .map((item) => ('str' in item ? item.str : ''))
          .filter((s) => s !== '')
          .join(' '),
      );
    }
    const { info } = await doc.getMetadata();
    return {
      pages: doc.numPages,
      pageTexts,
      text: pageTexts.join('\n'),
      info: info as Record<string, unknown>,
    };
  } finally {
    await doc.destroy();
  }
}
