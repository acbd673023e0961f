// The ```ts snippet of README.md, type-checked under strict, exactOptionalPropertyTypes and DOM lib types
// (sdk/tsconfig.dom.json, run by test/unit/sdk-types.test.ts, which also checks that it matches
// the README's). Never run.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { NotFoundError, PixClient } from '../../sdk/src/index.ts'; // elsewhere: '@pix-service/sdk' (sdk/README.md)

const demo = JSON.parse(readFileSync(`${process.env.DATA_DIR || '.data'}/demo.json`, 'utf8'));
const pix = new PixClient({ baseUrl: demo.base_url, apiKey: demo.test_api_key });

// Where deliveries go; its secret is shown only here (and on rotation): keep it.
const endpoint = await pix.webhookEndpoints.create({
  // The receiver below. Locally, http is accepted, and of the internal addresses only 127.0.0.1: a
  // URL whose host is 127.0.0.1, or a name that resolves to it alone (`localhost`, unless it also
  // resolves to `::1`), is accepted; `http://[::1]` and `127.0.0.2` are refused (400, "resolves to
  // a forbidden address").
  url: 'http://127.0.0.1:8080/pix-webhooks',
  events: ['charge.paid', 'payment.refunded'],
});

const charge = await pix.charges.create({ amount: 1050, description: 'Pedido 42' }); // Idempotency-Key added
console.log(charge.checkout_url, charge.pix.br_code);
// The payer's CPF: a refund (default strategy cashout) pays back to it; without one it needs a destinationKey.
await pix.sandbox.pay(charge.id, { payer_document: '52998224725' });
const refund = await pix.payments.refunds.create(charge.id, { amount: 500 });
// available drops by the 500 reserved; on a fresh demo account, 529 (1050 less the 2 % fee, less 500)
console.log(refund.status, (await pix.wallets.balance()).available);

// A MED case, on another paid charge (one opens once no refund of its charge is in flight): the
// evidence file is declared, uploaded to storage and confirmed in one call.
const disputed = await pix.charges.create({ amount: 2000 });
await pix.sandbox.pay(disputed.id, { payer_document: '52998224725' });
// receipt.pdf is your own proof of the sale (an invoice, a delivery note): PDF or image, up to 10 MB.
const medCase = await pix.sandbox.openMedCase(disputed.id, { method: 'scam' });
await pix.medCases.uploadEvidence(medCase.id, readFileSync('receipt.pdf'), {
  fileName: 'receipt.pdf',
  mimeType: 'application/pdf',
});

// The receiver at the endpoint's URL checks each delivery on its raw body, before any JSON parsing.
// After pix.webhookEndpoints.rotateSecret(endpoint.id), list the new secret beside the old one
// until every receiver has it.
const secrets = [endpoint.secret];
createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk);
  try {
    const event = pix.webhooks.verify(Buffer.concat(chunks), req.headers, secrets);
    console.log('type' in event ? event.type : event.event);
    res.writeHead(200).end();
  } catch {
    res.writeHead(400).end(); // WebhookSignatureError: not from the service
  }
}).listen(8080);
process.once('SIGINT', async () => {
  await pix.webhookEndpoints.del(endpoint.id);
  process.exit(0);
});

try {
  await pix.charges.retrieve('ch_unknown');
} catch (error) {
  if (error instanceof NotFoundError) console.log(error.code, error.requestId);
}
