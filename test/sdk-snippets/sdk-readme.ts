// The ```ts snippet of sdk/README.md, type-checked under strict, exactOptionalPropertyTypes and DOM lib types
// (sdk/tsconfig.dom.json, run by test/unit/sdk-types.test.ts, which also checks that it matches
// the README's). Never run.
import { InvalidRequestError, PixClient } from '../../sdk/src/index.ts';

const pix = new PixClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: process.env.PIX_API_KEY });
try {
  const charge = await pix.charges.create({ amount: 1050, description: 'Pedido 42' });
  console.log(charge.id, charge.pix.br_code);
} catch (error) {
  if (!(error instanceof InvalidRequestError)) throw error;
  console.log(error.code, error.param); // e.g. an amount out of range
}
