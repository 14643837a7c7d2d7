// The conversion webhook's client against a ConversionReview server in this process: the deadline
// ends a slow webhook's call with upstream's text instead of holding the request, and objects
// already in the desired version are never sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversionWebhookConverter } from '../../../src/apiserver/apiextensions/conversion-webhook.js';
import { startWebhookServer, type WebhookServer } from '../../support/webhook-server.js';

let server: WebhookServer;

beforeAll(async () => {
  server = await startWebhookServer();
  server.handlers.set('/slow', async (review) => {
    await new Promise((resolve) => setTimeout(resolve, 3000));
    return { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid } };
  });
});

afterAll(async () => {
  await server?.close();
});

const object = (apiVersion: string, name: string) => ({
  apiVersion,
  kind: 'Thing',
  metadata: { name, namespace: 'default', uid: name },
});

describe('conversionWebhookConverter', () => {
  it('gives up on a slow webhook at its deadline', async () => {
    const convert = conversionWebhookConverter(
      {
        clientConfig: { url: server.url('/slow'), caBundle: server.caBundle },
        conversionReviewVersions: ['v1'],
      },
      {},
      1,
    );
    const started = Date.now();
    await expect(convert([object('example.com/v1', 'a')], 'example.com/v2', false)).rejects.toThrow(
      `conversion webhook for example.com/v1, Kind=Thing failed: Post "${server.url('/slow')}?timeout=1s": context deadline exceeded`,
    );
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('sends nothing when every object is in the desired version', async () => {
    const convert = conversionWebhookConverter(
      { clientConfig: { url: 'https://127.0.0.1:1/never' }, conversionReviewVersions: ['v1'] },
      {},
      1,
    );
    const objects = [object('example.com/v2', 'a'), object('example.com/v2', 'b')];
    expect(await convert(objects, 'example.com/v2', true)).toBe(objects);
  });

  it('refuses a CRD whose review versions it does not know', async () => {
    const convert = conversionWebhookConverter(
      { clientConfig: { url: server.url('/slow') }, conversionReviewVersions: ['v2'] },
      {},
      1,
    );
    await expect(convert([object('example.com/v1', 'a')], 'example.com/v2', true)).rejects.toThrow(
      'no supported conversion review versions',
    );
  });
});
