// kube-apiserver's cluster authentication trust controller: publishes in
// kube-system/extension-apiserver-authentication the client CA and the request-header (front-proxy)
// settings, from which aggregated API servers learn whom to trust and which headers name the user.
import type { KubeObject } from '../../api/object.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { StatusError } from '../status.js';

export const AUTHENTICATION_CONFIGMAP = {
  namespace: 'kube-system',
  name: 'extension-apiserver-authentication',
};

export interface RequestHeaderSettings {
  readonly clientCaPem: string;
  readonly requestHeaderCaPem: string;
  readonly allowedNames: readonly string[];
}

export const USERNAME_HEADERS = ['X-Remote-User'];
export const GROUP_HEADERS = ['X-Remote-Group'];
export const EXTRA_HEADERS_PREFIXES = ['X-Remote-Extra-'];

export function authenticationConfigMapData(settings: RequestHeaderSettings): Record<string, string> {
  return {
    'client-ca-file': settings.clientCaPem,
    'requestheader-allowed-names': JSON.stringify(settings.allowedNames),
    'requestheader-client-ca-file': settings.requestHeaderCaPem,
    'requestheader-extra-headers-prefix': JSON.stringify(EXTRA_HEADERS_PREFIXES),
    'requestheader-group-headers': JSON.stringify(GROUP_HEADERS),
    'requestheader-username-headers': JSON.stringify(USERNAME_HEADERS),
  };
}

/** Creates the ConfigMap, or rewrites its data when it differs. */
export async function publishAuthenticationConfigMap(
  configMaps: ResourceStore,
  settings: RequestHeaderSettings,
): Promise<void> {
  const { namespace, name } = AUTHENTICATION_CONFIGMAP;
  const data = authenticationConfigMapData(settings);
  const existing = await configMaps.find(namespace, name);
  if (existing && JSON.stringify(existing.data) === JSON.stringify(data)) return;
  try {
    if (!existing) {
      await configMaps.create(namespace, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace },
        data,
      } as KubeObject);
    } else {
      await configMaps.guaranteedUpdate(namespace, name, (current) => ({ ...current, data }));
    }
  } catch (error) {
    if (!(error instanceof StatusError && error.code === 409)) throw error;
  }
}
