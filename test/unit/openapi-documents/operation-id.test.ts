import { describe, expect, it } from 'vitest';
import { operationIdAndTags, toValidOperationId } from '../../../src/apiserver/openapi/operation-id.js';

describe('operationIdAndTags', () => {
  it('works the group and version in after the verb', () => {
    expect(operationIdAndTags('readNamespacedPod', '/api/v1/namespaces/{namespace}/pods/{name}')).toEqual({
      operationId: 'readCoreV1NamespacedPod',
      tags: ['core_v1'],
    });
    expect(operationIdAndTags('listClusterRole', '/apis/rbac.authorization.k8s.io/v1/clusterroles')).toEqual({
      operationId: 'listRbacAuthorizationV1ClusterRole',
      tags: ['rbacAuthorization_v1'],
    });
    expect(
      operationIdAndTags(
        'readFlowSchemaStatus',
        '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/{name}/status',
      ),
    ).toEqual({
      operationId: 'readFlowcontrolApiserverV1FlowSchemaStatus',
      tags: ['flowcontrolApiserver_v1'],
    });
  });

  it('splits after the shortest verb, so collection deletes read deleteCoreV1Collection...', () => {
    expect(
      operationIdAndTags('deletecollectionNamespacedPod', '/api/v1/namespaces/{namespace}/pods').operationId,
    ).toBe('deleteCoreV1CollectionNamespacedPod');
  });

  it('names the discovery roots', () => {
    expect(operationIdAndTags('getAPIVersions', '/api/')).toEqual({
      operationId: 'getCoreAPIVersions',
      tags: ['core'],
    });
    expect(operationIdAndTags('getAPIVersions', '/apis/')).toEqual({
      operationId: 'getAPIVersions',
      tags: ['apis'],
    });
    expect(operationIdAndTags('getAPIGroup', '/apis/autoscaling/')).toEqual({
      operationId: 'getAutoscalingAPIGroup',
      tags: ['autoscaling'],
    });
    expect(operationIdAndTags('getCodeVersion', '/version/')).toEqual({
      operationId: 'getCodeVersion',
      tags: ['version'],
    });
  });

  it('rejects operation names without a verb', () => {
    expect(() => operationIdAndTags('frobnicatePod', '/api/v1/pods')).toThrow(/verb/);
  });
});

describe('toValidOperationId', () => {
  it('drops separators, capitalising what follows, and leading digits', () => {
    expect(toValidOperationId('admissionregistration', true)).toBe('Admissionregistration');
    expect(toValidOperationId('v1beta1', true)).toBe('V1beta1');
    expect(toValidOperationId('1st.thing-x', false)).toBe('StThingX');
  });
});
