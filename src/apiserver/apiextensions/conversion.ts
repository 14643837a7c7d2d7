// Conversion between the versions of a custom resource (apiextensions-apiserver's
// pkg/apiserver/conversion): `None` rewrites apiVersion only. `Webhook` objects are converted by the
// CRD's webhook (conversion-webhook.ts) before this synchronous step, which then finds them in
// the wanted version; one that is not is refused rather than passed through unconverted.
import type { KubeObject } from '../../api/object.js';
import type { WebhookClientDeps } from '../admission/webhook/client.js';
import { fieldsOf, stringOf, stringsOf } from '../registry/validation/json.js';
import { internalError, unknownError } from '../status.js';
import type { ConversionWebhookMetrics } from './conversion-metrics.js';
import { ConversionError, conversionWebhookConverter } from './conversion-webhook.js';

/** Converts `object` to `apiVersion` (a version of the same group); returns it as is when equal. */
export type CustomResourceConverter = (object: KubeObject, apiVersion: string) => KubeObject;

/** Converts many objects to `apiVersion` in one round trip (a conversion webhook's review). */
export type AsyncCustomResourceConverter = (
  objects: KubeObject[],
  apiVersion: string,
  asList: boolean,
) => Promise<KubeObject[]>;

export function customResourceConverter(strategy: string, kind: string): CustomResourceConverter {
  if (strategy !== 'Webhook') {
    return (object, apiVersion) => {
      object.apiVersion = apiVersion;
      return object;
    };
  }
  return (object, apiVersion) => {
    if (object.apiVersion === apiVersion) return object;
    throw internalError(
      new Error(`conversion webhook for ${apiVersion}, Kind=${kind} failed: the object was not converted`),
    );
  };
}

/**
 * The webhook conversion of a CRD whose strategy is `Webhook`, or undefined (`None`). Failures are
 * 500s without a reason carrying upstream's text, as kube-apiserver answers them.
 */
export function customResourceWebhookConverter(
  conversion: unknown,
  client: WebhookClientDeps,
  metrics?: { crdName: string; registry: ConversionWebhookMetrics },
): AsyncCustomResourceConverter | undefined {
  const fields = fieldsOf(conversion);
  if (stringOf(fields.strategy) !== 'Webhook') return undefined;
  const webhook = fieldsOf(fields.webhook);
  const convert = conversionWebhookConverter(
    {
      clientConfig: fieldsOf(webhook.clientConfig),
      conversionReviewVersions: stringsOf(webhook.conversionReviewVersions),
    },
    client,
  );
  return async (objects, apiVersion, asList) => {
    // Only calls that reach the webhook are recorded (objects already in the version need none).
    const from = objects.find((object) => object.apiVersion !== apiVersion)?.apiVersion;
    const started = performance.now();
    const observe = (failureType?: ConversionError['failureType']) =>
      from !== undefined &&
      metrics?.registry.observe({
        crdName: metrics.crdName,
        fromVersion: versionOf(from),
        toVersion: versionOf(apiVersion),
        seconds: (performance.now() - started) / 1000,
        failureType,
      });
    try {
      const converted = await convert(objects, apiVersion, asList);
      observe();
      return converted;
    } catch (error) {
      // Upstream's storage codec returns the converter's error as it is: not an API status.
      if (error instanceof ConversionError) {
        observe(error.failureType);
        throw unknownError(error.message);
      }
      throw error;
    }
  };
}

/** The version of `group/version` (or of a core `version`). */
function versionOf(apiVersion: string): string {
  return apiVersion.slice(apiVersion.indexOf('/') + 1);
}
