// The agent's load balancer part: the speaker announcing LoadBalancer addresses on the node's
// interface, set up from what the node's network looks like.
import type { Node, Service } from '../../api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../api/types/discovery-v1.generated.js';
import { EventBroadcaster } from '../../client/events/index.js';
import type { SharedInformerFactory } from '../../client/informers/index.js';
import { ENDPOINT_SLICES, NODES, SERVICES } from '../../client/resources.js';
import type { Client } from '../../client/types.js';
import type { RunCommand } from '../network/host-commands.js';
import {
  addAddress,
  announceAddress,
  heldAddresses,
  onLink,
  readNodeLink,
  removeAddress,
} from './node-link.js';
import { LoadBalancerSpeaker } from './speaker.js';

export { LoadBalancerSpeaker, speakerLeaseName } from './speaker.js';

export interface NodeSpeakerOptions {
  readonly client: Client;
  readonly informers: SharedInformerFactory;
  readonly nodeName: string;
  readonly nodeIP: string;
  readonly run: RunCommand;
}

export interface NodeSpeaker {
  /** Announces until the signal aborts, then takes every address off and flushes its events. */
  run(signal: AbortSignal): Promise<void>;
}

/** The speaker for this node, its informers registered; addresses an earlier agent left are removed first. */
export async function nodeSpeaker(options: NodeSpeakerOptions): Promise<NodeSpeaker> {
  const { run } = options;
  const link = await readNodeLink(run, options.nodeIP);
  for (const ip of await heldAddresses(run, link)) {
    if (onLink(link, ip) && ip !== options.nodeIP) await removeAddress(run, link, ip);
  }
  const events = new EventBroadcaster(options.client);
  const speaker = new LoadBalancerSpeaker({
    client: options.client,
    recorder: events.newRecorder({ component: 'tkube-lb-speaker', host: options.nodeName }),
    services: options.informers.informerFor<Service>(SERVICES),
    slices: options.informers.informerFor<EndpointSlice>(ENDPOINT_SLICES),
    nodes: options.informers.informerFor<Node>(NODES),
    nodeName: options.nodeName,
    addresses: {
      announceable: (ip) => onLink(link, ip) && ip !== options.nodeIP,
      add: async (ip) => {
        await addAddress(run, link, ip);
        console.log(`agent: announcing load balancer address ${ip} on ${link.device}`);
        await announceAddress(run, link, ip);
      },
      remove: async (ip) => {
        await removeAddress(run, link, ip);
        console.log(`agent: no longer announcing load balancer address ${ip}`);
      },
    },
  });
  return {
    run: async (signal) => {
      await speaker.run(signal);
      await events.shutdown();
    },
  };
}
