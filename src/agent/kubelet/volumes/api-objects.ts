// The API objects volumes read, fetched as the node: configMaps, secrets (the Node authorizer
// lets a node get those its pods use) and the node's own allocatable resources.
import type { ConfigMap, Node, Secret } from '../../../api/types/core-v1.generated.js';
import { CONFIG_MAPS, NODES, SECRETS } from '../../../client/resources.js';
import { isNotFound } from '../../../client/rest/index.js';
import type { Client } from '../../../client/types.js';
import type { ResourceList } from './downward-api.js';

/** How long the node's allocatable resources are reused before being read again. */
const ALLOCATABLE_TTL_MS = 60_000;

export class ApiObjects {
  private allocatable: { value: ResourceList; at: number } | undefined;

  constructor(
    private readonly client: Client,
    private readonly nodeName: string,
  ) {}

  /** The configMap, or undefined when it does not exist. */
  configMap(namespace: string, name: string): Promise<ConfigMap | undefined> {
    return this.find<ConfigMap>(this.client.resource<ConfigMap>(CONFIG_MAPS).get(namespace, name));
  }

  secret(namespace: string, name: string): Promise<Secret | undefined> {
    return this.find<Secret>(this.client.resource<Secret>(SECRETS).get(namespace, name));
  }

  async nodeAllocatable(): Promise<ResourceList> {
    if (this.allocatable && Date.now() - this.allocatable.at < ALLOCATABLE_TTL_MS)
      return this.allocatable.value;
    const node = await this.client.resource<Node>(NODES).get('', this.nodeName);
    const value: Record<string, string> = {};
    for (const [name, quantity] of Object.entries(node.status?.allocatable ?? {}))
      value[name] = String(quantity);
    this.allocatable = { value, at: Date.now() };
    return value;
  }

  private async find<T>(request: Promise<T>): Promise<T | undefined> {
    try {
      return await request;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}
