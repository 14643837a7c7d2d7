import { describe, expect, it } from 'vitest';
import { negotiateDiscovery } from '../../../src/apiserver/discovery/negotiation.js';

const V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

describe('negotiateDiscovery', () => {
  it('serves the aggregated document to client-go', () => {
    expect(negotiateDiscovery(`${V2},${V2BETA1},application/json`)).toBe('aggregated');
  });

  it('serves the unaggregated document to clients that only know v2beta1, which 1.33 removed', () => {
    expect(negotiateDiscovery(`${V2BETA1},application/json`)).toBe('legacy');
  });

  it('serves the unaggregated document to plain JSON requests and to requests without Accept', () => {
    expect(negotiateDiscovery('application/json, */*')).toBe('legacy');
    expect(negotiateDiscovery(undefined)).toBe('legacy');
  });

  it('honours q values over the order of the clauses', () => {
    expect(negotiateDiscovery(`application/json;q=0.5,${V2}`)).toBe('aggregated');
    expect(negotiateDiscovery(`${V2};q=0.5,application/json`)).toBe('legacy');
    expect(negotiateDiscovery(`${V2};q=0,application/json`)).toBe('legacy');
  });

  it('skips protobuf and other transformations it cannot produce', () => {
    expect(
      negotiateDiscovery(
        `application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,${V2},application/json`,
      ),
    ).toBe('aggregated');
    expect(negotiateDiscovery(`application/json;as=Table;g=meta.k8s.io;v=v1,${V2}`)).toBe('aggregated');
  });
});
