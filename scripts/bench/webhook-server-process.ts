// The webhooks of the admission-webhook benchmark, in a process of their own so that the bench
// client's work does not delay their answers: a mutating one (JSONPatch adding a label) on
// /mutate, a validating one allowing everything on /validate. Prints `{port, caBundle}` once
// listening; exits with its parent's stdin.
import { jsonPatch, reviewResponse, startWebhookServer } from '../../test/support/webhook-server.js';

const server = await startWebhookServer();
server.handlers.set('/mutate', (review) =>
  reviewResponse(review, {
    allowed: true,
    ...jsonPatch([{ op: 'add', path: '/metadata/labels', value: { mutated: 'true' } }]),
  }),
);
server.handlers.set('/validate', (review) => reviewResponse(review, { allowed: true }));
process.stdout.write(`${JSON.stringify({ port: server.port, caBundle: server.caBundle })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void server.close().then(() => process.exit(0));
});
