// @kubernetes/client-node lists with the field selectors upstream registers for Events (core/v1
// and events.k8s.io/v1) and Pods: each label is accepted and matches what upstream's
// selectable field set holds.
import { CoreV1Api, EventsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientNodeControlPlane, startClientNodeControlPlane } from '../../support/client-node.js';

let cluster: ClientNodeControlPlane;
let core: CoreV1Api;
let events: EventsV1Api;

beforeAll(async () => {
  cluster = await startClientNodeControlPlane();
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  events = cluster.kubeConfig.makeApiClient(EventsV1Api);
  await core.createNamespace({ body: { metadata: { name: 'selectors' } } });
}, 30_000);

afterAll(async () => {
  await cluster?.stop();
});

const namespace = 'selectors';
const now = new Date();

async function coreEventNames(fieldSelector: string): Promise<string[]> {
  const list = await core.listNamespacedEvent({ namespace, fieldSelector });
  return list.items.map((event) => event.metadata?.name ?? '').sort();
}

async function eventsV1Names(fieldSelector: string): Promise<string[]> {
  const list = await events.listNamespacedEvent({ namespace, fieldSelector });
  return list.items.map((event) => event.metadata?.name ?? '').sort();
}

describe('Event field selectors', () => {
  beforeAll(async () => {
    await core.createNamespacedEvent({
      namespace,
      body: {
        metadata: { name: 'from-kubelet' },
        involvedObject: {
          kind: 'Pod',
          name: 'p',
          namespace,
          apiVersion: 'v1',
          fieldPath: 'spec.containers{c}',
        },
        reason: 'Pulled',
        type: 'Normal',
        source: { component: 'kubelet', host: 'node-1' },
        firstTimestamp: now,
        lastTimestamp: now,
      },
    });
    await events.createNamespacedEvent({
      namespace,
      body: {
        metadata: { name: 'from-controller' },
        eventTime: now,
        action: 'Scale',
        reason: 'Scaled',
        type: 'Warning',
        reportingController: 'example.com/scaler',
        reportingInstance: 'scaler-1',
        regarding: { kind: 'Deployment', name: 'd', namespace, apiVersion: 'apps/v1', resourceVersion: '42' },
      },
    });
  });

  it('core/v1: source falls back to the reporting controller; every upstream label is accepted', async () => {
    expect(await coreEventNames('source=kubelet')).toEqual(['from-kubelet']);
    expect(await coreEventNames('source=example.com/scaler')).toEqual(['from-controller']);
    expect(await coreEventNames('reportingComponent=example.com/scaler')).toEqual(['from-controller']);
    expect(await coreEventNames('involvedObject.fieldPath=spec.containers{c}')).toEqual(['from-kubelet']);
    expect(
      await coreEventNames('involvedObject.apiVersion=apps/v1,involvedObject.resourceVersion=42'),
    ).toEqual(['from-controller']);
    expect(await coreEventNames('type=Warning,reason=Scaled,involvedObject.kind=Deployment')).toEqual([
      'from-controller',
    ]);
    expect(await coreEventNames('involvedObject.uid=,involvedObject.namespace=selectors')).toHaveLength(2);
  });

  it('events.k8s.io/v1: the regarding and reportingController labels', async () => {
    expect(await eventsV1Names('reportingController=example.com/scaler')).toEqual(['from-controller']);
    expect(await eventsV1Names('regarding.apiVersion=apps/v1,regarding.resourceVersion=42')).toEqual([
      'from-controller',
    ]);
    expect(await eventsV1Names('regarding.fieldPath=spec.containers{c}')).toEqual(['from-kubelet']);
    expect(await eventsV1Names('regarding.kind=Pod,regarding.name=p,type=Normal,reason=Pulled')).toEqual([
      'from-kubelet',
    ]);
  });
});

describe('Pod field selectors', () => {
  it('take spec.host for spec.nodeName and status.podIPs', async () => {
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'placed' },
        spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] },
      },
    });
    const byHost = await core.listNamespacedPod({ namespace, fieldSelector: 'spec.host=node-1' });
    expect(byHost.items.map((pod) => pod.metadata?.name)).toEqual(['placed']);
    const byIps = await core.listNamespacedPod({ namespace, fieldSelector: 'status.podIPs=10.0.0.1' });
    expect(byIps.items).toEqual([]);
  });
});
